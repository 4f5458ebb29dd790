// The OpenAI-compatible chat transport: POST {base}/v1/chat/completions
// (a base URL that already ends in /v1 is used as is), Authorization:
// Bearer <key>, the system prompt as the first message, temperature,
// max_tokens, stop, n, tools ([{"type":"function","function":{name,
// description, parameters}}]); an assistant turn's calls as
// message.tool_calls, each result as a {"role":"tool","tool_call_id"}
// message. Reads choices[].message.content, message.refusal (finish_reason
// "refusal"), message.tool_calls (function.arguments as the JSON text sent),
// finish_reason, usage.prompt_tokens and usage.completion_tokens. Errors as
// described in chat.h.
//
// Thread safety: as ProviderChatClient.
#pragma once

#include <string>
#include <string_view>

#include "llm/provider_client.h"

namespace kopt::llm {

// {base}/v1/chat/completions, without doubling /v1.
std::string OpenAiEndpoint(const std::string& base_url);

// The request body (JSON text).
std::string OpenAiRequestBody(const ChatRequest& request, const std::string& model);

// Parses a 200 response body. `where` ("<url> (model <m>)") prefixes errors.
Result<ChatResponse> ParseOpenAiResponseBody(std::string_view body, const std::string& where);

class OpenAiChatClient : public ProviderChatClient {
 public:
  OpenAiChatClient(LlmConfig config, ProviderEnvironment environment);
  AttemptOutcome Attempt(const ChatRequest& request) override;
  bool SupportsN() const override { return true; }

 private:
  LlmConfig config_;
  ProviderEnvironment environment_;
};

}  // namespace kopt::llm
