#include "app/rules.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analysis/tool.h"
#include "analysis/tool_config.h"
#include "analysis/tool_selection.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "harness/candidate_policy.h"
#include "report/renderer.h"

namespace kopt {
namespace {

std::string ClassesText(const ToolDefinition& tool) {
  if (tool.relevant_classes.size() == EveryBottleneckClass().size()) return "every class";
  std::string text;
  for (BottleneckClass bottleneck : tool.relevant_classes) {
    text += (text.empty() ? "" : ", ") + std::string(BottleneckClassName(bottleneck));
  }
  return text;
}

std::string GainBoundText(GainBound bound) {
  switch (bound) {
    case GainBound::kReducesTraffic: return "reduces traffic (capped by the compute floor)";
    case GainBound::kReducesCompute: return "reduces compute (capped by the memory floor)";
    case GainBound::kHidesLatency: return "hides latency (capped by the roofline floor)";
    case GainBound::kRemovesLaunches: return "removes launches (not capped: the fixed launch cost goes)";
  }
  return "";
}

std::string InputsText(const ToolDefinition& tool, bool optional) {
  std::string text;
  for (const RequiredInput& input : tool.required) {
    if (input.optional != optional) continue;
    text += fmt::format("{}{}: {}", text.empty() ? "" : "; ", InputSourceName(input.source), input.name);
  }
  return text.empty() ? "none" : text;
}

// One "label: text" item of a tool or policy rule: a Markdown bullet, or an indented terminal line
// wrapped to `width` (0: not wrapped) with its continuation under the text.
struct ItemWriter {
  bool markdown;
  int width;
  std::ostream& out;
  void operator()(std::string_view label, std::string_view text) const {
    std::string prefix = fmt::format("{}{}: ", markdown ? "- " : "    ", label);
    if (markdown || width <= 0) {
      out << prefix << text << "\n";
      return;
    }
    for (const std::string& line : WrapHanging(prefix, text, static_cast<size_t>(width))) out << line << "\n";
  }
};

void WriteText(const ToolDefinition& tool, const std::map<std::string, double>& values, bool enabled,
               const ItemWriter& item) {
  std::ostream& out = item.out;
  out << (item.markdown ? "## " : "") << tool.id << (item.markdown ? "" : "  ·  ")
      << (item.markdown ? "\n\n" : "") << tool.title << " (" << ToolFamilyName(tool.family) << ")\n";
  if (!enabled) item("turned off", "enabled = false in the tool configuration");
  item("runs for", ClassesText(tool));
  item("trigger", tool.trigger);
  item("inputs", InputsText(tool, false));
  item("optional inputs", InputsText(tool, true));
  for (const ThresholdDefinition& threshold : tool.thresholds) {
    double value = values.at(threshold.name);
    item(fmt::format(
             "threshold {} = {:g}{}{}", threshold.name, value,
             threshold.unit.empty() ? "" : " " + threshold.unit,
             value != threshold.default_value ? fmt::format(" (default {:g})", threshold.default_value) : ""),
         threshold.description);
  }
  item("gain", GainBoundText(tool.gain_bound));
  if (!tool.finding_ids.empty()) item("finding ids", fmt::format("{}", fmt::join(tool.finding_ids, ", ")));
  if (!tool.subsumes.empty()) item("explains also", fmt::format("{}", fmt::join(tool.subsumes, ", ")));
  out << "\n";
}

nlohmann::ordered_json ToolJson(const ToolDefinition& tool, const std::map<std::string, double>& values,
                                bool enabled) {
  nlohmann::ordered_json json;
  json["id"] = tool.id;
  json["enabled"] = enabled;
  json["title"] = tool.title;
  json["family"] = std::string(ToolFamilyName(tool.family));
  json["relevant_classes"] = nlohmann::ordered_json::array();
  for (BottleneckClass bottleneck : tool.relevant_classes)
    json["relevant_classes"].push_back(BottleneckClassName(bottleneck));
  json["trigger"] = tool.trigger;
  json["inputs"] = nlohmann::ordered_json::array();
  for (const RequiredInput& input : tool.required) {
    json["inputs"].push_back(
        {{"source", InputSourceName(input.source)}, {"name", input.name}, {"optional", input.optional}});
  }
  json["thresholds"] = nlohmann::ordered_json::array();
  for (const ThresholdDefinition& threshold : tool.thresholds) {
    json["thresholds"].push_back({{"name", threshold.name},
                                  {"value", {{"value", values.at(threshold.name)}, {"unit", threshold.unit}}},
                                  {"default", {{"value", threshold.default_value}, {"unit", threshold.unit}}},
                                  {"description", threshold.description}});
  }
  json["gain_bound"] = GainBoundText(tool.gain_bound);
  json["finding_ids"] = tool.finding_ids;
  json["subsumes"] = tool.subsumes;
  return json;
}

Status WritePolicyRules(const RulesOptions& options, ReportFormat format, std::ostream& out) {
  if (!options.tool.empty() && !ParsePolicyConstruct(options.tool)) {
    return NotFound(
        fmt::format("no policy construct \"{}\"; expected one of: {}", options.tool, PolicyConstructList()));
  }
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  if (format == ReportFormat::kMarkdown) out << "# kopt bench candidate policy\n\n";
  const bool markdown = format == ReportFormat::kMarkdown;
  const ItemWriter item{markdown, options.width, out};
  for (const PolicyRule& rule : PolicyRules()) {
    if (!options.tool.empty() && rule.id != options.tool) continue;
    if (format == ReportFormat::kJson) {
      rules.push_back({{"id", rule.id}, {"matches", rule.matches}, {"why", rule.why}, {"help", rule.help}});
      continue;
    }
    out << (markdown ? "## " : "") << rule.id << (markdown ? "\n\n" : "\n");
    item("matches", rule.matches);
    item("why", rule.why);
    item("help", rule.help);
    item("allow", fmt::format("--allow {}, or [policy] allow = [\"{}\"] in task.toml", rule.id, rule.id));
    out << "\n";
  }
  if (format == ReportFormat::kJson) {
    nlohmann::ordered_json root;
    root["schema_version"] = std::string(kJsonSchemaVersion);
    root["tool"] = "kopt";
    root["policy_rules"] = rules;
    out << root.dump(2) << "\n";
  } else if (options.tool.empty()) {
    out << PolicyRules().size()
        << " constructs. A candidate using one fails with policy_violation before it runs (docs/bench.md).\n";
  }
  return Status::Ok();
}

}  // namespace

Status RunRules(const RulesOptions& options, std::ostream& out) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(options.format, kTableFormats));
  if (options.policy) return WritePolicyRules(options, format, out);
  OrchestrationOptions orchestration;
  if (!options.config_path.empty()) {
    KOPT_ASSIGN_OR_RETURN(orchestration, LoadToolConfig(options.config_path));
  }
  if (!options.tool.empty() && !FindTool(options.tool)) {
    std::vector<std::string_view> ids;
    for (const ToolDefinition& tool : ToolRegistry()) ids.push_back(tool.id);
    return NotFound(fmt::format("no tool \"{}\"{}; `kopt rules` lists them", options.tool,
                                DidYouMean(options.tool, ids)));
  }
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();
  if (format == ReportFormat::kMarkdown) out << "# kopt micro-profiling tools\n\n";
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (!options.tool.empty() && tool.id != options.tool) continue;
    auto values = ResolveThresholds(tool, orchestration);
    bool enabled = !orchestration.disabled_tools.count(tool.id);
    if (format == ReportFormat::kJson) {
      tools.push_back(ToolJson(tool, values, enabled));
    } else {
      WriteText(tool, values, enabled, ItemWriter{format == ReportFormat::kMarkdown, options.width, out});
    }
  }
  if (format == ReportFormat::kJson) {
    nlohmann::ordered_json root;
    root["schema_version"] = std::string(kJsonSchemaVersion);
    root["tool"] = "kopt";
    root["tools"] = tools;
    out << root.dump(2) << "\n";
  } else if (options.tool.empty()) {
    out << ToolRegistry().size()
        << " tools. Override thresholds with --config FILE ([tools.<id>] tables; enabled = false turns a "
           "tool "
           "off).\n";
  }
  return Status::Ok();
}

}  // namespace kopt
