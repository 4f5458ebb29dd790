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

}  // namespace
}  // namespace kopt
