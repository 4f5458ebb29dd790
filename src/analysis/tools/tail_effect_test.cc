// Tests of the tail_effect tool (analysis/tools/tail_effect.cc) on the H200 fixtures.
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

TEST(OccupancyTools, TailEffectIsNotReportedForANearlyFullLastWave) {
  // 1.94 waves: ncu's LaunchConfiguration claims 50%; the last wave is 94% full.
  KernelDiagnosis kernel = DiagnoseFixture("fp32_gemm_no_tensor_cores");
  EXPECT_EQ(FindFinding(kernel, "tail_effect"), nullptr) << DescribeFindings(kernel);
}

TEST(OccupancyTools, ThresholdOverridesApply) {
  DiagnoseOptions options;
  options.tools.threshold_overrides["tail_effect"]["min_gain"] = 0.9;
  Diagnosis diagnosis = Diagnose(LoadFixture("tail_effect"), options);
  ASSERT_FALSE(diagnosis.kernels.empty());
  EXPECT_EQ(FindFinding(diagnosis.kernels[0], "tail_effect"), nullptr);
}

TEST(OccupancyTools, TooFewBlocksWithoutActivityMetrics) {
  auto finding = RunTool(
      "tail_effect",
      SyntheticLaunch(
          {{"launch__waves_per_multiprocessor", 0.25}, {"launch__grid_size", 33}, {"launch__sm_count", 132}}),
      10);
  ASSERT_TRUE(finding.has_value());
  EXPECT_NE(finding->title.find("Too few blocks"), std::string::npos);
  EXPECT_NEAR(finding->estimated_gain, 1 - 33.0 / 132, 1e-9);
  EXPECT_LT(finding->confidence, 0.7);
}

}  // namespace
}  // namespace kopt
