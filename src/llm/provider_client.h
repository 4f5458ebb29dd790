// ProviderChatClient: a ChatClient that speaks one wire format over an
// HttpTransport and reports, per attempt, whether a failure is worth
// retrying (RetryingChatClient uses this).
//
// Thread safety: Attempt and Complete may be called from several threads at
// once.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "llm/chat.h"
#include "llm/config.h"
#include "llm/http_transport.h"
#include "llm/log_sink.h"
#include "llm/secret_redactor.h"

namespace kopt::llm {

struct AttemptOutcome {
  Result<ChatResponse> result = Internal("no attempt made");
  // Failure only: 429, 408, 5xx, 529 or a network error.
  bool retryable = false;
  // Failure only: the server's Retry-After header value as sent ("" when none).
  std::string retry_after;
};

// Borrowed collaborators of a provider client; they must outlive it.
struct ProviderEnvironment {
  HttpTransport* transport = nullptr;        // required
  const SecretRedactor* redactor = nullptr;  // null: no redaction
  LogSink* log_sink = nullptr;               // null: no log
};

class ProviderChatClient : public ChatClient {
 public:
  // One HTTP exchange for one choice (n == 1) or, when SupportsN(), for all.
  virtual AttemptOutcome Attempt(const ChatRequest& request) = 0;
  // Whether one HTTP request can return n > 1 choices.
  virtual bool SupportsN() const = 0;
  // Attempt(), without retries; n > 1 without SupportsN() is n attempts.
  Result<ChatResponse> Complete(const ChatRequest& request) override;
};

// Concatenates the choices of `parts` and sums their usage and attempts
// (n separate calls presented as one response).
ChatResponse MergeResponses(std::vector<ChatResponse> parts);

// What an error body says (each wire format has its own extractor).
struct ServerError {
  std::string message;  // the server's own words, "" when none
  std::string type_or_code;
  bool context_length_exceeded = false;
};

// Context for one exchange: the endpoint and model for messages, the
// variables that hold the key (for the 401 hint).
struct ExchangeContext {
  std::string url;
  std::string model;
  std::string key_variables;  // e.g. "KOPT_LLM_API_KEY / OPENAI_API_KEY"
  std::string Where() const;  // "<url> (model <model>)"
};

// POSTs `request`, logs the attempt, and turns the answer into an outcome:
// 2xx -> parse_body(body); other statuses -> a clear error (401/403 the key,
// 404 model or path, 400 context length, 429/408/5xx/529 retryable);
// network errors -> retryable. Every message is redacted.
AttemptOutcome ExchangeJson(const ProviderEnvironment& environment, const HttpRequest& request,
                            const ExchangeContext& context,
                            const std::function<Result<ChatResponse>(std::string_view body)>& parse_body,
                            const std::function<ServerError(std::string_view body)>& extract_error);

// Fields of a parsed response body, tolerant of their absence: "" or 0 when
// `key` is missing or of another type.
std::string StringAt(const nlohmann::json& object, const char* key);
int64_t IntegerAt(const nlohmann::json& object, const char* key);
// The usage object's token counts under each wire format's key names.
TokenUsage UsageAt(const nlohmann::json& object, const char* input_key, const char* output_key);

// The POST of one attempt: `url`, `headers`, a JSON `body`, the config's timeouts.
HttpRequest JsonPost(std::string url, std::vector<std::pair<std::string, std::string>> headers,
                     std::string body, const LlmConfig& config);

// The first `limit` bytes of `body`, quoted, for error messages.
std::string QuoteExcerpt(std::string_view body, size_t limit = 200);

// Parses a Retry-After header value: delta seconds, or an HTTP date
// (IMF-fixdate) relative to `now_unix_seconds`. nullopt when unparsable.
std::optional<double> ParseRetryAfter(const std::string& value, double now_unix_seconds);

}  // namespace kopt::llm
