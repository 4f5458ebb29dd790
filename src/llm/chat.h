// The provider-neutral chat interface every LLM user in kopt talks to
// (agents/ never sees HTTP, JSON wire formats or API keys).
//
// Implementations: the OpenAI-compatible and Anthropic transports
// (llm/openai_chat.cc, llm/anthropic_chat.cc), wrapped by the retrying,
// caching, recording and replaying decorators; tests use a fake.
//
// Errors are data: an unreachable endpoint, HTTP 401/404/429/5xx, a
// context-length error, malformed JSON are a non-OK Status whose message
// names the endpoint (never the key) and what the server said. A refusal or
// an empty answer is a successful response whose ChatChoice says so
// (finish_reason "refusal" / empty content): the caller decides.
//
// Tools (function calling): a request may offer tools (ToolDefinition); a
// choice may then ask for tool calls (ChatChoice::tool_calls, finish_reason
// "tool_calls") instead of, or besides, text. The caller runs them and sends
// the conversation back with the assistant turn (ChatMessage::tool_calls)
// followed by one Role::kTool message per call (tool_call_id, content). The
// transports map this to OpenAI `tools` / `tool_calls` / role "tool" and to
// Anthropic `tools` / `tool_use` / `tool_result` blocks (docs/llm.md "Tools").
//
// Thread safety: ChatClient::Complete may be called from several threads at
// once; implementations limit their own concurrency.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace kopt::llm {

// kTool: the result of one tool call (Anthropic: consecutive kTool messages
// become one user message of tool_result blocks).
enum class Role { kUser, kAssistant, kTool };

// A tool the model may call. `parameters_schema` is a JSON Schema object as
// JSON text (e.g. {"type":"object","properties":{...},"required":[...]}).
struct ToolDefinition {
  std::string name;  // [a-zA-Z0-9_-]{1,64}
  std::string description;
  std::string parameters_schema;
};

// One call the model asked for. `arguments` is JSON text as the model wrote
// it (OpenAI sends a string that may not even be JSON; Anthropic an object,
// kept as its compact dump): untrusted.
struct ToolCall {
  std::string id;  // the provider's call id, echoed in the result
  std::string name;
  std::string arguments;
};

struct ChatMessage {
  ChatMessage() = default;
  ChatMessage(Role role_, std::string content_) : role(role_), content(std::move(content_)) {}
  Role role = Role::kUser;
  std::string content;               // kTool: the result text
  std::vector<ToolCall> tool_calls;  // kAssistant only: the calls it made
  std::string tool_call_id;          // kTool only: the call answered
  bool is_error = false;             // kTool only: the call failed (Anthropic is_error)
};

struct ChatRequest {
  std::string model;          // empty: the configured model
  std::string system_prompt;  // empty: none
  std::vector<ChatMessage> messages;
  double temperature = 0.0;  // 0: as deterministic as the server allows
  int max_tokens = 2048;     // upper bound on generated tokens per choice
  std::vector<std::string> stop_sequences;
  int n = 1;                          // number of choices; Anthropic has no n, so its transport makes n calls
  std::vector<ToolDefinition> tools;  // empty: no tools offered
  // What the call is for ("explain", "hypotheses", "generate", "repair",
  // "optimize"): logs and the run record only, not sent to the server.
  std::string purpose;
};

struct TokenUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

struct ChatChoice {
  ChatChoice() = default;
  ChatChoice(std::string content_, std::string finish_reason_, std::vector<ToolCall> tool_calls_ = {})
      : content(std::move(content_)),
        finish_reason(std::move(finish_reason_)),
        tool_calls(std::move(tool_calls_)) {}
  std::string content;
  // Normalised across providers: "stop", "length" (hit max_tokens),
  // "stop_sequence", "refusal", "content_filter", "tool_calls" (the model
  // wants tool results), or the server's own word.
  std::string finish_reason;
  std::vector<ToolCall> tool_calls;  // in the order the model wrote them
};

struct ChatResponse {
  std::vector<ChatChoice> choices;  // at least one on success
  std::string model;                // the model the server says answered
  TokenUsage usage;                 // summed over choices / calls
  double cost_usd = 0;              // from the price table; valid when cost_known
  bool cost_known = false;
  bool from_cache = false;     // served by the response cache (no network)
  bool replayed = false;       // served by a recorded transcript (no network)
  double latency_seconds = 0;  // wall time including retries
  int attempts = 1;            // HTTP attempts made (1 + retries)
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  virtual Result<ChatResponse> Complete(const ChatRequest& request) = 0;
};

}  // namespace kopt::llm
