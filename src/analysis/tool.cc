#include "analysis/tool.h"

#include <cassert>

#include "analysis/tool_families.h"

namespace kopt {

std::string_view InputSourceName(InputSource source) {
  switch (source) {
    case InputSource::kNcuMetric: return "ncu";
    case InputSource::kSass: return "sass";
    case InputSource::kPtxas: return "ptxas";
    case InputSource::kSourcePage: return "source page";
    case InputSource::kLaunches: return "launches";
  }
  return "unknown";
}

double ToolContext::Threshold(std::string_view name) const {
  assert(thresholds != nullptr);
  auto it = thresholds->find(std::string(name));
  assert(it != thresholds->end() && "threshold not declared by the tool");
  return it == thresholds->end() ? 0 : it->second;
}

double ToolContext::StallShare(std::string_view reason) const {
  for (const StallReason& stall : stalls) {
    if (stall.name == reason) return stall.share;
  }
  return 0;
}

const std::vector<ToolDefinition>& ToolRegistry() {
  static const std::vector<ToolDefinition> kRegistry = [] {
    std::vector<ToolDefinition> tools;
    for (auto family : {MemoryTools, OccupancyTools, ComputeTools, HealthTools}) {
      for (ToolDefinition& tool : family()) tools.push_back(std::move(tool));
    }
    return tools;
  }();
  return kRegistry;
}

const ToolDefinition* FindTool(std::string_view id) {
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (tool.id == id) return &tool;
  }
  return nullptr;
}

Evidence MakeEvidence(std::string metric, double value, std::string unit, std::string comparison,
                      double threshold) {
  Evidence evidence;
  evidence.metric = std::move(metric);
  evidence.value = value;
  evidence.unit = std::move(unit);
  evidence.comparison = std::move(comparison);
  evidence.threshold = threshold;
  return evidence;
}

}  // namespace kopt
