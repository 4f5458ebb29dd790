// Extraction of a candidate .cu source from an LLM answer.
//
// Every answer ends in exactly one outcome; the wrong block is never picked
// silently:
//   kSingleBlock      one fenced block (```cuda, ```cpp, ```c++, ```cu, ```c,
//                     bare ```, also ~~~) holds the code;
//   kChosenBlock      several blocks; the one that defines the entry point was
//                     chosen (if several do, the last complete one); `message`
//                     says which and why;
//   kUnfencedCode     no fences, but the answer itself is code (its first
//                     non-blank line starts with #include, #pragma, #define,
//                     extern "C", template, __global__, ...);
//   kTruncated        the code is cut off: an unclosed fence, finish_reason
//                     "length", or unbalanced braces; `source` holds what came;
//   kNoCodeBlock      no code at all (prose, a refusal, an empty answer);
//   kMissingEntryPoint code was found but never mentions the entry point name;
//   kAmbiguous        several blocks, none defines the entry point.
// Only kSingleBlock, kChosenBlock and kUnfencedCode are usable (`usable()`).
//
// Input is untrusted text (fuzzed: fuzz/code_extraction_fuzz.cc).
// Thread safety: pure functions over values.
#pragma once

#include <string>
#include <string_view>

namespace kopt::agents {

enum class ExtractionOutcome {
  kSingleBlock,
  kChosenBlock,
  kUnfencedCode,
  kTruncated,
  kNoCodeBlock,
  kMissingEntryPoint,
  kAmbiguous,
};

// "single_block", "chosen_block", "unfenced_code", "truncated", "no_code_block",
// "missing_entry_point", "ambiguous".
std::string_view ExtractionOutcomeName(ExtractionOutcome outcome);

struct ExtractedCode {
  ExtractionOutcome outcome = ExtractionOutcome::kNoCodeBlock;
  std::string source;     // the extracted code (may be partial when truncated); empty when none
  std::string message;    // one sentence for logs and the repair prompt
  int block_count = 0;    // fenced blocks seen (an unclosed one included)
  int chosen_block = -1;  // 0-based index of the block used; -1 when none
  bool usable() const {
    return outcome == ExtractionOutcome::kSingleBlock || outcome == ExtractionOutcome::kChosenBlock ||
           outcome == ExtractionOutcome::kUnfencedCode;
  }
};

// `finish_reason` as normalised by llm::ChatChoice ("length" marks a cut-off
// answer). `entry_point` is the C name the code must define ("softmax").
ExtractedCode ExtractCode(std::string_view answer, std::string_view finish_reason,
                          std::string_view entry_point);

}  // namespace kopt::agents
