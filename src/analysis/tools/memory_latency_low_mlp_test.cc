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

}  // namespace
}  // namespace kopt
