#include "llm/anthropic_chat.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "llm/request_key.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

std::string NormalizedStopReason(const std::string& stop_reason) {
  if (stop_reason == "end_turn") return "stop";
  if (stop_reason == "max_tokens") return "length";
  return stop_reason;  // stop_sequence, refusal, tool_use, ...
}

ServerError ExtractAnthropicError(std::string_view body) {
  ServerError error;
  json object = json::parse(body, nullptr, false);
  if (!object.is_object()) return error;
  auto found = object.find("error");
  if (found == object.end() || !found->is_object()) return error;
  error.message = StringAt(*found, "message");
  error.type_or_code = StringAt(*found, "type");
  error.context_length_exceeded = error.message.find("prompt is too long") != std::string::npos;
  return error;
}

}  // namespace

std::string AnthropicEndpoint(const std::string& base_url) {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return EndsWith(base, "/v1") ? base + "/messages" : base + "/v1/messages";
}

std::string AnthropicRequestBody(const ChatRequest& request, const std::string& model) {
  json messages = json::array();
  for (const ChatMessage& message : request.messages) {
    messages.push_back({{"role", RoleName(message.role)}, {"content", message.content}});
  }
  json body{{"model", model},
            {"messages", std::move(messages)},
            {"max_tokens", request.max_tokens},
            {"temperature", request.temperature}};
  if (!request.system_prompt.empty()) body["system"] = request.system_prompt;
  if (!request.stop_sequences.empty()) body["stop_sequences"] = request.stop_sequences;
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ChatResponse> ParseAnthropicResponseBody(std::string_view body, const std::string& where) {
  json object = json::parse(body, nullptr, false);
  if (!object.is_object()) {
    return WorkFailed(
        fmt::format("{}: malformed response (not a JSON object): {}", where, QuoteExcerpt(body)));
  }
  auto content = object.find("content");
  if (content == object.end() || !content->is_array()) {
    return WorkFailed(
        fmt::format("{}: malformed response (no \"content\" array): {}", where, QuoteExcerpt(body)));
  }
  ChatChoice choice;
  for (const json& block : *content) {
    if (block.is_object() && StringAt(block, "type") == "text") choice.content += StringAt(block, "text");
  }
  choice.finish_reason = NormalizedStopReason(StringAt(object, "stop_reason"));
  ChatResponse response;
  response.choices.push_back(std::move(choice));
  response.model = StringAt(object, "model");
  response.usage = UsageAt(object, "input_tokens", "output_tokens");
  return response;
}

AnthropicChatClient::AnthropicChatClient(LlmConfig config, ProviderEnvironment environment)
    : config_(std::move(config)), environment_(environment) {}

AttemptOutcome AnthropicChatClient::Attempt(const ChatRequest& request) {
  std::string model = EffectiveModel(request, config_.model);
  HttpRequest http = JsonPost(AnthropicEndpoint(config_.base_url),
                              {{"x-api-key", config_.api_key}, {"anthropic-version", "2023-06-01"}},
                              AnthropicRequestBody(request, model), config_);
  ExchangeContext context{http.url, model, "KOPT_LLM_API_KEY / ANTHROPIC_API_KEY"};
  std::string where = context.Where();
  return ExchangeJson(
      environment_, http, context,
      [&](std::string_view body) { return ParseAnthropicResponseBody(body, where); }, ExtractAnthropicError);
}

}  // namespace kopt::llm
