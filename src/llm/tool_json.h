// The JSON form of tool definitions and tool calls in kopt's own records
// (the canonical request of request_key.h, cache files, transcripts): one
// form for all of them, independent of the providers' wire formats.
//
//   tool definition: {"description":..., "name":..., "parameters":<schema object>}
//   tool call:       {"arguments":"<JSON text>", "id":..., "name":...}
//
// Keys sorted, like the rest of the canonical form. A schema that is not
// valid JSON is kept as a string (so the hash still covers it).
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "llm/chat.h"

namespace kopt::llm {

nlohmann::json ToolDefinitionsToJson(const std::vector<ToolDefinition>& tools);
Result<std::vector<ToolDefinition>> ToolDefinitionsFromJson(const nlohmann::json& value,
                                                            const std::string& where);

nlohmann::json ToolCallsToJson(const std::vector<ToolCall>& calls);
// Errors name `where` and say which entry is malformed.
Result<std::vector<ToolCall>> ToolCallsFromJson(const nlohmann::json& value, const std::string& where);

// JSON text parsed as an object (a schema, a call's arguments); an empty
// object when it is empty, not JSON or not an object: what the transports
// send where the wire format wants an object.
nlohmann::json ObjectOrEmpty(const std::string& parameters_schema);

}  // namespace kopt::llm
