// Tests of the shared_bank_conflicts tool (analysis/tools/shared_bank_conflicts.cc) on the H200 fixtures.
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

TEST(MemoryTools, BankConflictsReportThirtyTwoWay) {
  KernelDiagnosis diagnosis = DiagnoseFixture("shared_bank_conflicts");
  const Finding* finding = FindFinding(diagnosis, "shared_bank_conflicts");
  ASSERT_NE(finding, nullptr);
  bool found = false;
  for (const Evidence& evidence : finding->evidence) {
    if (evidence.metric.find("n-way") != std::string::npos &&
        evidence.metric.find("ld") != std::string::npos) {
      EXPECT_NEAR(evidence.value, 32, 0.5);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace kopt
