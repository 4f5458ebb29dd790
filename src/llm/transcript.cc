#include "llm/transcript.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/request_key.h"
#include "llm/response_cache.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

std::string LastUserMessageStart(const ChatRequest& request) {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
    if (it->role == Role::kUser) {
      std::string start = it->content.substr(0, 80);
      for (char& c : start) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      return start;
    }
  }
  return "";
}

bool IsSkippable(std::string_view line) {
  size_t first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

Result<std::string> HashOf(const json& object, const std::string& where) {
  std::string hash;
  if (auto found = object.find("hash"); found != object.end()) {
    if (!found->is_string() || found->get<std::string>().empty()) {
      return InvalidInput(
          fmt::format("{}: \"hash\" must be a non-empty string (the request's SHA-256)", where));
    }
    hash = found->get<std::string>();
  }
  if (auto found = object.find("request"); found != object.end()) {
    KOPT_ASSIGN_OR_RETURN(ChatRequest request, RequestFromJsonText(found->dump(), where));
    std::string computed = Sha256Hex(CanonicalRequestJson(request, request.model));
    if (!hash.empty() && hash != computed) {
      return InvalidInput(
          fmt::format("{}: \"hash\" {} does not match the request (its hash is {}); remove "
                      "\"hash\" or fix the request",
                      where, hash, computed));
    }
    hash = computed;
  }
  if (hash.empty())
    return InvalidInput(fmt::format("{}: a transcript line needs \"request\" or \"hash\"", where));
  return hash;
}

Result<TranscriptEntry> ParseLine(std::string_view line, const std::string& where) {
  json object = json::parse(line, nullptr, false);
  if (!object.is_object()) {
    return InvalidInput(
        fmt::format("{}: not a JSON object; expected {{\"request\":...,\"response\":...}}", where));
  }
  TranscriptEntry entry;
  KOPT_ASSIGN_OR_RETURN(entry.hash, HashOf(object, where));
  auto response = object.find("response");
  if (response == object.end()) return InvalidInput(fmt::format("{}: no \"response\"", where));
  KOPT_ASSIGN_OR_RETURN(entry.response, ResponseFromJsonText(response->dump(), where));
  return entry;
}

}  // namespace

Result<std::vector<TranscriptEntry>> ParseTranscript(std::string_view text, const std::string& path) {
  std::vector<TranscriptEntry> entries;
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (IsSkippable(line)) continue;
    KOPT_ASSIGN_OR_RETURN(TranscriptEntry entry, ParseLine(line, fmt::format("{}:{}", path, line_number)));
    entry.line = line_number;
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string TranscriptLine(const ChatRequest& request, const std::string& configured_model,
                           const ChatResponse& response, const SecretRedactor* redactor) {
  auto redact = [&](std::string text) { return redactor ? redactor->Redact(text) : text; };
  std::string canonical = redact(CanonicalRequestJson(request, configured_model));
  ChatResponse stored = response;
  stored.from_cache = false;
  stored.replayed = false;
  return fmt::format("{{\"hash\":\"{}\",\"purpose\":{},\"request\":{},\"response\":{}}}",
                     Sha256Hex(canonical),
                     redact(json(request.purpose).dump(-1, ' ', false, json::error_handler_t::replace)),
                     canonical, redact(ResponseToJsonText(stored)));
}

Result<std::unique_ptr<TranscriptRecorder>> TranscriptRecorder::Open(std::unique_ptr<ChatClient> inner,
                                                                     std::string path,
                                                                     std::string configured_model,
                                                                     const SecretRedactor* redactor,
                                                                     LogSink* log_sink) {
  std::unique_ptr<TranscriptRecorder> recorder(new TranscriptRecorder());
  recorder->stream_.open(path, std::ios::binary | std::ios::app);
  if (!recorder->stream_) {
    return InvalidInput(fmt::format("{}: the transcript cannot be opened for appending", path));
  }
  recorder->inner_ = std::move(inner);
  recorder->path_ = std::move(path);
  recorder->configured_model_ = std::move(configured_model);
  recorder->redactor_ = redactor;
  recorder->log_sink_ = log_sink;
  return recorder;
}

Result<ChatResponse> TranscriptRecorder::Complete(const ChatRequest& request) {
  KOPT_ASSIGN_OR_RETURN(ChatResponse response, inner_->Complete(request));
  std::string line = TranscriptLine(request, configured_model_, response, redactor_);
  std::lock_guard lock(mutex_);
  stream_ << line << '\n';
  stream_.flush();
  if (!stream_) return InvalidInput(fmt::format("{}: writing the transcript failed", path_));
  return response;
}

Result<std::unique_ptr<TranscriptReplayer>> TranscriptReplayer::Open(std::string path,
                                                                     std::string configured_model,
                                                                     LogSink* log_sink) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return NotFound(fmt::format("{}: the transcript to replay cannot be read", path));
  std::ostringstream text;
  text << stream.rdbuf();
  KOPT_ASSIGN_OR_RETURN(std::vector<TranscriptEntry> entries, ParseTranscript(text.str(), path));
  return std::make_unique<TranscriptReplayer>(std::move(entries), std::move(path),
                                              std::move(configured_model), log_sink);
}

TranscriptReplayer::TranscriptReplayer(std::vector<TranscriptEntry> entries, std::string path,
                                       std::string configured_model, LogSink* log_sink)
    : path_(std::move(path)), configured_model_(std::move(configured_model)), log_sink_(log_sink) {
  for (TranscriptEntry& entry : entries) answers_[entry.hash].push_back(std::move(entry.response));
}

Result<ChatResponse> TranscriptReplayer::Complete(const ChatRequest& request) {
  std::string hash = Sha256Hex(CanonicalRequestJson(request, configured_model_));
  std::lock_guard lock(mutex_);
  auto found = answers_.find(hash);
  if (found == answers_.end() || found->second.empty()) {
    return NotFound(fmt::format(
        "{}: no {}recorded answer for the request (purpose \"{}\", hash {}, last user "
        "message \"{}\"); record it first with --llm-record FILE (or mode = \"record\" in the [llm] config)",
        path_, found == answers_.end() ? "" : "further ", request.purpose, hash,
        LastUserMessageStart(request)));
  }
  ChatResponse response = std::move(found->second.front());
  found->second.pop_front();
  response.replayed = true;
  response.from_cache = false;
  if (log_sink_) log_sink_->Log(fmt::format("llm: replayed {} from {}", hash, path_));
  return response;
}

}  // namespace kopt::llm
