// Tests of the low_occupancy tool (analysis/tools/low_occupancy.cc) on the H200 fixtures.
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

// Synthetic register-limited launch: 25% occupancy, registers allow 2 blocks.
std::vector<std::pair<std::string, double>> RegisterLimitedMetrics(double issue_percent) {
  return {{"sm__maximum_warps_per_active_cycle_pct", 25},
          {"sm__warps_active.avg.pct_of_peak_sustained_active", 25},
          {"launch__occupancy_limit_registers", 2},
          {"launch__occupancy_limit_shared_mem", 8},
          {"launch__occupancy_limit_warps", 8},
          {"launch__occupancy_limit_blocks", 32},
          {"launch__registers_per_thread", 128},
          {"device__attribute_max_warps_per_multiprocessor", 64},
          {"smsp__issue_active.avg.pct_of_peak_sustained_active", issue_percent}};
}

TEST(OccupancyTools, LimiterNamesRegistersAndProposesLaunchBounds) {
  KernelDiagnosis kernel = DiagnoseFixture("low_occupancy_registers");
  const Finding* finding = FindFinding(kernel, "low_occupancy_registers");
  ASSERT_NE(finding, nullptr);
  // 167 registers × 256 threads: one block per SM (12.5%); doubling needs <= 128 registers.
  EXPECT_NE(finding->title.find("registers"), std::string::npos) << finding->title;
  ASSERT_FALSE(finding->recommendations.empty());
  EXPECT_NE(finding->recommendations[0].change.find("__launch_bounds__(256, 2)"), std::string::npos)
      << finding->recommendations[0].change;
  EXPECT_NE(finding->recommendations[0].change.find("128 registers"), std::string::npos);
  // Issue slots half used: the calibrated model gives about a 2x speedup, not more.
  EXPECT_GT(finding->estimated_gain, 0.35);
  EXPECT_LT(finding->estimated_gain, 0.55);
}

TEST(OccupancyTools, SharedMemoryLimiterOnMemoryStream) {
  KernelDiagnosis kernel = DiagnoseFixture("low_occupancy_shared_memory");
  const Finding* finding = FindFinding(kernel, "low_occupancy_shared_memory");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->title.find("shared memory"), std::string::npos);
  // 4% issue with 8 of 64 warps: nearly all of the time is exposed latency.
  EXPECT_GT(finding->estimated_gain, 0.6);
}

// Secondary effects: low occupancy on kernels whose issue slots are busy costs
// less than on the planted kernels.
TEST(OccupancyTools, SecondaryLowOccupancyIsWeighedByIdleIssueSlots) {
  KernelDiagnosis gemm = DiagnoseFixture("fp32_gemm_no_tensor_cores");
  const Finding* finding = FindFinding(gemm, "low_occupancy_registers");
  if (finding) EXPECT_LT(finding->estimated_gain, 0.3) << finding->gain_method;
  KernelDiagnosis planted = DiagnoseFixture("low_occupancy_registers");
  const Finding* planted_finding = FindFinding(planted, "low_occupancy_registers");
  ASSERT_NE(planted_finding, nullptr);
  if (finding) EXPECT_LT(finding->estimated_gain, planted_finding->estimated_gain);
}

TEST(OccupancyTools, LowOccupancyCostsNothingWhenIssueSlotsAreFull) {
  EXPECT_FALSE(RunTool("low_occupancy", SyntheticLaunch(RegisterLimitedMetrics(99.5)), 50).has_value());
  auto idle = RunTool("low_occupancy", SyntheticLaunch(RegisterLimitedMetrics(10)), 10);
  ASSERT_TRUE(idle.has_value());
  EXPECT_EQ(idle->tool, "low_occupancy_registers");
  // u = 10%, 4x the warps: u' = 1 − 0.9^4 = 34.4%, gain 1 − 10/34.4 = 70.9%.
  EXPECT_NEAR(idle->estimated_gain, 1 - 0.1 / (1 - std::pow(0.9, 4)), 1e-6);
}

TEST(OccupancyTools, LowOccupancyGainStopsAtTheThroughputHeadroom) {
  auto busy = RunTool("low_occupancy", SyntheticLaunch(RegisterLimitedMetrics(10)), 85);
  // Reachable peak 90%: at 85% of peak only 1 − 85/90 of the time can go.
  ASSERT_TRUE(busy.has_value());
  EXPECT_NEAR(busy->estimated_gain, 1 - 85.0 / 90, 1e-6);
}

TEST(OccupancyTools, TiedLimitersTargetTheNextLimit) {
  auto metrics = RegisterLimitedMetrics(5);
  metrics[3] = {"launch__occupancy_limit_shared_mem", 2};  // registers and shared memory both allow 2 blocks
  metrics.push_back({"launch__block_size", 256});
  auto finding = RunTool("low_occupancy", SyntheticLaunch(metrics), 10);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->tool, "low_occupancy_registers");
  EXPECT_NE(finding->title.find("registers and shared memory"), std::string::npos) << finding->title;
}

TEST(OccupancyTools, SmallBlocksAreNamedAsTheLimiter) {
  std::vector<std::pair<std::string, double>> metrics = {
      {"sm__maximum_warps_per_active_cycle_pct", 50},
      {"launch__occupancy_limit_registers", 64},
      {"launch__occupancy_limit_shared_mem", 64},
      {"launch__occupancy_limit_warps", 64},
      {"launch__occupancy_limit_blocks", 32},
      {"launch__block_size", 32},
      {"device__attribute_max_warps_per_multiprocessor", 64},
      {"smsp__issue_active.avg.pct_of_peak_sustained_active", 5}};
  KernelLaunch launch = SyntheticLaunch(metrics);
  launch.block = {32, 1, 1};
  auto finding = RunTool("low_occupancy", launch, 10);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->tool, "low_occupancy_blocks");
  ASSERT_FALSE(finding->recommendations.empty());
  EXPECT_NE(finding->recommendations[0].change.find("at least 64 threads"), std::string::npos)
      << finding->recommendations[0].change;
}

}  // namespace
}  // namespace kopt
