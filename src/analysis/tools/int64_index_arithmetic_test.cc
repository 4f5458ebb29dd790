// Tests of the int64_index_arithmetic tool (analysis/tools/int64_index_arithmetic.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(Int64IndexArithmetic, FiresOnlyWhereDivisionsAre) {
  KernelDiagnosis kernel = DiagnoseFixture("int64_index_arithmetic", {}, kWithoutSourcePage);
  const Finding* finding = FindFinding(kernel, "int64_index_arithmetic");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  EXPECT_FALSE(finding->locations.empty());
  KernelDiagnosis copy = DiagnoseFixture("healthy_dram_copy", {}, kWithoutSourcePage);
  EXPECT_EQ(FindFinding(copy, "int64_index_arithmetic"), nullptr) << DescribeFindings(copy);
}

}  // namespace
}  // namespace kopt
