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

}  // namespace
}  // namespace kopt
