// ResponseCache: answers stored on disk by request, so that a repeated
// question costs nothing.
//
// Key: SHA-256 of CanonicalCacheJson (request_key.h: provider, base URL,
// model, system, messages, temperature, max_tokens, stop, n, and the tools
// and tool calls/results when present; never the key).
// One file per key, <cache_dir>/<key>.json, written atomically (temporary
// file, then rename), holding {"request": <canonical>, "response": <json>}
// after secret redaction. Only successful responses are cached.
//
// Thread safety: CachingChatClient may be used from several threads at once;
// concurrent writers of one key each write a whole file (the last rename
// wins).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "llm/chat.h"
#include "llm/config.h"
#include "llm/log_sink.h"
#include "llm/secret_redactor.h"

namespace kopt::llm {

// ChatResponse <-> JSON (also the transcript's "response").
std::string ResponseToJsonText(const ChatResponse& response);
Result<ChatResponse> ResponseFromJsonText(std::string_view json_text, const std::string& where);

class CachingChatClient : public ChatClient {
 public:
  // `redactor` and `log_sink` borrowed, may be null. The directory is
  // created on first write.
  CachingChatClient(std::unique_ptr<ChatClient> inner, LlmConfig config, const SecretRedactor* redactor,
                    LogSink* log_sink);
  // A hit returns the stored response with from_cache = true and
  // latency_seconds = 0, attempts = 0. A cache file that cannot be read or
  // parsed is a miss (logged); a failed write is logged, not an error.
  Result<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  std::optional<ChatResponse> Lookup(const std::string& path);
  void Store(const std::string& path, const std::string& canonical, const ChatResponse& response);

  std::unique_ptr<ChatClient> inner_;
  LlmConfig config_;
  const SecretRedactor* redactor_;
  LogSink* log_sink_;
};

}  // namespace kopt::llm
