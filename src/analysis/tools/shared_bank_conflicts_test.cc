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

// Issue 18, kind 3: the wavefronts of wide (128-bit) and tensor-pipeline (wgmma/TMA) shared accesses are
// no bank conflicts: cuBLAS's TF32 Hopper GEMM (ncu counts 67 M "conflicts" for 67 M loads of 3.9
// wavefronts each) gets no conflict finding, with or without the listing, and nothing above minor.
TEST(MemoryTools, WideAndTensorPipelineWavefrontsAreNoConflicts) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseBlindFixture("cublas_tf32_gemm", "", parts);
    EXPECT_EQ(FindFinding(kernel, "shared_bank_conflicts"), nullptr) << DescribeFindings(kernel);
    for (const Finding& finding : kernel.findings)
      EXPECT_LE(finding.severity, Severity::kMinor) << DescribeFindings(kernel);
  }
  // The 32-way conflicts of the example kernel (32-bit accesses) stay a finding without the listing.
  KernelDiagnosis planted = DiagnoseFixture("shared_bank_conflicts", {}, kRawPageOnly);
  ASSERT_FALSE(planted.findings.empty());
  EXPECT_EQ(planted.findings.front().tool, "shared_bank_conflicts") << DescribeFindings(planted);
}

// Issue 18 (blind set 4): cuBLAS's batched fp16 Hopper GEMM counts 1.5 M conflicts on its epilogue stores
// (33% of the LSU store wavefronts, STSM beside STS) while the shared pipe serves 55 M wavefronts, most of
// them wgmma operand reads: the replays are under 3% of the pipe's work, no bank-conflict problem, and the
// kernel (85% of its fp16 tensor ceiling) gets nothing above minor, with or without the listing.
TEST(MemoryTools, ConflictsWeighAgainstEveryWavefrontOfTheSharedPipe) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind4", "cublas_batched_hgemm_experts", "", parts);
    const Finding* conflicts = FindFinding(kernel, "shared_bank_conflicts");
    if (conflicts) EXPECT_LT(conflicts->estimated_gain, 0.05) << DescribeFindings(kernel);
    for (const Finding& finding : kernel.findings)
      EXPECT_LE(finding.severity, Severity::kMinor) << DescribeFindings(kernel);
  }
  // Without tensor-pipe traffic the LSU wavefronts are the pipe's: the transpose's conflicts stay first.
  KernelDiagnosis transpose = DiagnoseFixtureIn("h200_blind4", "smem_tile_transpose_nopad", "", kRawPageOnly);
  ASSERT_FALSE(transpose.findings.empty());
  EXPECT_EQ(transpose.findings.front().tool, "shared_bank_conflicts") << DescribeFindings(transpose);
}

// Issue 18, round 3: barrier-phased kernels (a bitonic sort, an odd-even transposition sort: 2-way conflicts
// on a shared pipe 92-95% busy, warps waiting at barriers for 24% of their stall cycles, more than the MIO
// queueing the replays cause) rank the barrier waits first and keep the conflicts as a secondary finding,
// with and without the listing; a conflict-bound kernel whose barrier share is as large (the 16-way
// transpose: 16% at barriers, 41% queued behind replays) keeps the conflicts first with the pipe estimate.
TEST(MemoryTools, BarrierPhasedKernelsRankBarrierWaitsAboveTheirConflicts) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    for (auto [set, kernel_name] : {std::pair<std::string, std::string>{"h200_blind3", "bitonic_sort_smem"},
                                    {"h200_blind5", "barrier_odd_even_tile_sort"}}) {
      KernelDiagnosis kernel = DiagnoseFixtureIn(set, kernel_name, "", parts);
      ASSERT_FALSE(kernel.findings.empty()) << kernel_name;
      EXPECT_EQ(kernel.findings.front().tool, "barrier_stalls") << DescribeFindings(kernel);
      const Finding* conflicts = FindFinding(kernel, "shared_bank_conflicts");
      ASSERT_NE(conflicts, nullptr) << DescribeFindings(kernel);  // listed, second
      EXPECT_LT(conflicts->estimated_gain, kernel.findings.front().estimated_gain);
      EXPECT_NE(conflicts->gain_method.find("barrier-phased"), std::string::npos) << conflicts->gain_method;
    }
    KernelDiagnosis transpose = DiagnoseFixtureIn("h200_blind4", "smem_tile_transpose_nopad", "", parts);
    ASSERT_FALSE(transpose.findings.empty());
    EXPECT_EQ(transpose.findings.front().tool, "shared_bank_conflicts") << DescribeFindings(transpose);
    EXPECT_EQ(transpose.findings.front().gain_method.find("barrier-phased"), std::string::npos);
  }
}

}  // namespace
}  // namespace kopt
