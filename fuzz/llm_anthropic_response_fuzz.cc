// Fuzz target for the Anthropic messages response-body parser, tool_use
// blocks included (llm_response_fuzz_util.h: what a parsed response must
// survive).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llm/anthropic_chat.h"
#include "llm_response_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto response = kopt::llm::ParseAnthropicResponseBody(body, "fuzz");
  if (response.ok()) kopt::llm::fuzz::CheckRoundTrips(*response, kopt::llm::AnthropicRequestBody);
  return 0;
}
