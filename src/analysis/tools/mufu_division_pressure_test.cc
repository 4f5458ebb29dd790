// Tests of the mufu_division_pressure tool (analysis/tools/mufu_division_pressure.cc) on the H200 fixtures.
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

// The XU-pipe work of each planted kernel belongs to one tool only.
TEST(ComputeTools, XuPipeWorkIsAttributedToOneTool) {
  KernelDiagnosis fp64 = DiagnoseFixture("accidental_fp64", {}, kWithoutSourcePage);
  EXPECT_EQ(FindFinding(fp64, "mufu_division_pressure"), nullptr) << DescribeFindings(fp64);
  KernelDiagnosis index = DiagnoseFixture("int64_index_arithmetic", {}, kWithoutSourcePage);
  EXPECT_EQ(FindFinding(index, "mufu_division_pressure"), nullptr) << DescribeFindings(index);
  KernelDiagnosis mufu = DiagnoseFixture("mufu_division_pressure", {}, kWithoutSourcePage);
  EXPECT_EQ(FindFinding(mufu, "int64_index_arithmetic"), nullptr) << DescribeFindings(mufu);
  EXPECT_EQ(FindFinding(mufu, "accidental_fp64"), nullptr) << DescribeFindings(mufu);
}

}  // namespace
}  // namespace kopt
