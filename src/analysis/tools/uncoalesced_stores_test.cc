// Tests of the uncoalesced_stores tool (analysis/tools/uncoalesced_stores.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

// The store variant reads the store counters and points at STG instructions.
TEST(UncoalescedStores, PointsAtTheStores) {
  const ToolDefinition* tool = FindTool("uncoalesced_stores");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->required.front().name, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
  KernelDiagnosis kernel = DiagnoseFixture("uncoalesced_stores");
  const Finding* finding = FindFinding(kernel, "uncoalesced_stores");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  ASSERT_FALSE(finding->locations.empty());
  // The tool's own locations come first; those of the findings it subsumes follow.
  EXPECT_NE(finding->locations.front().sass_text.find("STG"), std::string::npos)
      << finding->locations.front().sass_text;
  EXPECT_EQ(FindFinding(kernel, "uncoalesced_loads"), nullptr) << DescribeFindings(kernel);
}

// Issue 18, round 4: a DRAM-bound int8 -> bf16 dequantization writes each thread's 32 bytes as two 16-byte
// stores, so every store sector is half used, but L2 merges the halves: DRAM moves the bytes the accesses
// use, at 95% of the measured floor for them. Coalescing cannot cut those bytes: the gain is bounded by
// that floor and the kernel keeps its healthy verdict.
TEST(UncoalescedStores, ExcessSectorsThatStopAtL2AreBoundedByTheDramFloor) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind4", "healthy_int8_dequant_bf16", "", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "healthy") << DescribeFindings(kernel);
    for (const Finding& finding : kernel.findings)
      EXPECT_LE(finding.severity, Severity::kMinor) << DescribeFindings(kernel);
  }
}

}  // namespace
}  // namespace kopt
