// Tests of the barrier_stalls tool (analysis/tools/barrier_stalls.cc) on the H200 fixtures.
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

TEST(OccupancyTools, BarrierStallsPointAtTheBarrier) {
  KernelDiagnosis kernel = DiagnoseFixture("barrier_stalls");
  const Finding* finding = FindFinding(kernel, "barrier_stalls");
  ASSERT_NE(finding, nullptr);
  ASSERT_FALSE(finding->locations.empty());
  EXPECT_NE(finding->locations[0].sass_text.find("BAR"), std::string::npos)
      << finding->locations[0].sass_text;
  EXPECT_GT(finding->locations[0].stall_share, 0.3);
}

// Issue 18: barrier waits of a fifth of the stall cycles are a real secondary cause: the first blind set's
// reduction with a __syncthreads at every level gets the barrier finding among its first three.
TEST(OccupancyTools, BarrierStallsAtAFifthOfTheStallsAreASecondaryCause) {
  KernelDiagnosis kernel = DiagnoseBlindFixture("reduce_sync_every_level");
  bool in_top_three = false;
  for (size_t i = 0; i < kernel.findings.size() && i < 3; ++i)
    in_top_three = in_top_three || kernel.findings[i].tool == "barrier_stalls";
  EXPECT_TRUE(in_top_three) << DescribeFindings(kernel);
}

}  // namespace
}  // namespace kopt
