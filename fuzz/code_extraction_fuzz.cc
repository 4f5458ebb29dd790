// Fuzz target for the extraction of candidate code from an LLM answer.
// Besides "no crash", checks the outcome's invariants: the first input byte
// picks the finish_reason; a usable outcome has non-empty source that
// mentions the entry point and is a substring of the answer; an unusable
// one says why.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agents/code_extraction.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kReasons[] = {"stop", "length", "refusal", ""};
  std::string_view finish_reason = kReasons[data[0] % 4];
  std::string_view answer(reinterpret_cast<const char*>(data + 1), size - 1);
  kopt::agents::ExtractedCode code = kopt::agents::ExtractCode(answer, finish_reason, "entry");
  Check(!code.message.empty());
  Check(!kopt::agents::ExtractionOutcomeName(code.outcome).empty());
  Check(code.chosen_block < code.block_count);
  if (code.usable()) {
    Check(!code.source.empty());
    Check(code.source.find("entry") != std::string::npos);
    if (code.outcome == kopt::agents::ExtractionOutcome::kUnfencedCode) Check(code.source == answer);
  }
  return 0;
}
