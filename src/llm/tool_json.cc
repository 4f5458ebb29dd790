#include "llm/tool_json.h"

#include <fmt/format.h>

namespace kopt::llm {
namespace {

using nlohmann::json;

Result<std::string> StringField(const json& object, const char* name, const std::string& where,
                                const char* what) {
  auto found = object.find(name);
  if (found == object.end()) return std::string();
  if (!found->is_string()) return InvalidInput(fmt::format("{}: {}.{} must be a string", where, what, name));
  return found->get<std::string>();
}

}  // namespace

json ObjectOrEmpty(const std::string& parameters_schema) {
  json schema = json::parse(parameters_schema, nullptr, false);
  return schema.is_object() ? schema : json::object();
}

json ToolDefinitionsToJson(const std::vector<ToolDefinition>& tools) {
  json array = json::array();
  for (const ToolDefinition& tool : tools) {
    json schema = json::parse(tool.parameters_schema, nullptr, false);
    if (schema.is_discarded()) schema = tool.parameters_schema;
    array.push_back({{"description", tool.description}, {"name", tool.name}, {"parameters", schema}});
  }
  return array;
}

Result<std::vector<ToolDefinition>> ToolDefinitionsFromJson(const json& value, const std::string& where) {
  if (!value.is_array()) return InvalidInput(fmt::format("{}: \"tools\" must be an array", where));
  std::vector<ToolDefinition> tools;
  for (const json& item : value) {
    if (!item.is_object())
      return InvalidInput(fmt::format("{}: each \"tools\" entry must be an object", where));
    ToolDefinition tool;
    KOPT_ASSIGN_OR_RETURN(tool.name, StringField(item, "name", where, "tools[]"));
    KOPT_ASSIGN_OR_RETURN(tool.description, StringField(item, "description", where, "tools[]"));
    if (auto schema = item.find("parameters"); schema != item.end()) {
      tool.parameters_schema = schema->is_string()
                                   ? schema->get<std::string>()
                                   : schema->dump(-1, ' ', false, json::error_handler_t::replace);
    }
    tools.push_back(std::move(tool));
  }
  return tools;
}

json ToolCallsToJson(const std::vector<ToolCall>& calls) {
  json array = json::array();
  for (const ToolCall& call : calls) {
    array.push_back({{"arguments", call.arguments}, {"id", call.id}, {"name", call.name}});
  }
  return array;
}

Result<std::vector<ToolCall>> ToolCallsFromJson(const json& value, const std::string& where) {
  if (!value.is_array()) return InvalidInput(fmt::format("{}: \"tool_calls\" must be an array", where));
  std::vector<ToolCall> calls;
  for (const json& item : value) {
    if (!item.is_object()) {
      return InvalidInput(fmt::format("{}: each \"tool_calls\" entry must be an object", where));
    }
    ToolCall call;
    KOPT_ASSIGN_OR_RETURN(call.id, StringField(item, "id", where, "tool_calls[]"));
    KOPT_ASSIGN_OR_RETURN(call.name, StringField(item, "name", where, "tool_calls[]"));
    KOPT_ASSIGN_OR_RETURN(call.arguments, StringField(item, "arguments", where, "tool_calls[]"));
    calls.push_back(std::move(call));
  }
  return calls;
}

}  // namespace kopt::llm
