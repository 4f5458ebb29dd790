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
// Thread safety: ChatClient::Complete may be called from several threads at
// once; implementations limit their own concurrency.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace kopt::llm {

enum class Role { kUser, kAssistant };

struct ChatMessage {
  Role role = Role::kUser;
  std::string content;
};

struct ChatRequest {
  std::string model;          // empty: the configured model
  std::string system_prompt;  // empty: none
  std::vector<ChatMessage> messages;
  double temperature = 0.0;  // 0: as deterministic as the server allows
  int max_tokens = 2048;     // upper bound on generated tokens per choice
  std::vector<std::string> stop_sequences;
  int n = 1;  // number of choices; Anthropic has no n, so its transport makes n calls
  // What the call is for ("explain", "hypotheses", "generate", "repair",
  // "optimize"): logs and the run record only, not sent to the server.
  std::string purpose;
};

struct TokenUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

struct ChatChoice {
  std::string content;
  // Normalised across providers: "stop", "length" (hit max_tokens),
  // "stop_sequence", "refusal", "content_filter", or the server's own word.
  std::string finish_reason;
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
