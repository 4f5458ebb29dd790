// Tests of the sm_load_imbalance tool (analysis/tools/sm_load_imbalance.cc) on the H200 fixtures.
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

TEST(OccupancyTools, ImbalanceAbsorbsTheGapAndTailItCauses) {
  KernelDiagnosis kernel = DiagnoseFixture("sm_load_imbalance");
  const Finding* finding = FindFinding(kernel, "sm_load_imbalance");
  ASSERT_NE(finding, nullptr);
  // The gap (56% achieved of 100%) and the tail are the imbalance's mechanism: folded in (their evidence
  // joins the imbalance finding) and, when listed, secondary causes after it with at most its gain.
  EXPECT_EQ(kernel.findings.front().tool, "sm_load_imbalance") << DescribeFindings(kernel);
  for (const char* mechanism : {"achieved_occupancy_gap", "tail_effect"}) {
    const Finding* secondary = FindFinding(kernel, mechanism);
    if (!secondary) continue;
    EXPECT_LE(secondary->estimated_gain, finding->estimated_gain) << DescribeFindings(kernel);
    EXPECT_NE(secondary->gain_method.find("a secondary cause: sm_load_imbalance"), std::string::npos)
        << secondary->gain_method;
  }
  EXPECT_GT(finding->estimated_gain, 0.5);
}

TEST(OccupancyTools, TailEffectKernelIsNotCalledImbalanced) {
  KernelDiagnosis kernel = DiagnoseFixture("tail_effect");
  EXPECT_EQ(FindFinding(kernel, "sm_load_imbalance"), nullptr) << DescribeFindings(kernel);
  const Finding* tail = FindFinding(kernel, "tail_effect");
  ASSERT_NE(tail, nullptr);
  // 1.06 waves; measured idle SM time bounds the uniform-block estimate (47%).
  EXPECT_GT(tail->estimated_gain, 0.2);
  EXPECT_LT(tail->estimated_gain, 0.47);
}

}  // namespace
}  // namespace kopt
