// The registry: one line per tool, in the fixed registry order (findings of
// equal gain and skipped tools are listed in it). X(Name) names the
// declaration function `ToolDefinition Name()` that analysis/tools/<id>.cc
// defines; adding a tool is that file and one line here.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "analysis/tool.h"

#define KOPT_TOOLS(X)          \
  X(UncoalescedLoadsTool)      \
  X(UncoalescedStoresTool)     \
  X(SharedBankConflictsTool)   \
  X(LocalMemorySpillsTool)     \
  X(MemoryLatencyLowMlpTool)   \
  X(AtomicContentionTool)      \
  X(LowOccupancyTool)          \
  X(AchievedOccupancyGapTool)  \
  X(TailEffectTool)            \
  X(LaunchOverheadTool)        \
  X(SmLoadImbalanceTool)       \
  X(BarrierStallsTool)         \
  X(WarpDivergenceTool)        \
  X(Fp32GemmNoTensorCoresTool) \
  X(HmmaOnHopperTool)          \
  X(AccidentalFp64Tool)        \
  X(MufuDivisionPressureTool)  \
  X(Int64IndexArithmeticTool)  \
  X(DataMovementPassTool)      \
  X(HiddenComputeEnergyTool)   \
  X(HealthyTool)

namespace kopt {

#define KOPT_DECLARE_TOOL(name) ToolDefinition name();
KOPT_TOOLS(KOPT_DECLARE_TOOL)
#undef KOPT_DECLARE_TOOL

namespace {

std::vector<ToolDefinition> DeclaredTools() {
#define KOPT_LIST_TOOL(name) name(),
  return {KOPT_TOOLS(KOPT_LIST_TOOL)};
#undef KOPT_LIST_TOOL
}

Status CheckUnique(const std::vector<std::string>& names, std::string_view what) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!seen.insert(name).second) return InvalidInput(fmt::format("{} \"{}\" appears twice", what, name));
  }
  return Status::Ok();
}

}  // namespace

Status CheckToolRegistry(const std::vector<ToolDefinition>& tools) {
  std::vector<std::string> ids, finding_ids;
  for (const ToolDefinition& tool : tools) {
    if (Status status = CheckToolDefinition(tool); !status.ok()) return status;
    ids.push_back(tool.id);
    for (std::string& id : FindingIdsOf(tool)) {
      if (id != tool.id) finding_ids.push_back(std::move(id));
    }
  }
  if (Status status = CheckUnique(ids, "tool id"); !status.ok()) return status;
  finding_ids.insert(finding_ids.end(), ids.begin(), ids.end());
  if (Status status = CheckUnique(finding_ids, "finding id"); !status.ok()) return status;
  for (const ToolDefinition& tool : tools) {
    for (const std::string& subsumed : tool.subsumes) {
      if (std::find(ids.begin(), ids.end(), subsumed) == ids.end())
        return InvalidInput(
            fmt::format("tool {} subsumes \"{}\", which is not registered", tool.id, subsumed));
    }
  }
  return Status::Ok();
}

const std::vector<ToolDefinition>& ToolRegistry() {
  static const std::vector<ToolDefinition> kRegistry = [] {
    std::vector<ToolDefinition> tools = DeclaredTools();
    // A malformed declaration is a bug in kopt: refuse to run with it in every build type.
    if (Status status = CheckToolRegistry(tools); !status.ok())
      throw std::logic_error("tool registry: " + status.message());
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

const ToolDefinition* FindToolProducing(std::string_view finding_id) {
  if (const ToolDefinition* tool = FindTool(finding_id)) return tool;
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (std::find(tool.finding_ids.begin(), tool.finding_ids.end(), finding_id) != tool.finding_ids.end())
      return &tool;
  }
  return nullptr;
}

}  // namespace kopt
