// Tests of the atomic_contention tool (analysis/tools/atomic_contention.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(AtomicContention, PointsAtTheAtomics) {
  KernelDiagnosis kernel = DiagnoseFixture("atomic_contention");
  const Finding* finding = FindFinding(kernel, "atomic_contention");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  ASSERT_FALSE(finding->locations.empty());
  // The tool's own locations come first; those of the findings it subsumes follow.
  const std::string& text = finding->locations.front().sass_text;
  EXPECT_TRUE(text.find("ATOM") != std::string::npos || text.find("RED") != std::string::npos) << text;
}

TEST(AtomicContention, SilentOnAKernelWithoutAtomics) {
  KernelDiagnosis kernel = DiagnoseFixture("healthy_dram_copy");
  EXPECT_EQ(FindFinding(kernel, "atomic_contention"), nullptr) << DescribeFindings(kernel);
}

}  // namespace
}  // namespace kopt
