// Tests of the hmma_on_hopper tool (analysis/tools/hmma_on_hopper.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <string>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(HmmaOnHopper, PointsAtTheMmaSyncInstructions) {
  KernelDiagnosis kernel = DiagnoseFixture("hmma_on_hopper", {}, kWithoutSourcePage);
  const Finding* finding = FindFinding(kernel, "hmma_on_hopper");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  ASSERT_FALSE(finding->locations.empty());
  EXPECT_NE(finding->locations.front().sass_text.find("HMMA"), std::string::npos)
      << finding->locations.front().sass_text;
}

TEST(HmmaOnHopper, SilentWithoutTensorWork) {
  KernelDiagnosis kernel = DiagnoseFixture("fp32_gemm_no_tensor_cores", {}, kWithoutSourcePage);
  EXPECT_EQ(FindFinding(kernel, "hmma_on_hopper"), nullptr) << DescribeFindings(kernel);
}

// Issue 18 (a raw CSV finds what its metrics allow): without the listing, tensor FLOPs counted while the
// warpgroup (gmma) pipe issued nothing are the mma.sync path; cuBLAS's wgmma GEMM is not flagged.
TEST(HmmaOnHopper, RawPageAloneShowsTheMmaSyncPath) {
  KernelDiagnosis kernel = DiagnoseFixture("hmma_on_hopper", {}, kRawPageOnly);
  ASSERT_FALSE(kernel.findings.empty());
  EXPECT_EQ(kernel.findings.front().tool, "hmma_on_hopper") << DescribeFindings(kernel);
  KernelDiagnosis cublas = DiagnoseBlindFixture("cublas_bf16_gemm", "", kRawPageOnly);
  EXPECT_EQ(FindFinding(cublas, "hmma_on_hopper"), nullptr) << DescribeFindings(cublas);
}

}  // namespace
}  // namespace kopt
