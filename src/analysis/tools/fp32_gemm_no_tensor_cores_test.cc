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
  }
}

}  // namespace
}  // namespace kopt
