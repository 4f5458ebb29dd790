#include "analysis/tool.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kopt {

std::string_view InputSourceName(InputSource source) {
  switch (source) {
    case InputSource::kNcuMetric: return "ncu";
    case InputSource::kSass: return "sass";
    case InputSource::kPtxas: return "ptxas";
    case InputSource::kSourcePage: return "source page";
    case InputSource::kLaunches: return "launches";
    case InputSource::kEnergyModel: return "energy model";
  }
  return "unknown";
}

std::string_view ToolFamilyName(ToolFamily family) {
  switch (family) {
    case ToolFamily::kMemory: return "memory";
    case ToolFamily::kOccupancy: return "occupancy";
    case ToolFamily::kLaunch: return "launch";
    case ToolFamily::kCompute: return "compute";
    case ToolFamily::kHealth: return "health";
  }
  return "unknown";
}

std::string_view ToolSideName(ToolSide side) {
  switch (side) {
    case ToolSide::kMemory: return "memory";
    case ToolSide::kCompute: return "compute";
    case ToolSide::kSharedMemory: return "shared memory";
    case ToolSide::kLatency: return "latency";
    case ToolSide::kNone: return "none";
  }
  return "unknown";
}

Result<double> ToolContext::FindThreshold(std::string_view name) const {
  if (thresholds != nullptr) {
    if (auto it = thresholds->find(std::string(name)); it != thresholds->end()) return it->second;
  }
  return NotFound(fmt::format("threshold \"{}\" is not declared by the tool", name));
}

double ToolContext::Threshold(std::string_view name) const {
  Result<double> value = FindThreshold(name);
  if (!value.ok()) throw std::logic_error(value.status().message());
  return value.value();
}

double ToolContext::StallShare(std::string_view reason) const {
  for (const StallReason& stall : stalls) {
    if (stall.name == reason) return stall.share;
  }
  return 0;
}

std::vector<std::string> FindingIdsOf(const ToolDefinition& tool) {
  return tool.finding_ids.empty() ? std::vector<std::string>{tool.id} : tool.finding_ids;
}

Status CheckToolDefinition(const ToolDefinition& tool) {
  if (tool.id.empty()) return InvalidInput("a tool has no id");
  auto invalid = [&tool](std::string_view what) {
    return InvalidInput(fmt::format("tool {}: {}", tool.id, what));
  };
  if (tool.title.empty()) return invalid("no title");
  if (tool.trigger.empty()) return invalid("no trigger");
  if (!tool.analyze) return invalid("no analyze function");
  if (tool.relevant_classes.empty())
    return invalid("no stage-1 classes (relevant_classes; the usual lists: analysis/tool_selection.h)");
  std::set<BottleneckClass> classes(tool.relevant_classes.begin(), tool.relevant_classes.end());
  if (classes.size() != tool.relevant_classes.size()) return invalid("a stage-1 class is listed twice");
  std::set<std::string> names;
  for (const ThresholdDefinition& threshold : tool.thresholds) {
    if (threshold.name.empty()) return invalid("a threshold has no name");
    if (!names.insert(threshold.name).second)
      return invalid(fmt::format("threshold \"{}\" is declared twice", threshold.name));
  }
  std::vector<std::string> finding_ids = FindingIdsOf(tool);
  std::set<std::string_view> moved;
  for (const FindingTuningMoves& row : tool.tuning_moves) {
    if (std::find(finding_ids.begin(), finding_ids.end(), row.finding_id) == finding_ids.end())
      return invalid(
          fmt::format("tuning_moves names \"{}\", which is not one of its finding ids", row.finding_id));
    if (!moved.insert(row.finding_id).second)
      return invalid(fmt::format("tuning_moves lists \"{}\" twice", row.finding_id));
    if (row.moves.empty() || row.rationale.empty())
      return invalid(fmt::format("tuning_moves for \"{}\" needs moves and a rationale", row.finding_id));
  }
  return Status::Ok();
}

}  // namespace kopt
