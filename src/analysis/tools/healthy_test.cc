// Tests of the healthy verdict (analysis/tools/healthy.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

// Near the ceiling the verdict ranks first, as information, naming the next-order gain.
TEST(Healthy, VerdictRanksFirstOnHealthyKernels) {
  for (const char* name : {"healthy_dram_copy", "healthy_fp32_fma"}) {
    KernelDiagnosis kernel = DiagnoseFixture(name);
    ASSERT_FALSE(kernel.findings.empty()) << name;
    EXPECT_EQ(kernel.findings.front().tool, "healthy") << name << ": " << DescribeFindings(kernel);
    EXPECT_EQ(kernel.findings.front().severity, Severity::kInfo) << name;
    EXPECT_FALSE(kernel.findings.front().recommendations.empty()) << name;
  }
}

TEST(Healthy, NoVerdictOnAPlantedBottleneck) {
  KernelDiagnosis kernel = DiagnoseFixture("uncoalesced_loads");
  EXPECT_EQ(FindFinding(kernel, "healthy"), nullptr) << DescribeFindings(kernel);
}

}  // namespace
}  // namespace kopt
