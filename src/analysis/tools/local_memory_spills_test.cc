// Tests of the local_memory_spills tool (analysis/tools/local_memory_spills.cc) on the H200 fixtures.
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

// accidental_fp64's 40-byte stack frame belongs to double sin()'s slow path,
// never taken: no local sectors move, so no local-memory finding.
TEST(MemoryTools, StackFrameWithoutLocalTrafficDoesNotFire) {
  Profile profile = LoadFixture("accidental_fp64");
  ASSERT_TRUE(profile.ptxas.has_value());
  KernelDiagnosis diagnosis = Diagnose(profile, {}).kernels.front();
  EXPECT_EQ(FindFinding(diagnosis, "local_memory_spills"), nullptr) << DescribeFindings(diagnosis);
}

TEST(MemoryTools, LocalMemoryMergesItsLongScoreboardStalls) {
  KernelDiagnosis diagnosis = DiagnoseFixture("local_memory_spills");
  const Finding* finding = FindFinding(diagnosis, "local_memory_spills");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(std::find(finding->merged_tools.begin(), finding->merged_tools.end(), "memory_latency_low_mlp"),
            finding->merged_tools.end());
  // Issue 18, round 3: the folded finding stays listed as a secondary cause, after the spills, with at most
  // their gain (it is no longer dropped, so that it can be second or third when the first is wrong).
  if (const Finding* latency = FindFinding(diagnosis, "memory_latency_low_mlp")) {
    EXPECT_LE(latency->estimated_gain, finding->estimated_gain);
    EXPECT_NE(latency->gain_method.find("a secondary cause: local_memory_spills"), std::string::npos)
        << latency->gain_method;
    EXPECT_EQ(diagnosis.findings.front().tool, "local_memory_spills") << DescribeFindings(diagnosis);
  }
}

}  // namespace
}  // namespace kopt
