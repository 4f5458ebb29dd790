// Tests of the int64_index_arithmetic tool (analysis/tools/int64_index_arithmetic.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(Int64IndexArithmetic, FiresOnlyWhereDivisionsAre) {
  KernelDiagnosis kernel = DiagnoseFixture("int64_index_arithmetic", {}, kWithoutSourcePage);
  const Finding* finding = FindFinding(kernel, "int64_index_arithmetic");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  EXPECT_FALSE(finding->locations.empty());
  KernelDiagnosis copy = DiagnoseFixture("healthy_dram_copy", {}, kWithoutSourcePage);
  EXPECT_EQ(FindFinding(copy, "int64_index_arithmetic"), nullptr) << DescribeFindings(copy);
}

// From the raw page alone, integer work far beyond what addresses need (blind set 2's collatz_steps:
// ~3,600 integer instructions per memory access, the 64-bit Collatz iteration itself) is the
// computation, not index arithmetic: no finding, and the divergence ranks first. The planted index
// kernels (45-90 integer instructions per access) still fire without SASS.
TEST(Int64IndexArithmetic, WithoutSassIntegerComputationIsNotIndexArithmetic) {
  KernelDiagnosis collatz = DiagnoseFixtureIn("h200_blind2", "collatz_steps", "", kRawPageOnly);
  EXPECT_EQ(FindFinding(collatz, "int64_index_arithmetic"), nullptr) << DescribeFindings(collatz);
  ASSERT_FALSE(collatz.findings.empty());
  EXPECT_EQ(collatz.findings.front().tool, "warp_divergence") << DescribeFindings(collatz);
  KernelDiagnosis index = DiagnoseFixture("int64_index_arithmetic", {}, kRawPageOnly);
  EXPECT_NE(FindFinding(index, "int64_index_arithmetic"), nullptr) << DescribeFindings(index);
  KernelDiagnosis hash = DiagnoseFixtureIn("h200_blind2", "int64_hash_gather", "", kRawPageOnly);
  EXPECT_NE(FindFinding(hash, "int64_index_arithmetic"), nullptr) << DescribeFindings(hash);
}

// Issue 18, blind set 3: a modulo by a kernel argument inside an unrolled 12-tap loop: nvcc computes the
// reciprocal once and each modulo is a multiply-high by it plus fix-ups, interleaved with the loads. The
// data flow from the reciprocal finds them: the division code is the top finding with SASS as without.
TEST(Int64IndexArithmetic, HoistedReciprocalDivisionsAreFound) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel =
        DiagnoseFixtureIn("h200_blind3", "int_circular_delay_taps", "int_circular_delay_taps", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "int64_index_arithmetic") << DescribeFindings(kernel);
  }
  KernelDiagnosis bundle =
      DiagnoseFixtureIn("h200_blind3", "int_circular_delay_taps", "int_circular_delay_taps");
  const Finding* finding = FindFinding(bundle, "int64_index_arithmetic");
  ASSERT_NE(finding, nullptr);
  bool reuse_counted = false;
  for (const Evidence& evidence : finding->evidence) {
    if (evidence.metric.find("hoisted reciprocal") != std::string::npos)
      reuse_counted = evidence.value >= 11;  // 12 taps: 12 multiply-highs, one of them may be the setup's
  }
  EXPECT_TRUE(reuse_counted);
}

// Issue 18, round 3: twelve 64-bit modulos per window by a run-time size above 2^32 call the 64-bit
// division routine: the routine's executed instructions (source page), or each call at the routine's
// length (listing only), are division code. Before, only the main body's call sites counted and the kernel
// got no finding with the bundle while the raw page alone named it.
TEST(Int64IndexArithmetic, CalledDivisionRoutinesAreDivisionCode) {
  for (FixtureParts parts : {FixtureParts{}, kWithoutSourcePage, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind5", "int64_kmer_minimizer_mod", "", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "int64_index_arithmetic") << DescribeFindings(kernel);
    EXPECT_GT(kernel.findings.front().estimated_gain, 0.25) << DescribeFindings(kernel);
  }
}

// Issue 18, blind set 7: a generic 5-D tubelet unravel (ten 64-bit div/mod per element) is latency-bound:
// SM throughput 59% (below ncu's 60% compute-bound line) with the memory side idle (DRAM 11%, L2 14%). Its
// time is its instructions' dependent chains, so the division code is named first, bundle and CSV alike
// (before: only low_occupancy_registers).
TEST(Int64IndexArithmetic, LatencyBoundIndexKernelWithIdleMemoryIsNamed) {
  for (FixtureParts parts : {FixtureParts{}, kWithoutSourcePage, kRawPageOnly}) {
    KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind7", "int64_video_tubelet_patchify", "", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "int64_index_arithmetic") << DescribeFindings(kernel);
  }
}

}  // namespace
}  // namespace kopt
