// Tests of the launch_overhead tool (analysis/tools/launch_overhead.cc) on the H200 fixtures.
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

TEST(OccupancyTools, LaunchOverheadNeedsManyLaunches) {
  Profile profile = LoadFixture("launch_overhead");
  ASSERT_GE(profile.launches.size(), 10u);
  profile.launches.resize(1);
  Diagnosis diagnosis = Diagnose(profile, DiagnoseOptions{});
  ASSERT_EQ(diagnosis.kernels.size(), 1u);
  EXPECT_EQ(FindFinding(diagnosis.kernels[0], "launch_overhead"), nullptr);
}

}  // namespace
}  // namespace kopt
