// Tests of the fp32_gemm_no_tensor_cores tool (analysis/tools/fp32_gemm_no_tensor_cores.cc) on the H200
// fixtures.
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

// An FFMA-bound kernel without shared-memory operands is not a matrix product.
TEST(ComputeTools, FmaBoundKernelIsNotAGemm) {
  for (const std::string& kernel_name : {"healthy_fp32_fma", "tail_effect", "low_occupancy_registers"}) {
    KernelDiagnosis kernel = DiagnoseFixture(kernel_name, {}, kWithoutSourcePage);
    EXPECT_EQ(FindFinding(kernel, "fp32_gemm_no_tensor_cores"), nullptr) << kernel_name;
    KernelDiagnosis raw_only = DiagnoseFixture(kernel_name, {}, kRawPageOnly);
    EXPECT_EQ(FindFinding(raw_only, "fp32_gemm_no_tensor_cores"), nullptr)
        << kernel_name << " (raw page only)";
  }
}

// Issue 18, kind 5: the metric signature (FFMA work, operands loaded every few FFMAs, high reuse per DRAM
// byte, idle tensor pipes) finds a GEMM whose FFMAs take their operands from global memory (a naive
// one, which the listing's shared-memory trace does not see) and any GEMM without a listing; the
// tensor-core finding is then in the top three.
TEST(ComputeTools, MetricSignatureFindsGemmsTheListingTraceDoesNot) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    for (const char* name : {"sgemm_naive", "sgemm_register_tiled"}) {
      KernelDiagnosis kernel = DiagnoseBlindFixture(name, "", parts);
      bool in_top_three = false;
      for (size_t i = 0; i < kernel.findings.size() && i < 3; ++i)
        in_top_three = in_top_three || kernel.findings[i].tool == "fp32_gemm_no_tensor_cores";
      EXPECT_TRUE(in_top_three) << name << ": " << DescribeFindings(kernel);
    }
  }
  KernelDiagnosis first_set = DiagnoseFixture("fp32_gemm_no_tensor_cores", {}, kRawPageOnly);
  EXPECT_NE(FindFinding(first_set, "fp32_gemm_no_tensor_cores"), nullptr) << DescribeFindings(first_set);
}

// Issue 18, blind set 3: the textbook 16x16 tile (one output per thread) stages two operand tiles per
// k-step of 16 FFMAs (0.125 stores per FFMA) and is limited by its shared loads, not its FFMAs; an HFMA2
// product on fp16 tiles is a product too. Both get the tensor-core finding first, bundle and CSV alike.
TEST(ComputeTools, TextbookTiledAndHalf2SimtProductsAreGemms) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    for (const char* name : {"sgemm_textbook_tiled", "hgemm_half2_simt"}) {
      KernelDiagnosis kernel = DiagnoseFixtureIn("h200_blind3", name, name, parts);
      ASSERT_FALSE(kernel.findings.empty()) << name;
      EXPECT_EQ(kernel.findings.front().tool, "fp32_gemm_no_tensor_cores")
          << name << ": " << DescribeFindings(kernel);
    }
  }
}

// An all-pairs force loop (FFMAs on shared-memory tiles, high reuse per DRAM byte) computes a sqrt and a
// division per pair: its XU pipe is as busy as its FMA pipe, which no product is. Neither path calls it a
// GEMM; nor does a staged kernel that loads about as much as it stores (the first set's barrier kernel).
TEST(ComputeTools, AllPairsInteractionAndStagedPassAreNotGemms) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis nbody =
        DiagnoseFixtureIn("h200_blind3", "nbody_sqrt_div_forces", "nbody_sqrt_div_forces", parts);
    EXPECT_EQ(FindFinding(nbody, "fp32_gemm_no_tensor_cores"), nullptr) << DescribeFindings(nbody);
    KernelDiagnosis staged = DiagnoseFixture("barrier_stalls", {}, parts);
    EXPECT_EQ(FindFinding(staged, "fp32_gemm_no_tensor_cores"), nullptr) << DescribeFindings(staged);
  }
}

// Issue 18, blind set 4: a naive fp16 GEMM converts both half operands to fp32 before each FFMA (Hopper's
// __half2float is HADD2.F32 Rd, -RZ, Rs, which ncu counts as a half add: two per FFMA). The conversions are
// no FP work of their own, so the FFMAs are the product's FP instructions and the tensor-core finding
// comes first, bundle and CSV alike (before: a third of the FP instructions, no product signature).
TEST(ComputeTools, HalfOperandConversionsAreNoFpWork) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel =
        DiagnoseFixtureIn("h200_blind4", "hgemm_naive_linear", "hgemm_naive_linear", parts);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "fp32_gemm_no_tensor_cores") << DescribeFindings(kernel);
  }
}

// Issue 18, blind set 7: a Metropolis walk (xorshift RNG, two shared-table lookups and a compare per step,
// one accumulating FFMA) loads every FFMA, stores almost never and touches 8.7 KB of DRAM: the metric
// signature's ratios look like a product, but only one warp instruction in 13 is an FFMA (a product's
// k-loop issues one in 3-8). It is no GEMM; its partial last wave comes first, bundle and CSV alike.
TEST(ComputeTools, FfmaRareAmongTheIssuedInstructionsIsNoGemm) {
  for (FixtureParts parts : {FixtureParts{}, kRawPageOnly}) {
    KernelDiagnosis kernel =
        DiagnoseFixtureIn("h200_blind7", "tail_mcmc_tempered_replicas", "tail_mcmc_tempered_replicas", parts);
    EXPECT_EQ(FindFinding(kernel, "fp32_gemm_no_tensor_cores"), nullptr) << DescribeFindings(kernel);
    ASSERT_FALSE(kernel.findings.empty());
    EXPECT_EQ(kernel.findings.front().tool, "tail_effect") << DescribeFindings(kernel);
  }
}

}  // namespace
}  // namespace kopt
