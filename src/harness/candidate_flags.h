// Compile flags a candidate asks for (docs/tuning.md "Compile-flag knobs"):
// `// kopt:nvcc FLAG...` lines anywhere in a candidate `.cu`, written by hand
// or by TuningSpace::Materialize for a `kopt:flag` parameter. The compiler
// appends them after its own flags for that candidate only; since they are
// part of the candidate's text they are part of its compile-cache key.
//
// Candidate text is untrusted (LLM output): only flags that change how device
// code is generated are accepted, never ones that run tools, add include or
// library paths, or pass options to the host compiler or linker:
//   -use_fast_math   -prec-div=true|false   -prec-sqrt=true|false
//   -ftz=true|false  -fmad=true|false       -maxrregcount=N (16..255)
//   -Xptxas=-dlcm=ca|cg|cs   -Xptxas=-dscm=cg|cs|wt   -Xptxas=-O0..3
//   --extra-device-vectorization
// (`-Xptxas -dlcm=cg` as two words is accepted and normalized to one.)
// Whether the flags keep the results within the task's tolerances is not
// assumed: the candidate is verified like any other.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

// True when `flag` (one normalized word, e.g. "-Xptxas=-dlcm=cg") is accepted.
bool IsAllowedCandidateFlag(std::string_view flag);

// The flags of every `// kopt:nvcc` line of `source`, normalized, in order,
// without duplicates. InvalidInput naming `file`, the line and the flag for a
// flag that is not accepted (the message lists the accepted forms).
Result<std::vector<std::string>> CandidateCompileFlags(std::string_view source, std::string_view file);

// The `// kopt:nvcc` line that asks for `flags` (for Materialize).
std::string CandidateFlagsLine(const std::vector<std::string>& flags);

}  // namespace kopt
