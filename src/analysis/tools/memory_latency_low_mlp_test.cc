// Tests of the memory_latency_low_mlp tool (analysis/tools/memory_latency_low_mlp.cc) on the H200 fixtures.
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

TEST(MemoryTools, LatencyIsSubsumedByTheToolsThatExplainIt) {
  for (const char* id : {"uncoalesced_loads", "local_memory_spills"}) {
    const ToolDefinition* tool = FindTool(id);
    ASSERT_NE(tool, nullptr) << id;
    EXPECT_NE(std::find(tool->subsumes.begin(), tool->subsumes.end(), "memory_latency_low_mlp"),
              tool->subsumes.end())
        << id;
  }
}

// Issue 18, round 3 (top three): a finding folded into the one that subsumes it stays listed as a
// secondary cause. 24 dependent scattered loads per thread: the scattered sectors are uncoalesced_loads'
// (first), the one-load-in-flight latency is listed after it, no longer dropped, bundle and raw page alike.
TEST(MemoryTools, SubsumedLatencyStaysListedAsASecondaryCause) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind2", "dependent_chain_gather", "", parts);
    ASSERT_GE(kernel.findings.size(), 2u) << DescribeFindings(kernel);
    EXPECT_EQ(kernel.findings[0].tool, "uncoalesced_loads") << DescribeFindings(kernel);
    EXPECT_EQ(kernel.findings[1].tool, "memory_latency_low_mlp") << DescribeFindings(kernel);
    EXPECT_LE(kernel.findings[1].estimated_gain, kernel.findings[0].estimated_gain);
    EXPECT_NE(kernel.findings[1].gain_method.find("a secondary cause: uncoalesced_loads"), std::string::npos);
    const std::vector<std::string>& merged = kernel.findings[0].merged_tools;
    EXPECT_NE(std::find(merged.begin(), merged.end(), "memory_latency_low_mlp"), merged.end());
  }
}

}  // namespace
}  // namespace kopt
