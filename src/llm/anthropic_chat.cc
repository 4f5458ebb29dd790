#include "llm/anthropic_chat.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "llm/provider_table.h"
#include "llm/request_key.h"
#include "llm/tool_json.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

std::string NormalizedStopReason(const std::string& stop_reason) {
  if (stop_reason == "end_turn") return "stop";
  if (stop_reason == "max_tokens") return "length";
  if (stop_reason == "tool_use") return "tool_calls";
  return stop_reason;  // stop_sequence, refusal, pause_turn, ...
}

// An assistant turn with tool calls: its text (if any), then one tool_use
// block per call (input: the arguments object; {} when they are not one).
json AssistantContent(const ChatMessage& message) {
  if (message.tool_calls.empty()) return message.content;
  json blocks = json::array();
  if (!message.content.empty()) blocks.push_back({{"type", "text"}, {"text", message.content}});
  for (const ToolCall& call : message.tool_calls) {
    blocks.push_back({{"type", "tool_use"},
                      {"id", call.id},
                      {"name", call.name},
                      {"input", ObjectOrEmpty(call.arguments)}});
  }
  return blocks;
}

// Messages in the Messages API's form: consecutive kTool messages become one
// user message of tool_result blocks.
json MessagesJson(const std::vector<ChatMessage>& source) {
  json messages = json::array();
  for (size_t i = 0; i < source.size(); ++i) {
    const ChatMessage& message = source[i];
    if (message.role != Role::kTool) {
      json content = message.role == Role::kAssistant ? AssistantContent(message) : json(message.content);
      messages.push_back({{"role", RoleName(message.role)}, {"content", std::move(content)}});
      continue;
    }
    json results = json::array();
    for (; i < source.size() && source[i].role == Role::kTool; ++i) {
      json block{
          {"type", "tool_result"}, {"tool_use_id", source[i].tool_call_id}, {"content", source[i].content}};
      if (source[i].is_error) block["is_error"] = true;
      results.push_back(std::move(block));
    }
    --i;
    messages.push_back({{"role", "user"}, {"content", std::move(results)}});
  }
  return messages;
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
  json body{{"model", model},
            {"messages", MessagesJson(request.messages)},
            {"max_tokens", request.max_tokens},
            {"temperature", request.temperature}};
  if (!request.system_prompt.empty()) body["system"] = request.system_prompt;
  if (!request.stop_sequences.empty()) body["stop_sequences"] = request.stop_sequences;
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const ToolDefinition& tool : request.tools) {
      tools.push_back({{"name", tool.name},
                       {"description", tool.description},
                       {"input_schema", ObjectOrEmpty(tool.parameters_schema)}});
    }
    body["tools"] = std::move(tools);
  }
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
    if (!block.is_object()) continue;
    std::string type = StringAt(block, "type");
    if (type == "text") choice.content += StringAt(block, "text");
    if (type == "tool_use") {
      ToolCall call;
      call.id = StringAt(block, "id");
      if (call.id.empty()) call.id = fmt::format("toolu_{}", choice.tool_calls.size());
      call.name = StringAt(block, "name");
      auto input = block.find("input");
      call.arguments =
          input == block.end() ? "{}" : input->dump(-1, ' ', false, json::error_handler_t::replace);
      choice.tool_calls.push_back(std::move(call));
    }
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
  ExchangeContext context{http.url, model, KeyVariablesOf(Provider::kAnthropic)};
  std::string where = context.Where();
  return ExchangeJson(
      environment_, http, context,
      [&](std::string_view body) { return ParseAnthropicResponseBody(body, where); }, ExtractAnthropicError);
}

}  // namespace kopt::llm
