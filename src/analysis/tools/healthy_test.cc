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

// Issue 18, kind 4: short streaming kernels of the blind set (5-8 µs, 8-17 MB of DRAM traffic) run at
// 34-46% of the DRAM peak; with the H200's measured ceilings they are at their size-limited ceiling:
// healthy, nothing above minor, and the advice is fusion or batching.
TEST(Healthy, ShortKernelsAtTheirSizeLimitedCeilingWithMeasuredCeilings) {
  for (const char* name : {"short_add_12mb", "short_axpy_24mb"}) {
    KernelDiagnosis kernel = DiagnoseBlindFixture(name);
    ASSERT_FALSE(kernel.findings.empty()) << name;
    const Finding& verdict = kernel.findings.front();
    EXPECT_EQ(verdict.tool, "healthy") << name << ": " << DescribeFindings(kernel);
    EXPECT_NE(verdict.title.find("size-limited"), std::string::npos) << verdict.title;
    ASSERT_FALSE(verdict.recommendations.empty());
    EXPECT_NE(verdict.recommendations.front().change.find("Fuse"), std::string::npos);
    for (const Finding& finding : kernel.findings)
      EXPECT_LE(finding.severity, Severity::kMinor) << name << ": " << DescribeFindings(kernel);
    EXPECT_GE(kernel.roofline.achievable_percent, 90) << name;
    EXPECT_FALSE(kernel.roofline.ceilings_table.empty());
  }
}

// Without a table the same kernels are judged against the peaks: no size-limited verdict.
TEST(Healthy, WithoutMeasuredCeilingsNoSizeLimitedVerdict) {
  KernelDiagnosis kernel = DiagnoseBlindFixture("short_add_12mb", "", {}, /*with_ceilings=*/false);
  EXPECT_EQ(kernel.roofline.achievable_percent, 0);
  for (const Finding& finding : kernel.findings)
    EXPECT_EQ(finding.title.find("size-limited"), std::string::npos) << finding.title;
}

// Issue 18, kind 1: an SM busy at high throughput with few FLOPs (the XU pipe running special functions,
// the integer pipe running index math) is not "healthy": the verdict needs the busy unit to do the work.
TEST(Healthy, NoVerdictWhenTheBusyUnitIsNotDoingTheArithmetic) {
  for (const char* name : {"mufu_division_pressure", "int64_index_arithmetic"}) {
    KernelDiagnosis kernel = DiagnoseFixture(name, {}, kRawPageOnly);
    EXPECT_EQ(FindFinding(kernel, "healthy"), nullptr) << name << ": " << DescribeFindings(kernel);
  }
}

// Issue 18, round 4 (kind 4): a 2.3 µs one-off kernel writing 256 KB runs faster than the measured floor
// of the smallest copy (the fixed cost of a launch): its few wasted load sectors cannot make it faster, so
// the verdict stands and nothing is above minor. A loop of tiny launches keeps its launch_overhead finding
// first: removing launches removes that fixed cost.
TEST(Healthy, TinyKernelAtTheFixedCostOfALaunch) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind6", "tiny_label_smoothing_targets_once", "", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "healthy") << DescribeFindings(kernel);
    for (const Finding& finding : kernel.findings)
      EXPECT_LE(finding.severity, Severity::kMinor) << DescribeFindings(kernel);
  }
  KernelDiagnosis launches = DiagnoseFixtureIn("h200_blind6", "kalman_track_launches");
  ASSERT_FALSE(launches.findings.empty());
  EXPECT_EQ(launches.findings.front().tool, "launch_overhead") << DescribeFindings(launches);
}

}  // namespace
}  // namespace kopt
