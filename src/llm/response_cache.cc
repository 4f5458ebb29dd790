#include "llm/response_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/file_io.h"
#include "llm/request_key.h"
#include "llm/tool_json.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

json ResponseObject(const ChatResponse& response) {
  json choices = json::array();
  for (const ChatChoice& choice : response.choices) {
    json item{{"content", choice.content}, {"finish_reason", choice.finish_reason}};
    if (!choice.tool_calls.empty()) item["tool_calls"] = ToolCallsToJson(choice.tool_calls);
    choices.push_back(std::move(item));
  }
  return json{
      {"attempts", response.attempts},
      {"choices", std::move(choices)},
      {"cost_known", response.cost_known},
      {"cost_usd", response.cost_usd},
      {"latency_seconds", response.latency_seconds},
      {"model", response.model},
      {"usage",
       {{"input_tokens", response.usage.input_tokens}, {"output_tokens", response.usage.output_tokens}}}};
}

template <typename T>
Result<T> Optional(const json& object, const char* name, T fallback, const std::string& where) {
  auto found = object.find(name);
  if (found == object.end() || found->is_null()) return fallback;
  try {
    return found->get<T>();
  } catch (const json::exception&) {
    return InvalidInput(fmt::format("{}: response.{} has the wrong type", where, name));
  }
}

Result<std::vector<ChatChoice>> ChoicesFrom(const json& object, const std::string& where) {
  std::vector<ChatChoice> choices;
  auto found = object.find("choices");
  if (found == object.end()) {
    if (!object.contains("content")) {
      return InvalidInput(fmt::format("{}: response needs \"choices\" or \"content\"", where));
    }
    KOPT_ASSIGN_OR_RETURN(std::string content, Optional<std::string>(object, "content", "", where));
    choices.push_back({std::move(content), "stop"});
    return choices;
  }
  if (!found->is_array() || found->empty()) {
    return InvalidInput(fmt::format("{}: response.choices must be a non-empty array", where));
  }
  for (const json& item : *found) {
    if (!item.is_object())
      return InvalidInput(fmt::format("{}: each response.choices entry must be an object", where));
    ChatChoice choice;
    KOPT_ASSIGN_OR_RETURN(choice.content, Optional<std::string>(item, "content", "", where));
    KOPT_ASSIGN_OR_RETURN(choice.finish_reason, Optional<std::string>(item, "finish_reason", "stop", where));
    if (auto calls = item.find("tool_calls"); calls != item.end() && !calls->is_null()) {
      KOPT_ASSIGN_OR_RETURN(choice.tool_calls, ToolCallsFromJson(*calls, where + ": response.choices"));
    }
    choices.push_back(std::move(choice));
  }
  return choices;
}

Status UsageFrom(const json& object, const std::string& where, TokenUsage& usage) {
  auto found = object.find("usage");
  if (found == object.end()) return Status::Ok();
  if (!found->is_object()) return InvalidInput(fmt::format("{}: response.usage must be an object", where));
  KOPT_ASSIGN_OR_RETURN(usage.input_tokens, Optional<int64_t>(*found, "input_tokens", 0, where));
  KOPT_ASSIGN_OR_RETURN(usage.output_tokens, Optional<int64_t>(*found, "output_tokens", 0, where));
  return Status::Ok();
}

}  // namespace

std::string ResponseToJsonText(const ChatResponse& response) {
  return ResponseObject(response).dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ChatResponse> ResponseFromJsonText(std::string_view json_text, const std::string& where) {
  json object = json::parse(json_text, nullptr, false);
  if (!object.is_object()) return InvalidInput(fmt::format("{}: response must be a JSON object", where));
  ChatResponse response;
  KOPT_ASSIGN_OR_RETURN(response.choices, ChoicesFrom(object, where));
  KOPT_ASSIGN_OR_RETURN(response.model, Optional<std::string>(object, "model", "", where));
  KOPT_RETURN_IF_ERROR(UsageFrom(object, where, response.usage));
  KOPT_ASSIGN_OR_RETURN(response.cost_usd, Optional<double>(object, "cost_usd", 0.0, where));
  KOPT_ASSIGN_OR_RETURN(response.cost_known, Optional<bool>(object, "cost_known", false, where));
  KOPT_ASSIGN_OR_RETURN(response.latency_seconds, Optional<double>(object, "latency_seconds", 0.0, where));
  KOPT_ASSIGN_OR_RETURN(response.attempts, Optional<int>(object, "attempts", 1, where));
  return response;
}

CachingChatClient::CachingChatClient(std::unique_ptr<ChatClient> inner, LlmConfig config,
                                     const SecretRedactor* redactor, LogSink* log_sink)
    : inner_(std::move(inner)), config_(std::move(config)), redactor_(redactor), log_sink_(log_sink) {}

Result<ChatResponse> CachingChatClient::Complete(const ChatRequest& request) {
  std::string canonical = CanonicalCacheJson(request, config_);
  std::string path = (std::filesystem::path(config_.cache_dir) / (Sha256Hex(canonical) + ".json")).string();
  if (std::optional<ChatResponse> hit = Lookup(path)) return *hit;
  KOPT_ASSIGN_OR_RETURN(ChatResponse response, inner_->Complete(request));
  Store(path, canonical, response);
  return response;
}

std::optional<ChatResponse> CachingChatClient::Lookup(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return std::nullopt;
  std::ostringstream text;
  text << stream.rdbuf();
  json object = json::parse(text.str(), nullptr, false);
  Result<ChatResponse> response = InvalidInput(fmt::format("{}: not a cache file", path));
  if (object.is_object() && object.contains("response")) {
    response = ResponseFromJsonText(object["response"].dump(), path);
  }
  if (!response.ok()) {
    if (log_sink_) log_sink_->Log(fmt::format("llm: cache file ignored: {}", response.status().message()));
    return std::nullopt;
  }
  response->from_cache = true;
  response->latency_seconds = 0;
  response->attempts = 0;
  if (log_sink_) log_sink_->Log(fmt::format("llm: cache hit {}", path));
  return std::move(response).value();
}

void CachingChatClient::Store(const std::string& path, const std::string& canonical,
                              const ChatResponse& response) {
  std::error_code error;
  std::filesystem::create_directories(config_.cache_dir, error);
  std::string contents =
      fmt::format("{{\"request\":{},\"response\":{}}}\n", canonical, ResponseToJsonText(response));
  if (redactor_) contents = redactor_->Redact(contents);
  Status written = WriteFileAtomically(path, contents);
  if (!written.ok() && log_sink_)
    log_sink_->Log(fmt::format("llm: cache write failed: {}", written.message()));
}

}  // namespace kopt::llm
