// Tests of the warp_divergence tool (analysis/tools/warp_divergence.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/stalls.h"
#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

// A basic-set profile lacks the warp-state metrics: the divergence tool names them.
TEST(ComputeTools, FewerMetricsNameTheMissingOnes) {
  KernelDiagnosis kernel = DiagnoseFixture("basic_set_low_occupancy_registers", {}, kRawPageOnly);
  auto skipped = std::find_if(kernel.skipped_tools.begin(), kernel.skipped_tools.end(),
                              [](const SkippedTool& tool) { return tool.tool == "warp_divergence"; });
  ASSERT_NE(skipped, kernel.skipped_tools.end());
  EXPECT_NE(std::find(skipped->missing.begin(), skipped->missing.end(),
                      "smsp__thread_inst_executed_per_inst_executed.ratio"),
            skipped->missing.end());
}

// Thresholds come from the definition and can be overridden.
TEST(ComputeTools, ThresholdOverrideSilencesTheTool) {
  DiagnoseOptions options;
  options.tools.threshold_overrides["warp_divergence"]["max_active_threads_per_instruction"] = 2;
  Diagnosis diagnosis = Diagnose(LoadFixture("warp_divergence", kWithoutSourcePage), options);
  ASSERT_EQ(diagnosis.kernels.size(), 1u);
  EXPECT_EQ(FindFinding(diagnosis.kernels.front(), "warp_divergence"), nullptr);
}

}  // namespace
}  // namespace kopt
