// The registry (analysis/tool_registry.cc) and the declarations in it:
// every tool complete, per family, the registry consistent, and a threshold
// a tool does not declare an error in every build type.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/orchestrator.h"
#include "analysis/stalls.h"
#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

const std::vector<std::string> kMemoryToolIds = {
    "uncoalesced_loads",      "uncoalesced_stores", "shared_bank_conflicts", "local_memory_spills",
    "memory_latency_low_mlp", "atomic_contention",  "data_movement_pass"};
const std::vector<std::string> kComputeToolIds = {
    "warp_divergence",        "fp32_gemm_no_tensor_cores", "hmma_on_hopper",       "accidental_fp64",
    "mufu_division_pressure", "int64_index_arithmetic",    "hidden_compute_energy"};

// The registered tools of `families`, in registry order.
std::vector<ToolDefinition> ToolsOf(std::initializer_list<ToolFamily> families) {
  std::vector<ToolDefinition> tools;
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (std::find(families.begin(), families.end(), tool.family) != families.end()) tools.push_back(tool);
  }
  return tools;
}

TEST(MemoryTools, RegistersSevenToolsWithDeclaredInputsAndThresholds) {
  std::vector<ToolDefinition> tools = ToolsOf({ToolFamily::kMemory});
  ASSERT_EQ(tools.size(), kMemoryToolIds.size());
  for (size_t i = 0; i < tools.size(); ++i) {
    EXPECT_EQ(tools[i].id, kMemoryToolIds[i]);
    EXPECT_EQ(tools[i].family, ToolFamily::kMemory);
    EXPECT_FALSE(tools[i].required.empty()) << tools[i].id;
    EXPECT_FALSE(tools[i].thresholds.empty()) << tools[i].id;
    EXPECT_FALSE(tools[i].trigger.empty()) << tools[i].id;
    for (const ThresholdDefinition& threshold : tools[i].thresholds) {
      EXPECT_FALSE(threshold.description.empty()) << tools[i].id << " " << threshold.name;
    }
    ASSERT_TRUE(tools[i].analyze) << tools[i].id;
  }
}

TEST(ComputeTools, EveryToolIsDeclaredCompletely) {
  for (const std::string& id : kComputeToolIds) {
    const ToolDefinition* tool = FindTool(id);
    ASSERT_NE(tool, nullptr) << id;
    EXPECT_EQ(tool->family, ToolFamily::kCompute);
    EXPECT_FALSE(tool->trigger.empty());
    EXPECT_FALSE(tool->thresholds.empty()) << id;
    for (const ThresholdDefinition& threshold : tool->thresholds) EXPECT_FALSE(threshold.description.empty());
    EXPECT_FALSE(tool->required.empty());
    EXPECT_EQ(tool->gain_bound, GainBound::kReducesCompute);
    bool needs_sass = std::any_of(
        tool->required.begin(), tool->required.end(),
        [](const RequiredInput& input) { return input.source == InputSource::kSass && !input.optional; });
    // Every compute tool also runs from a raw page alone (issue 18: the
    // instruction-mix and pipe metrics stand in for the SASS counts;
    // hmma_on_hopper reads the tensor FLOPs against the gmma pipe).
    EXPECT_FALSE(needs_sass) << id;
  }
}

TEST(OccupancyTools, EveryToolDeclaresThresholdsAndTrigger) {
  for (const ToolDefinition& tool : ToolsOf({ToolFamily::kOccupancy, ToolFamily::kLaunch})) {
    EXPECT_FALSE(tool.trigger.empty()) << tool.id;
    EXPECT_FALSE(tool.thresholds.empty()) << tool.id;
    EXPECT_FALSE(tool.required.empty()) << tool.id;
    for (const ThresholdDefinition& threshold : tool.thresholds) {
      EXPECT_FALSE(threshold.description.empty()) << tool.id << "." << threshold.name;
    }
    EXPECT_TRUE(static_cast<bool>(tool.analyze)) << tool.id;
  }
}

TEST(ToolRegistry, IsConsistent) {
  Status status = CheckToolRegistry(ToolRegistry());
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(ToolRegistry().size(), 21u);
}

TEST(ToolRegistry, FindsTheToolProducingAFindingId) {
  ASSERT_NE(FindToolProducing("low_occupancy_registers"), nullptr);
  EXPECT_EQ(FindToolProducing("low_occupancy_registers")->id, "low_occupancy");
  ASSERT_NE(FindToolProducing("tail_effect"), nullptr);
  EXPECT_EQ(FindToolProducing("tail_effect")->id, "tail_effect");
  EXPECT_EQ(FindToolProducing("no_such_finding"), nullptr);
  EXPECT_EQ(FindingIdsOf(*FindTool("tail_effect")), std::vector<std::string>{"tail_effect"});
  EXPECT_EQ(FindingIdsOf(*FindTool("low_occupancy")).size(), 4u);
}

// The fields other code reads instead of listing tools by id.
TEST(ToolRegistry, DeclarationsCarrySideAndNcuCounterparts) {
  EXPECT_EQ(FindTool("uncoalesced_loads")->side, ToolSide::kMemory);
  EXPECT_EQ(FindTool("shared_bank_conflicts")->side, ToolSide::kSharedMemory);
  EXPECT_EQ(FindTool("warp_divergence")->side, ToolSide::kCompute);
  EXPECT_EQ(FindTool("tail_effect")->side, ToolSide::kLatency);
  EXPECT_EQ(FindTool("healthy")->side, ToolSide::kNone);
  EXPECT_EQ(FindTool("launch_overhead")->family, ToolFamily::kLaunch);
  const std::vector<NcuRule>& fp64 = FindTool("accidental_fp64")->ncu_rules;
  EXPECT_NE(std::find(fp64.begin(), fp64.end(), NcuRule::kSolFpRoofline), fp64.end());
  for (const ToolDefinition& tool : ToolRegistry()) {
    EXPECT_NE(ToolSideName(tool.side), "unknown") << tool.id;
    EXPECT_NE(ToolFamilyName(tool.family), "unknown") << tool.id;
  }
}

TEST(ToolRegistry, MalformedDeclarationsAreRejected) {
  ToolDefinition tool = *FindTool("tail_effect");
  EXPECT_TRUE(CheckToolDefinition(tool).ok());
  ToolDefinition twice = tool;
  twice.thresholds.push_back(twice.thresholds.front());
  Status status = CheckToolDefinition(twice);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("declared twice"), std::string::npos) << status.message();
  ToolDefinition unnamed = tool;
  unnamed.thresholds.front().name.clear();
  EXPECT_FALSE(CheckToolDefinition(unnamed).ok());
  std::vector<ToolDefinition> duplicated = {tool, tool};
  EXPECT_FALSE(CheckToolRegistry(duplicated).ok());
  ToolDefinition dangling = tool;
  dangling.subsumes = {"no_such_tool"};
  status = CheckToolRegistry({dangling});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no_such_tool"), std::string::npos) << status.message();
}

// An undeclared threshold name is an error in every build type: a Status from
// FindThreshold, an exception (a bug in the tool) from Threshold.
TEST(ToolRegistry, UndeclaredThresholdIsAnError) {
  KernelLaunch launch = SyntheticLaunch({});
  RooflineAnalysis roofline;
  std::vector<StallReason> stalls;
  std::map<std::string, double> thresholds = {{"min_gain", 0.05}};
  ToolContext context{launch, roofline, stalls, nullptr, nullptr, nullptr, nullptr, nullptr, &thresholds};
  ASSERT_TRUE(context.FindThreshold("min_gain").ok());
  EXPECT_DOUBLE_EQ(context.Threshold("min_gain"), 0.05);
  Result<double> missing = context.FindThreshold("min_estimated_gain");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(missing.status().message().find("min_estimated_gain"), std::string::npos);
  EXPECT_THROW(context.Threshold("min_estimated_gain"), std::logic_error);
}

// One key per concept: every tool spells "smallest estimated gain reported" min_gain.
TEST(ToolRegistry, MinimumGainIsOneKey) {
  for (const ToolDefinition& tool : ToolRegistry()) {
    for (const ThresholdDefinition& threshold : tool.thresholds) {
      EXPECT_NE(threshold.name, "min_estimated_gain") << tool.id;
    }
    EXPECT_EQ(tool.trigger.find("min_estimated_gain"), std::string::npos) << tool.id;
  }
}

TEST(NcuRule, NamesAndCpiStallReasons) {
  EXPECT_EQ(NcuRuleName(NcuRule::kSolFpRoofline), "SOLFPRoofline");
  EXPECT_EQ(NcuRuleName(NcuRule::kCpiStallMio), "CPIStall");
  EXPECT_EQ(NcuRuleOf("SOLFPRoofline", ""), NcuRule::kSolFpRoofline);
  EXPECT_EQ(NcuRuleOf("CPIStall", "stalled on a barrier and on L1TEX"), NcuRule::kCpiStallBarrier);
  EXPECT_EQ(NcuRuleOf("CPIStall", "waiting on the MIO queue"), NcuRule::kCpiStallMio);
  EXPECT_EQ(NcuRuleOf("CPIStall", "nothing known"), std::nullopt);
  EXPECT_EQ(NcuRuleOf("HighPipeUtilization", ""), std::nullopt);
}

// The ids the orchestrator names in code (the healthy verdict, the dominant-stall fallback) exist: a
// renamed tool fails here instead of silently dropping the fallback.
TEST(ToolRegistry, EveryFindingTheOrchestratorNamesIsProduced) {
  std::vector<std::string_view> ids = FindingIdsNamedByTheOrchestrator();
  EXPECT_GE(ids.size(), 2u);
  for (std::string_view id : ids) EXPECT_NE(FindToolProducing(id), nullptr) << id;
}

}  // namespace
}  // namespace kopt
