// Shared check of the two LLM response fuzz targets: a parsed response
// (tool calls included) must survive kopt's own JSON form unchanged (cache
// and transcript), and its tool calls with results must be sendable back
// (`request_body`: the wire format's request builder) whatever the model wrote
// as arguments, with a canonical form that reads back to itself. Aborts
// (a fuzz finding) otherwise.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>

#include "llm/chat.h"
#include "llm/request_key.h"
#include "llm/response_cache.h"

namespace kopt::llm::fuzz {

inline void CheckRoundTrips(
    const ChatResponse& response,
    const std::function<std::string(const ChatRequest&, const std::string&)>& request_body) {
  std::string text = ResponseToJsonText(response);
  auto again = ResponseFromJsonText(text, "fuzz");
  if (!again.ok() || ResponseToJsonText(*again) != text) std::abort();
  ChatRequest next;
  ChatMessage assistant(Role::kAssistant, response.choices.front().content);
  assistant.tool_calls = response.choices.front().tool_calls;
  next.messages.push_back(assistant);
  for (const ToolCall& call : assistant.tool_calls) {
    ChatMessage result(Role::kTool, call.arguments);
    result.tool_call_id = call.id;
    result.is_error = call.name.empty();
    next.messages.push_back(result);
  }
  (void)request_body(next, "m");
  std::string canonical = CanonicalRequestJson(next, "m");
  auto parsed = RequestFromJsonText(canonical, "fuzz");
  if (!parsed.ok() || CanonicalRequestJson(*parsed, "") != canonical) std::abort();
}

}  // namespace kopt::llm::fuzz
