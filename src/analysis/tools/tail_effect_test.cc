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

// Issue 18, round 4: 1.25 waves of 512-thread blocks, four per SM: every SM keeps a block of the last wave,
// so the SM active cycles show no idle time (0.1%); the empty warp slots do (70% achieved occupancy of
// 100%), priced by the latency-hiding model at the issue rate (69.5%): about 15%.
TEST(OccupancyTools, TailPastOneWaveShowsInTheEmptyWarpSlots) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind6", "tail_photon_walk_waves", "", parts);
    ASSERT_FALSE(kernel.findings.empty()) << DescribeFindings(kernel);
    const Finding& finding = kernel.findings.front();
    EXPECT_EQ(finding.tool, "tail_effect") << DescribeFindings(kernel);
    EXPECT_GT(finding.estimated_gain, 0.1) << finding.gain_method;
    EXPECT_LT(finding.estimated_gain, 0.25) << finding.gain_method;
    EXPECT_NE(finding.gain_method.find("empty warp slots"), std::string::npos) << finding.gain_method;
  }
  // 1.55 waves of an FP64-bound kernel: the tail's empty slots cost less (9.8%) than the FP64 work.
  KernelDiagnosis mie = DiagnoseFixtureIn("h200_blind5", "fp64_mie_potential_pairs");
  ASSERT_FALSE(mie.findings.empty());
  EXPECT_EQ(mie.findings.front().tool, "accidental_fp64") << DescribeFindings(mie);
}

}  // namespace
}  // namespace kopt
