// Fuzz target for the OpenAI chat.completions response-body parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llm/openai_chat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto response = kopt::llm::ParseOpenAiResponseBody(body, "fuzz");
  (void)response;
  return 0;
}
