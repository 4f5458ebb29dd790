// What a candidate changed against its parent, in a few words, for the
// search memory's notes (store/search_memory.h): the line counts of the diff,
// the constructs the child uses that its parent did not (intrinsics,
// qualified library names, vector types, includes, pragmas), and what the
// generator said it changed (the first sentence of an LLM answer's prose).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/text_diff.h"

namespace kopt {

struct SourceChange {
  DiffStatistics lines;
  // In order of first appearance in the child, each once, at most
  // kMaxConstructs: `__shfl_down_sync`, `cute::make_layout`, `float4`,
  // `#include <cute/tensor.hpp>`, `#pragma unroll`.
  std::vector<std::string> new_constructs;
  // Every CUTLASS/CuTe name and include of the child (new or not), same order and bound.
  std::vector<std::string> library_constructs;
};

inline constexpr size_t kMaxConstructs = 6;

SourceChange DescribeSourceChange(std::string_view parent, std::string_view child);

// "+9 -6 lines; new: float4, __shfl_down_sync" ("+0 -0 lines" when equal).
std::string FormatSourceChange(const SourceChange& change);

// The first sentence of the prose before an answer's first code fence, at
// most `max_chars` (cut at a word, "…" appended); "" when there is none.
std::string StatedChange(std::string_view response_text, size_t max_chars = 160);

}  // namespace kopt
