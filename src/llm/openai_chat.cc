#include "llm/openai_chat.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "llm/provider_table.h"
#include "llm/request_key.h"
#include "llm/tool_json.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

// message.tool_calls[]: {"id", "type":"function", "function":{"name", "arguments":"<JSON text>"}}.
// Arguments sent as an object (some compatible servers) are kept as their
// dump; a call without an id gets "call_<index>" so that its result can
// still be matched.
Result<std::vector<ToolCall>> ParseToolCalls(const json& message, const std::string& where) {
  std::vector<ToolCall> calls;
  auto found = message.find("tool_calls");
  if (found == message.end() || found->is_null()) return calls;
  if (!found->is_array())
    return WorkFailed(fmt::format("{}: malformed response: \"tool_calls\" is not an array", where));
  for (const json& item : *found) {
    auto function = item.is_object() ? item.find("function") : item.end();
    if (!item.is_object() || function == item.end() || !function->is_object()) {
      return WorkFailed(fmt::format("{}: malformed response: a tool call without \"function\"", where));
    }
    ToolCall call;
    call.id = StringAt(item, "id");
    if (call.id.empty()) call.id = fmt::format("call_{}", calls.size());
    call.name = StringAt(*function, "name");
    auto arguments = function->find("arguments");
    if (arguments != function->end()) {
      call.arguments = arguments->is_string()
                           ? arguments->get<std::string>()
                           : arguments->dump(-1, ' ', false, json::error_handler_t::replace);
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

json MessageJson(const ChatMessage& message) {
  if (message.role == Role::kTool) {
    return {{"role", "tool"}, {"tool_call_id", message.tool_call_id}, {"content", message.content}};
  }
  json object{{"role", RoleName(message.role)}, {"content", message.content}};
  if (!message.tool_calls.empty()) {
    if (message.content.empty()) object["content"] = nullptr;
    json calls = json::array();
    for (const ToolCall& call : message.tool_calls) {
      calls.push_back({{"id", call.id},
                       {"type", "function"},
                       {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    }
    object["tool_calls"] = std::move(calls);
  }
  return object;
}

Result<ChatChoice> ParseChoice(const json& item, const std::string& where) {
  if (!item.is_object() || !item.contains("message") || !item["message"].is_object()) {
    return WorkFailed(fmt::format("{}: malformed response: a choice without \"message\"", where));
  }
  const json& message = item["message"];
  ChatChoice choice;
  choice.content = StringAt(message, "content");
  choice.finish_reason = StringAt(item, "finish_reason");
  KOPT_ASSIGN_OR_RETURN(choice.tool_calls, ParseToolCalls(message, where));
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
  for (const ChatMessage& message : request.messages) messages.push_back(MessageJson(message));
  json body{{"model", model},
            {"messages", std::move(messages)},
            {"temperature", request.temperature},
            {"max_tokens", request.max_tokens}};
  if (request.n != 1) body["n"] = request.n;
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const ToolDefinition& tool : request.tools) {
      tools.push_back({{"type", "function"},
                       {"function",
                        {{"name", tool.name},
                         {"description", tool.description},
                         {"parameters", ObjectOrEmpty(tool.parameters_schema)}}}});
    }
    body["tools"] = std::move(tools);
  }
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
  ExchangeContext context{http.url, model, KeyVariablesOf(Provider::kOpenAi)};
  std::string where = context.Where();
  return ExchangeJson(
      environment_, http, context,
      [&](std::string_view body) { return ParseOpenAiResponseBody(body, where); }, ExtractOpenAiError);
}

}  // namespace kopt::llm
