// Tests of data_movement_pass (issue 18, kind 8) on the H200 fixtures.
#include <gtest/gtest.h>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

// The element-wise pass of the three-kernel blind program: named, ranked first, and the program's
// producer and consumer named as the kernels to fuse with.
TEST(DataMovementPass, TheElementWisePassBetweenProducerAndConsumer) {
  KernelDiagnosis kernel = DiagnoseBlindFixture("pipeline_scale_bias", "scale_bias_pass");
  const Finding* finding = FindFinding(kernel, "data_movement_pass");
  ASSERT_NE(finding, nullptr) << DescribeFindings(kernel);
  EXPECT_EQ(kernel.findings.front().tool, "data_movement_pass") << DescribeFindings(kernel);
  EXPECT_GE(finding->estimated_gain, 0.5);
  EXPECT_NE(finding->gain_method.find("produce_activations"), std::string::npos) << finding->gain_method;
  EXPECT_EQ(FindFinding(kernel, "healthy"), nullptr);
}

// Its producer computes (tanhf per element) and its consumer reduces: neither is a pass.
TEST(DataMovementPass, NotTheProducerOrTheConsumer) {
  for (const char* function : {"produce_activations", "consume_rowsum"}) {
    KernelDiagnosis kernel = DiagnoseBlindFixture("pipeline_scale_bias", function);
    EXPECT_EQ(FindFinding(kernel, "data_movement_pass"), nullptr)
        << function << ": " << DescribeFindings(kernel);
  }
}

// A copy alone in its profile is healthy: with nothing to fuse it into it is not a finding.
TEST(DataMovementPass, NotAKernelAloneInItsProfile) {
  for (const char* name : {"healthy_dram_copy"}) {
    KernelDiagnosis kernel = DiagnoseFixture(name);
    EXPECT_EQ(FindFinding(kernel, "data_movement_pass"), nullptr) << DescribeFindings(kernel);
  }
  KernelDiagnosis saxpy = DiagnoseBlindFixture("healthy_saxpy_1gb");
  EXPECT_EQ(FindFinding(saxpy, "data_movement_pass"), nullptr) << DescribeFindings(saxpy);
}

}  // namespace
}  // namespace kopt
