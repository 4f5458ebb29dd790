// Transcripts: record every exchange of a run, replay them later without a
// network. The format is JSON lines, documented in docs/llm.md.
//
// Record: TranscriptRecorder appends one line per successful exchange as it
// completes (flushed per line, lines written whole under a mutex), after
// secret redaction. Tool conversations need nothing special: a tool call is
// part of a response, its result part of the next request (llm/chat.h).
// Replay: TranscriptReplayer answers by request hash; a request asked N times
// gets the N recorded answers in order. A request not in the transcript (or
// asked more often than recorded) is a NotFound error naming the transcript
// path, the purpose and the first 80 characters of the last user message.
//
// Thread safety: both may be used from several threads at once.
#pragma once

#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "llm/chat.h"
#include "llm/log_sink.h"
#include "llm/secret_redactor.h"

namespace kopt::llm {

struct TranscriptEntry {
  std::string hash;  // request hash (request_key.h)
  int line = 0;      // 1-based line in the transcript
  ChatResponse response;
};

// Parses transcript text. Blank lines and lines starting with '#' are
// skipped. Errors name `path`, the line and the field.
Result<std::vector<TranscriptEntry>> ParseTranscript(std::string_view text, const std::string& path);

// One transcript line (no trailing newline). With a redactor, the request
// and response are redacted first and the hash is that of the redacted
// request, so that the line stays self-consistent (a replayed answer whose
// tool call held a secret leads to a follow-up request that holds
// "[REDACTED]", which is then found).
std::string TranscriptLine(const ChatRequest& request, const std::string& configured_model,
                           const ChatResponse& response, const SecretRedactor* redactor = nullptr);

class TranscriptRecorder : public ChatClient {
 public:
  // Opens `path` for appending. `redactor` and `log_sink` borrowed, may be null.
  static Result<std::unique_ptr<TranscriptRecorder>> Open(std::unique_ptr<ChatClient> inner, std::string path,
                                                          std::string configured_model,
                                                          const SecretRedactor* redactor, LogSink* log_sink);
  Result<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  TranscriptRecorder() = default;
  std::unique_ptr<ChatClient> inner_;
  std::string path_;
  std::string configured_model_;
  const SecretRedactor* redactor_ = nullptr;
  LogSink* log_sink_ = nullptr;
  std::mutex mutex_;
  std::ofstream stream_;
};

class TranscriptReplayer : public ChatClient {
 public:
  // Reads and parses the whole transcript.
  static Result<std::unique_ptr<TranscriptReplayer>> Open(std::string path, std::string configured_model,
                                                          LogSink* log_sink);
  TranscriptReplayer(std::vector<TranscriptEntry> entries, std::string path, std::string configured_model,
                     LogSink* log_sink);
  // The recorded response with replayed = true, from_cache = false.
  Result<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  std::string path_;
  std::string configured_model_;
  LogSink* log_sink_;
  std::mutex mutex_;
  std::map<std::string, std::deque<ChatResponse>> answers_;  // hash -> answers in order
};

}  // namespace kopt::llm
