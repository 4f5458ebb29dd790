#include "report/summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::HasSubstr;

TEST(ShortKernelName, DropsNamespacesAndNestedArguments) {
  EXPECT_EQ(ShortKernelName("saxpy"), "saxpy");
  EXPECT_EQ(ShortKernelName("ns::gemm<128>"), "gemm<128>");
  // Columns, not bytes: the two "…" are one column each.
  EXPECT_EQ(
      ShortKernelName("at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                      "at::detail::Array<char *, 3>>"),
      "vectorized_elementwise_kernel<4, CUDAFunctor_add<…>, Array<…>>");
  // Too long for all the arguments: the leading ones that fit.
  EXPECT_EQ(ShortKernelName("at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, float, "
                            "at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, 4>"),
            "cunn_SoftMaxForwardReg<float, float, float, SoftMaxForwardEpilogue, …>");
  EXPECT_EQ(
      ShortKernelName("kopt_demo::detail::blockwise_reduce_with_a_really_long_descriptive_kernel_name<float, "
                      "256, 4, kopt_demo::detail::Plus>"),
      "blockwise_reduce_with_a_really_long_descriptive_kernel_name<float, …>");
}

// Issue 19: a kernel in an anonymous namespace (PyTorch's softmax) had an empty heading: the function
// name stopped at "(anonymous namespace)", taken for the parameter list.
TEST(ShortKernelName, AnonymousNamespaceKernelsKeepTheirName) {
  std::string full =
      "void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, float, "
      "at::native::(anonymous "
      "namespace)::SoftMaxForwardEpilogue, long, 4>(float *, const float *, long)";
  EXPECT_EQ(FunctionNameOf(full),
            "at::native::(anonymousnamespace)::cunn_SoftMaxForwardReg<float,float,float,at::native::("
            "anonymousnamespace)"
            "::SoftMaxForwardEpilogue,long,4>");
  EXPECT_EQ(ShortKernelName(FunctionNameOf(full)),
            "cunn_SoftMaxForwardReg<float, float, float, SoftMaxForwardEpilogue, …>");
  EXPECT_EQ(FunctionNameOf("void (anonymous namespace)::helper(int)"), "(anonymousnamespace)::helper");
}

TEST(LaunchSpreadText, OneLaunchOrAGroupWithItsSpread) {
  KernelDiagnosis kernel;
  kernel.launch_id = 7;
  EXPECT_EQ(LaunchSpreadText(kernel), "ncu launch ID 7");
  kernel.launches = {1000, 0, 999, 1900, 2100, 2400, 2.1e6};
  kernel.launch_id = 500;
  EXPECT_EQ(
      LaunchSpreadText(kernel),
      "1000 launches (ncu launch IDs 0–999), duration min 1.9 µs · median 2.1 µs · max 2.4 µs; diagnosed "
      "on ncu launch ID 500 (the median)");
  kernel.roofline.duration_ns = 2100;
  EXPECT_EQ(DurationCellText(kernel), "2.1 µs × 1000");
  EXPECT_EQ(KernelTimeNs(kernel), 2.1e6);
}

TEST(IntensityText, UnknownWithoutFlopCountsNoneWithZeroWork) {
  RooflineAnalysis roofline;
  EXPECT_THAT(IntensityText(roofline), HasSubstr("unknown (the profile has no FLOP counts"));
  roofline.compute.push_back(ComputeWork{});
  EXPECT_EQ(IntensityText(roofline), "none (no floating-point work)");
}

TEST(InputLines, EachInputWithWhatItChanged) {
  Diagnosis diagnosis;
  diagnosis.inputs.push_back({"raw.csv", "raw page", "given", {"the metrics of 1 launch(es)"}});
  diagnosis.inputs.push_back(
      {"sass.txt", "SASS listing", "found beside the profile", {"read by the tools a, b", "removed 1 FLOP"}});
  std::vector<std::string> lines = InputLines(diagnosis);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "raw.csv (raw page, given): the metrics of 1 launch(es)");
  EXPECT_EQ(lines[1],
            "sass.txt (SASS listing, found beside the profile): read by the tools a, b; removed 1 FLOP");
}

}  // namespace
}  // namespace kopt
