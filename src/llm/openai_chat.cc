#include "llm/openai_chat.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "llm/request_key.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

Result<ChatChoice> ParseChoice(const json& item, const std::string& where) {
  if (!item.is_object() || !item.contains("message") || !item["message"].is_object()) {
    return WorkFailed(fmt::format("{}: malformed response: a choice without \"message\"", where));
  }
  const json& message = item["message"];
  ChatChoice choice;
  choice.content = StringAt(message, "content");
  choice.finish_reason = StringAt(item, "finish_reason");
  std::string refusal = StringAt(message, "refusal");
  if (!refusal.empty()) {
    choice.finish_reason = "refusal";
    if (choice.content.empty()) choice.content = refusal;
  }
  return choice;
}

ServerError ExtractOpenAiError(std::string_view body) {
  ServerError error;
  json object = json::parse(body, nullptr, false);
  if (!object.is_object()) return error;
  auto found = object.find("error");
  if (found == object.end()) return error;
  if (found->is_string()) {
    error.message = found->get<std::string>();
  } else if (found->is_object()) {
    error.message = StringAt(*found, "message");
    std::string code = StringAt(*found, "code");
    std::string type = StringAt(*found, "type");
    error.type_or_code = !code.empty() ? code : type;
    error.context_length_exceeded = code == "context_length_exceeded";
  }
  if (error.message.find("maximum context length") != std::string::npos) error.context_length_exceeded = true;
  return error;
}

}  // namespace

std::string OpenAiEndpoint(const std::string& base_url) {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return EndsWith(base, "/v1") ? base + "/chat/completions" : base + "/v1/chat/completions";
}

std::string OpenAiRequestBody(const ChatRequest& request, const std::string& model) {
  json messages = json::array();
  if (!request.system_prompt.empty()) {
    messages.push_back({{"role", "system"}, {"content", request.system_prompt}});
  }
  for (const ChatMessage& message : request.messages) {
    messages.push_back({{"role", RoleName(message.role)}, {"content", message.content}});
  }
  json body{{"model", model},
            {"messages", std::move(messages)},
            {"temperature", request.temperature},
            {"max_tokens", request.max_tokens}};
  if (request.n != 1) body["n"] = request.n;
  if (!request.stop_sequences.empty()) body["stop"] = request.stop_sequences;
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ChatResponse> ParseOpenAiResponseBody(std::string_view body, const std::string& where) {
  json object = json::parse(body, nullptr, false);
  if (!object.is_object()) {
    return WorkFailed(
        fmt::format("{}: malformed response (not a JSON object): {}", where, QuoteExcerpt(body)));
  }
  auto choices = object.find("choices");
  if (choices == object.end() || !choices->is_array()) {
    return WorkFailed(
        fmt::format("{}: malformed response (no \"choices\" array): {}", where, QuoteExcerpt(body)));
  }
  if (choices->empty()) return WorkFailed(fmt::format("{}: the response has no choices", where));
  ChatResponse response;
  for (const json& item : *choices) {
    KOPT_ASSIGN_OR_RETURN(ChatChoice choice, ParseChoice(item, where));
    response.choices.push_back(std::move(choice));
  }
  response.model = StringAt(object, "model");
  response.usage = UsageAt(object, "prompt_tokens", "completion_tokens");
  return response;
}

OpenAiChatClient::OpenAiChatClient(LlmConfig config, ProviderEnvironment environment)
    : config_(std::move(config)), environment_(environment) {}

AttemptOutcome OpenAiChatClient::Attempt(const ChatRequest& request) {
  std::string model = EffectiveModel(request, config_.model);
  HttpRequest http = JsonPost(OpenAiEndpoint(config_.base_url), {{"Authorization", "Bearer " + config_.api_key}},
                              OpenAiRequestBody(request, model), config_);
  ExchangeContext context{http.url, model, "KOPT_LLM_API_KEY / OPENAI_API_KEY"};
  std::string where = context.Where();
  return ExchangeJson(
      environment_, http, context,
      [&](std::string_view body) { return ParseOpenAiResponseBody(body, where); }, ExtractOpenAiError);
}

}  // namespace kopt::llm
