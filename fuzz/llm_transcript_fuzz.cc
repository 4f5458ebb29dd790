// Fuzz target for the transcript reader (JSON lines, docs/llm.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llm/transcript.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto entries = kopt::llm::ParseTranscript(text, "fuzz.jsonl");
  (void)entries;
  return 0;
}
