#include "llm/request_key.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include "llm/provider_table.h"
#include "llm/tool_json.h"

namespace kopt::llm {
namespace {

using nlohmann::json;

json CanonicalObject(const ChatRequest& request, const std::string& configured_model) {
  json messages = json::array();
  for (const ChatMessage& message : request.messages) {
    json object{{"content", message.content}, {"role", RoleName(message.role)}};
    // Tool fields only where they exist, so a request without tools keeps
    // the hash it had before tools existed.
    if (!message.tool_calls.empty()) object["tool_calls"] = ToolCallsToJson(message.tool_calls);
    if (message.role == Role::kTool) {
      object["tool_call_id"] = message.tool_call_id;
      if (message.is_error) object["is_error"] = true;
    }
    messages.push_back(std::move(object));
  }
  json object{{"max_tokens", request.max_tokens},
              {"messages", std::move(messages)},
              {"model", EffectiveModel(request, configured_model)},
              {"n", request.n},
              {"stop", request.stop_sequences},
              {"system", request.system_prompt},
              {"temperature", request.temperature}};
  if (!request.tools.empty()) object["tools"] = ToolDefinitionsToJson(request.tools);
  return object;
}

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

template <typename T>
Result<T> Field(const json& object, const char* name, T fallback, const std::string& where) {
  auto found = object.find(name);
  if (found == object.end()) return fallback;
  try {
    return found->get<T>();
  } catch (const json::exception&) {
    return InvalidInput(fmt::format("{}: request.{} has the wrong type", where, name));
  }
}

Result<std::vector<ChatMessage>> MessagesFrom(const json& object, const std::string& where) {
  std::vector<ChatMessage> messages;
  auto found = object.find("messages");
  if (found == object.end()) return messages;
  if (!found->is_array()) return InvalidInput(fmt::format("{}: request.messages must be an array", where));
  for (const json& item : *found) {
    if (!item.is_object() || !item.contains("content") || !item["content"].is_string()) {
      return InvalidInput(fmt::format("{}: each request.messages entry needs \"content\" (a string)", where));
    }
    ChatMessage message;
    message.content = item["content"].get<std::string>();
    std::string role = item.value("role", "user");
    if (role == "assistant") {
      message.role = Role::kAssistant;
    } else if (role == "tool") {
      message.role = Role::kTool;
    } else if (role != "user") {
      return InvalidInput(
          fmt::format("{}: request.messages role \"{}\"; expected user, assistant or tool", where, role));
    }
    if (auto calls = item.find("tool_calls"); calls != item.end()) {
      KOPT_ASSIGN_OR_RETURN(message.tool_calls, ToolCallsFromJson(*calls, where + ": request.messages"));
    }
    KOPT_ASSIGN_OR_RETURN(message.tool_call_id, Field<std::string>(item, "tool_call_id", "", where));
    KOPT_ASSIGN_OR_RETURN(message.is_error, Field<bool>(item, "is_error", false, where));
    messages.push_back(std::move(message));
  }
  return messages;
}

}  // namespace

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kTool: return "tool";
  }
  return "user";
}

std::string EffectiveModel(const ChatRequest& request, const std::string& configured_model) {
  return request.model.empty() ? configured_model : request.model;
}

std::string CanonicalRequestJson(const ChatRequest& request, const std::string& configured_model) {
  return Dump(CanonicalObject(request, configured_model));
}

std::string CanonicalCacheJson(const ChatRequest& request, const LlmConfig& config) {
  json object = CanonicalObject(request, config.model);
  object["provider"] = ProviderName(config.provider);
  object["base_url"] = config.base_url;
  return Dump(object);
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

Result<ChatRequest> RequestFromJsonText(std::string_view json_text, const std::string& where) {
  json object = json::parse(json_text, nullptr, false);
  if (!object.is_object()) return InvalidInput(fmt::format("{}: request must be a JSON object", where));
  ChatRequest request;
  KOPT_ASSIGN_OR_RETURN(request.model, Field<std::string>(object, "model", "", where));
  KOPT_ASSIGN_OR_RETURN(request.system_prompt, Field<std::string>(object, "system", "", where));
  KOPT_ASSIGN_OR_RETURN(request.temperature, Field<double>(object, "temperature", 0.0, where));
  KOPT_ASSIGN_OR_RETURN(request.max_tokens, Field<int>(object, "max_tokens", 2048, where));
  KOPT_ASSIGN_OR_RETURN(request.n, Field<int>(object, "n", 1, where));
  KOPT_ASSIGN_OR_RETURN(request.stop_sequences, Field<std::vector<std::string>>(object, "stop", {}, where));
  KOPT_ASSIGN_OR_RETURN(request.messages, MessagesFrom(object, where));
  if (auto tools = object.find("tools"); tools != object.end()) {
    KOPT_ASSIGN_OR_RETURN(request.tools, ToolDefinitionsFromJson(*tools, where + ": request"));
  }
  return request;
}

}  // namespace kopt::llm
