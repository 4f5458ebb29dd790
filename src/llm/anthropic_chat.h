// The Anthropic Messages transport: POST {base}/v1/messages (a base URL that
// already ends in /v1 is used as is), headers x-api-key and
// anthropic-version: 2023-06-01; system, messages, max_tokens, temperature,
// stop_sequences, tools ([{name, description, input_schema}]); an assistant
// turn's calls as tool_use blocks (input: the arguments object), consecutive
// tool results as one user message of tool_result blocks (is_error when the
// call failed). Text blocks of content[] are joined, tool_use blocks become
// tool calls (arguments: the input object's compact JSON); stop_reason
// end_turn -> "stop", max_tokens -> "length", tool_use -> "tool_calls",
// stop_sequence, refusal; usage input_tokens / output_tokens. The API has no
// n: n > 1 is n calls.
//
// Thread safety: as ProviderChatClient.
#pragma once

#include <string>
#include <string_view>

#include "llm/provider_client.h"

namespace kopt::llm {

std::string AnthropicEndpoint(const std::string& base_url);
std::string AnthropicRequestBody(const ChatRequest& request, const std::string& model);
// Parses a 200 response body. `where` ("<url> (model <m>)") prefixes errors.
Result<ChatResponse> ParseAnthropicResponseBody(std::string_view body, const std::string& where);

class AnthropicChatClient : public ProviderChatClient {
 public:
  AnthropicChatClient(LlmConfig config, ProviderEnvironment environment);
  AttemptOutcome Attempt(const ChatRequest& request) override;
  bool SupportsN() const override { return false; }

 private:
  LlmConfig config_;
  ProviderEnvironment environment_;
};

}  // namespace kopt::llm
