// ProviderChatClient: a ChatClient that speaks one wire format over an
// HttpTransport and reports, per attempt, whether a failure is worth
// retrying (RetryingChatClient uses this).
//
// Thread safety: Attempt and Complete may be called from several threads at
// once.
#pragma once

#include <optional>

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
  // Failure only: the server's Retry-After, in seconds from now.
  std::optional<double> retry_after_seconds;
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

// Parses a Retry-After header value: delta seconds, or an HTTP date
// (IMF-fixdate) relative to `now_unix_seconds`. nullopt when unparsable.
std::optional<double> ParseRetryAfter(const std::string& value, double now_unix_seconds);

}  // namespace kopt::llm
