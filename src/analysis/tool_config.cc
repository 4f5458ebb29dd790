#include "analysis/tool_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>

#include "analysis/tool.h"
#include "core/file_io.h"
#include "core/text.h"
#include "core/toml_document.h"

namespace kopt {
namespace {

std::string Where(std::string_view file_name, const toml::node& node) {
  return fmt::format("{}:{}", file_name, node.source().begin.line);
}

Result<double> NumberOf(const toml::node& node, std::string_view file_name, std::string_view key) {
  if (auto value = node.value<double>()) return *value;
  return InvalidInput(fmt::format("{}: \"{}\" is not a number; expected a threshold value such as 0.25",
                                  Where(file_name, node), key));
}

Status ReadToolTable(const toml::table& tools, std::string_view file_name, OrchestrationOptions& options) {
  for (const auto& [tool_key, tool_node] : tools) {
    std::string tool_id(tool_key.str());
    const ToolDefinition* tool = FindTool(tool_id);
    if (!tool) {
      std::vector<std::string_view> ids;
      for (const ToolDefinition& known : ToolRegistry()) ids.push_back(known.id);
      return InvalidInput(fmt::format("{}: [tools.{}]: no such tool{}; `kopt rules` lists the tools",
                                      Where(file_name, tool_node), tool_id, DidYouMean(tool_id, ids)));
    }
    const toml::table* thresholds = tool_node.as_table();
    if (!thresholds) {
      return InvalidInput(
          fmt::format("{}: tools.{} must be a table of thresholds", Where(file_name, tool_node), tool_id));
    }
    for (const auto& [name_key, value_node] : *thresholds) {
      std::string name(name_key.str());
      if (name == "enabled") {
        std::optional<bool> enabled = value_node.value<bool>();
        if (!enabled || !value_node.is_boolean()) {
          return InvalidInput(fmt::format("{}: tools.{}.enabled: expected true or false",
                                          Where(file_name, value_node), tool_id));
        }
        if (*enabled) {
          options.disabled_tools.erase(tool_id);
        } else {
          options.disabled_tools.insert(tool_id);
        }
        continue;
      }
      auto definition =
          std::find_if(tool->thresholds.begin(), tool->thresholds.end(),
                       [&](const ThresholdDefinition& threshold) { return threshold.name == name; });
      if (definition == tool->thresholds.end()) {
        std::vector<std::string_view> names = {"enabled"};
        for (const ThresholdDefinition& threshold : tool->thresholds) names.push_back(threshold.name);
        return InvalidInput(fmt::format(
            "{}: tools.{}.{}: the tool has no such threshold{}; `kopt rules {}` lists them (and `enabled = "
            "false` turns the tool off)",
            Where(file_name, value_node), tool_id, name, DidYouMean(name, names), tool_id));
      }
      KOPT_ASSIGN_OR_RETURN(double value, NumberOf(value_node, file_name, tool_id + "." + name));
      // Out of range, a threshold would silently switch its tool off (or on for every kernel).
      double maximum = definition->unit == "%" ? 100 : definition->unit == "fraction" ? 1 : HUGE_VAL;
      if (!std::isfinite(value) || value < 0 || value > maximum) {
        return InvalidInput(
            fmt::format("{}: tools.{}.{} = {}: out of range; expected {} (unit {}, default {})",
                        Where(file_name, value_node), tool_id, name, value,
                        definition->unit == "%"          ? "a percentage from 0 to 100"
                        : definition->unit == "fraction" ? "a fraction from 0 to 1"
                                                         : "a number of at least 0",
                        definition->unit.empty() ? "none" : definition->unit, definition->default_value));
      }
      options.threshold_overrides[tool_id][name] = value;
    }
  }
  return Status::Ok();
}

Status ReadOrchestrationTable(const toml::table& table, std::string_view file_name,
                              OrchestrationOptions& options) {
  for (const auto& [key, node] : table) {
    if (key.str() != "healthy_percent") {
      return InvalidInput(fmt::format("{}: orchestration.{}: unknown key; expected healthy_percent",
                                      Where(file_name, node), key.str()));
    }
    KOPT_ASSIGN_OR_RETURN(options.healthy_percent,
                          NumberOf(node, file_name, "orchestration.healthy_percent"));
  }
  return Status::Ok();
}

}  // namespace

Result<OrchestrationOptions> ParseToolConfig(std::string_view text, std::string_view file_name) {
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(text, file_name));
  OrchestrationOptions options;
  for (const auto& [key, node] : root) {
    const toml::table* table = node.as_table();
    if (key.str() == "tools" && table) {
      KOPT_RETURN_IF_ERROR(ReadToolTable(*table, file_name, options));
    } else if (key.str() == "orchestration" && table) {
      KOPT_RETURN_IF_ERROR(ReadOrchestrationTable(*table, file_name, options));
    } else {
      return InvalidInput(
          fmt::format("{}: unknown top-level key \"{}\"; expected the tables [tools.<id>] and "
                      "[orchestration]",
                      Where(file_name, node), key.str()));
    }
  }
  return options;
}

Result<OrchestrationOptions> LoadToolConfig(const std::string& path) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, 1 << 20));
  return ParseToolConfig(text, path);
}

}  // namespace kopt
