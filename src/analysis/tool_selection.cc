#include "analysis/tool_selection.h"

#include <algorithm>

namespace kopt {

std::vector<BottleneckClass> EveryBottleneckClass() {
  return {BottleneckClass::kMemoryBound, BottleneckClass::kComputeBound, BottleneckClass::kLatencyBound,
          BottleneckClass::kMixed, BottleneckClass::kUnknown};
}

std::vector<BottleneckClass> UnlessComputeBound() {
  return {BottleneckClass::kMemoryBound, BottleneckClass::kLatencyBound, BottleneckClass::kMixed,
          BottleneckClass::kUnknown};
}

std::vector<BottleneckClass> UnlessMemoryBound() {
  return {BottleneckClass::kComputeBound, BottleneckClass::kLatencyBound, BottleneckClass::kMixed,
          BottleneckClass::kUnknown};
}

bool AppliesTo(const ToolDefinition& tool, BottleneckClass bottleneck) {
  return std::find(tool.relevant_classes.begin(), tool.relevant_classes.end(), bottleneck) !=
         tool.relevant_classes.end();
}

std::vector<const ToolDefinition*> SelectTools(const std::vector<ToolDefinition>& tools,
                                               BottleneckClass bottleneck) {
  std::vector<const ToolDefinition*> selected;
  for (const ToolDefinition& tool : tools) {
    if (AppliesTo(tool, bottleneck)) selected.push_back(&tool);
  }
  return selected;
}

}  // namespace kopt
