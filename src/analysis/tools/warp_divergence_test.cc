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

// Issue 18, round 4: a 22 µs uint8 -> float normalize whose SM throughput (86%) is the ADU pipe (a
// per-thread index into a parameter table) while the schedulers issue 30% of the cycles: the predicated-off
// lanes are weighed by the issue rate, not by the ADU's load, and neither they nor the integer work the raw
// page shows are above minor on this healthy kernel.
TEST(ComputeTools, AduLoadIsNotComputeLimitedWork) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind6", "short_u8_image_normalize_18mb", "", parts);
    for (const Finding& finding : kernel.findings)
      EXPECT_LE(finding.severity, Severity::kMinor) << DescribeFindings(kernel);
    EXPECT_EQ(FindFinding(kernel, "int64_index_arithmetic"), nullptr) << DescribeFindings(kernel);
  }
}

}  // namespace
}  // namespace kopt
