#include "llm/provider_client.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace kopt::llm {
namespace {

bool IsRetryableStatus(int status) {
  return status == 429 || status == 408 || status == 529 || (status >= 500 && status <= 599);
}

std::string ServerWords(const ServerError& error, std::string_view body) {
  if (!error.message.empty()) {
    return error.type_or_code.empty() ? error.message
                                      : fmt::format("{} ({})", error.message, error.type_or_code);
  }
  return fmt::format("body {}", QuoteExcerpt(body));
}

Status StatusForHttpError(int status, const ServerError& error, std::string_view body,
                          const ExchangeContext& context) {
  std::string where = context.Where();
  std::string words = ServerWords(error, body);
  if (status == 401 || status == 403) {
    return PermissionDenied(fmt::format("{}: HTTP {}: authentication failed: {}; check the API key ({})",
                                        where, status, words, context.key_variables));
  }
  if (status == 404) {
    return NotFound(
        fmt::format("{}: HTTP 404: unknown model or wrong path: {}; check the model name and "
                    "the base URL",
                    where, words));
  }
  if (error.context_length_exceeded) {
    return InvalidInput(
        fmt::format("{}: HTTP {}: context length exceeded: {}; shorten the prompt or lower "
                    "max_tokens",
                    where, status, words));
  }
  if (status == 429) return Unavailable(fmt::format("{}: HTTP 429: rate limited: {}", where, words));
  if (status >= 500) return Unavailable(fmt::format("{}: HTTP {}: server error: {}", where, status, words));
  if (status == 408) return Unavailable(fmt::format("{}: HTTP 408: request timeout: {}", where, words));
  return InvalidInput(fmt::format("{}: HTTP {}: request rejected: {}", where, status, words));
}

void Log(const ProviderEnvironment& environment, const std::string& line) {
  if (!environment.log_sink) return;
  environment.log_sink->Log(environment.redactor ? environment.redactor->Redact(line) : line);
}

Status Redacted(const ProviderEnvironment& environment, const Status& status) {
  return environment.redactor ? environment.redactor->Redact(status) : status;
}

}  // namespace

std::string ExchangeContext::Where() const {
  return fmt::format("{} (model {})", url, model);
}

std::string StringAt(const nlohmann::json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return "";
  return found->get<std::string>();
}

int64_t IntegerAt(const nlohmann::json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end() || !found->is_number_integer()) return 0;
  return found->get<int64_t>();
}

TokenUsage UsageAt(const nlohmann::json& object, const char* input_key, const char* output_key) {
  TokenUsage usage;
  auto found = object.find("usage");
  if (found == object.end() || !found->is_object()) return usage;
  usage.input_tokens = IntegerAt(*found, input_key);
  usage.output_tokens = IntegerAt(*found, output_key);
  return usage;
}

HttpRequest JsonPost(std::string url, std::vector<std::pair<std::string, std::string>> headers,
                     std::string body, const LlmConfig& config) {
  HttpRequest http;
  http.url = std::move(url);
  http.headers = std::move(headers);
  http.headers.insert(http.headers.begin(), {"Content-Type", "application/json"});
  http.body = std::move(body);
  http.connect_timeout_seconds = config.connect_timeout_seconds;
  http.read_timeout_seconds = config.read_timeout_seconds;
  return http;
}

std::string QuoteExcerpt(std::string_view body, size_t limit) {
  std::string excerpt;
  for (char c : body.substr(0, limit)) {
    if (c == '\n') {
      excerpt += "\\n";
    } else if (c == '"') {
      excerpt += "\\\"";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      excerpt += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      excerpt += c;
    }
  }
  return fmt::format("\"{}\"{}", excerpt,
                     body.size() > limit ? fmt::format(" (first {} of {} bytes)", limit, body.size()) : "");
}

AttemptOutcome ExchangeJson(const ProviderEnvironment& environment, const HttpRequest& request,
                            const ExchangeContext& context,
                            const std::function<Result<ChatResponse>(std::string_view body)>& parse_body,
                            const std::function<ServerError(std::string_view body)>& extract_error) {
  AttemptOutcome outcome;
  Log(environment, fmt::format("llm: POST {} ({} bytes)", context.Where(), request.body.size()));
  Result<HttpResponse> response = environment.transport->Post(request);
  if (!response.ok()) {
    outcome.result =
        Redacted(environment, response.status().WithContext(fmt::format("model {}", context.model)));
    outcome.retryable = true;
    Log(environment, fmt::format("llm: {}", outcome.result.status().message()));
    return outcome;
  }
  Log(environment,
      fmt::format("llm: HTTP {} from {} ({} bytes)", response->status, context.url, response->body.size()));
  if (response->status >= 200 && response->status < 300) {
    Result<ChatResponse> parsed = parse_body(response->body);
    outcome.result =
        parsed.ok() ? std::move(parsed) : Result<ChatResponse>(Redacted(environment, parsed.status()));
    return outcome;
  }
  ServerError error = extract_error(response->body);
  outcome.result =
      Redacted(environment, StatusForHttpError(response->status, error, response->body, context));
  outcome.retryable = IsRetryableStatus(response->status);
  auto retry_after = response->headers.find("retry-after");
  if (retry_after != response->headers.end()) outcome.retry_after = retry_after->second;
  return outcome;
}

Result<ChatResponse> ProviderChatClient::Complete(const ChatRequest& request) {
  if (request.n <= 1 || SupportsN()) return Attempt(request).result;
  std::vector<ChatResponse> parts;
  ChatRequest single = request;
  single.n = 1;
  for (int i = 0; i < request.n; ++i) {
    Result<ChatResponse> part = Attempt(single).result;
    if (!part.ok()) return part.status();
    parts.push_back(std::move(part).value());
  }
  return MergeResponses(std::move(parts));
}

ChatResponse MergeResponses(std::vector<ChatResponse> parts) {
  if (parts.empty()) return ChatResponse{};
  ChatResponse merged = std::move(parts.front());
  for (size_t i = 1; i < parts.size(); ++i) {
    ChatResponse& part = parts[i];
    for (ChatChoice& choice : part.choices) merged.choices.push_back(std::move(choice));
    merged.usage.input_tokens += part.usage.input_tokens;
    merged.usage.output_tokens += part.usage.output_tokens;
    merged.attempts += part.attempts;
    merged.latency_seconds += part.latency_seconds;
  }
  return merged;
}

std::optional<double> ParseRetryAfter(const std::string& value, double now_unix_seconds) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() && *end == '\0') {
    if (seconds < 0) return std::nullopt;
    return seconds;
  }
  std::tm time{};
  std::istringstream stream(value);
  stream.imbue(std::locale::classic());
  stream >> std::get_time(&time, "%a, %d %b %Y %H:%M:%S");
  if (stream.fail()) return std::nullopt;
  double date = static_cast<double>(timegm(&time));
  return std::max(0.0, date - now_unix_seconds);
}

}  // namespace kopt::llm
