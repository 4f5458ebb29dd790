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

// Issue-bound (blind set 2's mufu_logistic_loss: issue slots 93% busy, XU pipe 54%, under the 60% of a
// saturated pipe): accurate expf/log1pf and IEEE divisions spread over the XU, FMA and ALU pipes. Found
// with the bundle and from the raw page alone, ranked first, the gain bounded by the XU pipe's load.
TEST(MufuDivisionPressure, IssueBoundAccurateSequencesAreFound) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind2", "mufu_logistic_loss", "", parts);
    ASSERT_FALSE(kernel.findings.empty());
    const Finding& finding = kernel.findings.front();
    EXPECT_EQ(finding.tool, "mufu_division_pressure") << DescribeFindings(kernel);
    // (1 − XU 53.7 / issue 93.4) × SM 93%: at most what the XU pipe leaves.
    EXPECT_GT(finding.estimated_gain, 0.3) << finding.gain_method;
    EXPECT_LT(finding.estimated_gain, 0.45) << finding.gain_method;
    bool issue_evidence = std::any_of(
        finding.evidence.begin(), finding.evidence.end(),
        [](const Evidence& e) { return e.metric == "smsp__issue_active.avg.pct_of_peak_sustained_active"; });
    EXPECT_TRUE(issue_evidence);
    EXPECT_NE(finding.recommendations.front().change.find("__expf"), std::string::npos);
  }
}

// The issue-bound path needs the accurate sequences in SASS: the same metrics with the listing of a
// kernel already on intrinsics (blind set 1's healthy_fast_sigmoid: __expf, __fdividef; no FCHK,
// slow-path CALL or FFMA.RM) give no finding; with the kernel's own listing they do.
TEST(MufuDivisionPressure, IssueBoundPathNeedsAccurateSequencesInSass) {
  auto raw = ReadFixtureText(FixturePathIn("h200_blind2", "mufu_logistic_loss", "raw.csv"));
  ASSERT_TRUE(raw.has_value());
  auto launches = ParseNcuRawCsv(*raw, "raw.csv");
  ASSERT_TRUE(launches.ok() && !launches->empty());
  const ToolDefinition* tool = FindTool("mufu_division_pressure");
  ASSERT_NE(tool, nullptr);
  std::map<std::string, double> thresholds = ResolveThresholds(*tool, OrchestrationOptions{});
  RooflineAnalysis roofline;
  roofline.sm_throughput_percent = 93;
  std::vector<StallReason> stalls;
  auto run_with_listing = [&](const std::string& set, const std::string& kernel) -> std::optional<Finding> {
    auto text = ReadFixtureText(FixturePathIn(set, kernel, "sass.txt"));
    EXPECT_TRUE(text.has_value()) << kernel;
    auto listing = ParseSass(text.value_or(""), "sass.txt");
    EXPECT_TRUE(listing.ok() && !listing->functions.empty()) << kernel;
    if (!listing.ok() || listing->functions.empty()) return std::nullopt;
    ToolContext context{launches->front(), roofline, stalls,  nullptr,    &listing->functions.front(),
                        nullptr,           nullptr,  nullptr, &thresholds};
    return tool->analyze(context);
  };
  EXPECT_TRUE(run_with_listing("h200_blind2", "mufu_logistic_loss").has_value());
  EXPECT_FALSE(run_with_listing("h200_blind", "healthy_fast_sigmoid").has_value());
}

// Issue-bound kernels whose XU pipe is quiet are not special-function work: the FMA-bound Horner
// polynomial (issue 100%, XU 0%) and the integer hash gather (XU 28%: integer-division reciprocals).
TEST(MufuDivisionPressure, NotOnIssueBoundKernelsWithoutXuWork) {
  for (const char* name : {"healthy_fma_horner", "int64_hash_gather", "collatz_steps"}) {
    for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
      KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind2", name, "", parts);
      EXPECT_EQ(FindFinding(kernel, "mufu_division_pressure"), nullptr) << name << "\n"
                                                                        << DescribeFindings(kernel);
    }
  }
}

// The first finding's tool, or "" when there is none.
std::string TopTool(const KernelDiagnosis& kernel) {
  return kernel.findings.empty() ? std::string() : kernel.findings.front().tool;
}

// Issue 18, blind set 3: IEEE divisions whose lanes take the slow path (a denormal or zero numerator after an
// underflowing expf) spend two thirds of the executed instructions in the slow-path subroutine with ~4 lanes
// active. With the source page that is the finding (and not warp divergence: the kernel's own code runs
// with full warps); from the raw page alone the issue-bound path finds the accurate sequences.
TEST(ComputeTools, DivisionSlowPathsAreTheDivisionsCostNotDivergence) {
  KernelDiagnosis bundle = DiagnoseFixtureIn("h200_blind3", "gmm_loglik_div_exp", "gmm_loglik_div_exp");
  EXPECT_EQ(TopTool(bundle), "mufu_division_pressure") << DescribeFindings(bundle);
  EXPECT_EQ(FindFinding(bundle, "warp_divergence"), nullptr) << DescribeFindings(bundle);
  const Finding* finding = FindFinding(bundle, "mufu_division_pressure");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->title.find("slow paths"), std::string::npos) << finding->title;
  KernelDiagnosis raw =
      DiagnoseFixtureIn("h200_blind3", "gmm_loglik_div_exp", "gmm_loglik_div_exp", kRawPageOnly);
  EXPECT_EQ(TopTool(raw), "mufu_division_pressure") << DescribeFindings(raw);
}

// An all-pairs force with an IEEE sqrt and division per pair issues on 73% of the cycles with the XU pipe at
// 53%: the accurate sequences are the work (issue-bound path at >= 70% issue), bundle and raw page alike.
TEST(ComputeTools, AccurateSqrtAndDivisionPerPairAreIssueBound) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel =
        DiagnoseFixtureIn("h200_blind3", "nbody_sqrt_div_forces", "nbody_sqrt_div_forces", parts);
    EXPECT_EQ(TopTool(kernel), "mufu_division_pressure") << DescribeFindings(kernel);
  }
}

// A double pow routine called from the kernel is FP64 math, not a float slow path: accidental_fp64 stays
// first.
TEST(ComputeTools, DoubleMathRoutineIsNotAFloatSlowPath) {
  KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind2", "fp64_pow_rms");
  EXPECT_EQ(TopTool(kernel), "accidental_fp64") << DescribeFindings(kernel);
}

// Issue 18, round 3: a log-sum-exp mixture with an IEEE division, two accurate logf and an expf per
// component issues on 95% of its cycles with the XU pipe at 28%: MUFU are 3.5% of the cycles and their
// sequences (~16 instructions each) about half of the issued work. The issue-bound bound is relative to the
// issue rate (XU >= issue active / 4: 24% here), so the kernel is no longer left without a finding, bundle
// and raw page alike; a kernel issuing on fewer cycles needs proportionally less XU work.
TEST(ComputeTools, IssueBoundXuBoundScalesWithTheIssueRate) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind5", "mufu_studentt_mixture", "", parts);
    EXPECT_EQ(TopTool(kernel), "mufu_division_pressure") << DescribeFindings(kernel);
    const Finding* finding = FindFinding(kernel, "mufu_division_pressure");
    ASSERT_NE(finding, nullptr);
    EXPECT_NE(finding->title.find("fill the issue slots"), std::string::npos) << finding->title;
  }
  // An integer-hash gather at 72% issue and 28% XU (integer-division reciprocals, little FP work) stays
  // with index arithmetic.
  KernelDiagnosis hash = DiagnoseFixtureIn("h200_blind2", "int64_hash_gather");
  EXPECT_EQ(FindFinding(hash, "mufu_division_pressure"), nullptr) << DescribeFindings(hash);
}

// Issue 18, round 3: an RBF Gram row sum with two IEEE divisions and an expf per pair on 128 blocks (two
// warps per scheduler, latency-bound) issues on 44% of its cycles with the XU pipe at 43%: for the work
// it issues the XU pipe is saturated, though under the fixed 60%. In a latency-bound kernel the bar scales
// with the issue rate, so the MUFU finding is listed beside the grid's occupancy gap, bundle and raw page
// alike; the FP64-conversion XU work of a latency-bound double kernel stays accidental_fp64's.
TEST(ComputeTools, XuBarScalesWithTheIssueRateWhenLatencyBound) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind4", "mufu_rbf_gram_rowsum", "", parts);
    bool in_top_three = false;
    for (size_t i = 0; i < kernel.findings.size() && i < 3; ++i)
      in_top_three = in_top_three || kernel.findings[i].tool == "mufu_division_pressure";
    EXPECT_TRUE(in_top_three) << DescribeFindings(kernel);
    KernelDiagnosis coulomb = DiagnoseFixtureIn("h200_blind4", "fp64_coulomb_constant_pairs", "", parts);
    EXPECT_EQ(FindFinding(coulomb, "mufu_division_pressure"), nullptr) << DescribeFindings(coulomb);
  }
}

// Issue 18, blind set 7: the textbook focal loss (expf, an IEEE reciprocal, powf with a run-time gamma,
// logf) issues 3 MUFU beside 3 FRND (powf's integer-exponent test and range reductions) and one F2I in its
// main body: the roundings are float math of the same sequences, so the issue-bound finding is named with
// the listing as without it (before: MUFU 3 of 7 XU instructions, below the 50% share, no finding).
TEST(MufuDivisionPressure, FloatRoundingsCountWithTheSpecialFunctions) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind7", "mufu_focal_loss_logits", "", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "mufu_division_pressure") << DescribeFindings(kernel);
  }
}

}  // namespace
}  // namespace kopt
