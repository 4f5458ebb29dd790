// Tests of the achieved_occupancy_gap tool (analysis/tools/achieved_occupancy_gap.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(AchievedOccupancyGap, GainComesFromTheLatencyModel) {
  KernelDiagnosis kernel = DiagnoseFixture("achieved_occupancy_gap");
  const Finding* finding = FindFinding(kernel, "achieved_occupancy_gap");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  EXPECT_NE(finding->gain_method.find("latency-hiding model"), std::string::npos) << finding->gain_method;
  EXPECT_EQ(FindFinding(kernel, "low_occupancy_registers"), nullptr) << DescribeFindings(kernel);
}

}  // namespace
}  // namespace kopt
