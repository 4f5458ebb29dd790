#include "analysis/tool_selection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kopt {
namespace {

std::vector<std::string> SelectedIds(BottleneckClass bottleneck) {
  std::vector<std::string> ids;
  for (const ToolDefinition* tool : SelectTools(ToolRegistry(), bottleneck)) ids.push_back(tool->id);
  return ids;
}

bool Has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(ToolSelection, EveryToolDeclaresItsClassesAndUnknownRunsThemAll) {
  for (const ToolDefinition& tool : ToolRegistry()) EXPECT_FALSE(tool.relevant_classes.empty()) << tool.id;
  // hidden_compute_energy prices memory-bound and latency-bound kernels only.
  EXPECT_EQ(SelectedIds(BottleneckClass::kUnknown).size(), ToolRegistry().size() - 1);
  EXPECT_FALSE(Has(SelectedIds(BottleneckClass::kUnknown), "hidden_compute_energy"));
}

TEST(ToolSelection, StageOneRulesOutTheIdleSide) {
  std::vector<std::string> compute_bound = SelectedIds(BottleneckClass::kComputeBound);
  std::vector<std::string> memory_bound = SelectedIds(BottleneckClass::kMemoryBound);
  std::vector<std::string> mixed = SelectedIds(BottleneckClass::kMixed);
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (tool.side == ToolSide::kMemory && tool.id != "local_memory_spills")
      EXPECT_FALSE(Has(compute_bound, tool.id)) << tool.id;
    if (tool.side == ToolSide::kLatency || tool.side == ToolSide::kSharedMemory ||
        tool.side == ToolSide::kNone) {
      EXPECT_TRUE(Has(compute_bound, tool.id)) << tool.id;
      EXPECT_TRUE(Has(memory_bound, tool.id)) << tool.id;
    }
  }
  for (const char* id :
       {"accidental_fp64", "mufu_division_pressure", "int64_index_arithmetic", "warp_divergence"})
    EXPECT_FALSE(Has(memory_bound, id)) << id;
  // Fixes that rebuild the kernel apply whatever its class; spills cost traffic and instructions alike.
  for (const char* id : {"fp32_gemm_no_tensor_cores", "hmma_on_hopper", "local_memory_spills"}) {
    EXPECT_TRUE(Has(memory_bound, id)) << id;
    EXPECT_TRUE(Has(compute_bound, id)) << id;
  }
  // Both sides stay open for a mixed kernel.
  EXPECT_TRUE(Has(mixed, "uncoalesced_loads"));
  EXPECT_TRUE(Has(mixed, "accidental_fp64"));
}

TEST(ToolSelection, ADeclarationWithoutClassesOrWithARepeatIsRejected) {
  ToolDefinition tool = *FindTool("tail_effect");
  tool.relevant_classes.clear();
  Status none = CheckToolDefinition(tool);
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.message().find("no stage-1 classes"), std::string::npos) << none.message();
  EXPECT_FALSE(AppliesTo(tool, BottleneckClass::kUnknown));
  tool.relevant_classes = {BottleneckClass::kMixed, BottleneckClass::kMixed};
  EXPECT_FALSE(CheckToolDefinition(tool).ok());
}

}  // namespace
}  // namespace kopt
