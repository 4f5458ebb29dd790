// Transposition keys: two candidates with the same key are the same
// candidate, evaluated once (SearchTree::FindTransposition).
//
// Two keys per candidate:
//   "source:<sha256>"  of the normalized source: comments removed (// and
//                      /* */, outside string and character literals), every
//                      run of whitespace outside literals collapsed to one
//                      space, leading/trailing whitespace dropped. So a
//                      candidate that differs only in comments, indentation
//                      or blank lines is a transposition.
//   "binary:<sha256>"  of the compiled binary's bytes (or the compile cache
//                      key's content hash the integrator has at hand).
// Preprocessor lines keep their line break (a directive ends at its newline).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kopt {

std::string NormalizeSource(std::string_view source);
std::string SourceTranspositionKey(std::string_view source);  // "source:" + SHA-256 of NormalizeSource
std::string BinaryTranspositionKey(std::string_view binary);  // "binary:" + SHA-256 of the bytes

}  // namespace kopt
