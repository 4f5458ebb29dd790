// Fuzz target for the OpenAI chat.completions response-body parser, tool
// calls included (llm_response_fuzz_util.h: what a parsed response must
// survive).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llm/openai_chat.h"
#include "llm_response_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto response = kopt::llm::ParseOpenAiResponseBody(body, "fuzz");
  if (response.ok()) kopt::llm::fuzz::CheckRoundTrips(*response, kopt::llm::OpenAiRequestBody);
  return 0;
}
