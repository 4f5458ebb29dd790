#include "optimize/change_summary.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

constexpr std::string_view kParent = R"(#include <cuda_runtime.h>
__global__ void relu(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : 0;
}
)";

constexpr std::string_view kChild = R"(#include <cuda_runtime.h>
#include <cute/layout.hpp>
__global__ void relu(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto layout = cute::make_layout(4);
  #pragma unroll
  for (int k = 0; k < 4; ++k) {
    float4 v = reinterpret_cast<const float4*>(x)[i];
    y[i] = __fmaxf(v.x, 0.f);
  }
}
)";

TEST(ChangeSummary, NewConstructsAndLineCounts) {
  SourceChange change = DescribeSourceChange(kParent, kChild);
  EXPECT_EQ(change.lines.added_lines, 7);
  EXPECT_EQ(change.lines.removed_lines, 1);
  EXPECT_EQ(change.new_constructs,
            (std::vector<std::string>{"#include <cute/layout.hpp>", "cute::make_layout", "#pragma unroll", "float4",
                                      "__fmaxf"}));
  EXPECT_EQ(change.library_constructs,
            (std::vector<std::string>{"#include <cute/layout.hpp>", "cute::make_layout"}));
  EXPECT_EQ(FormatSourceChange(change),
            "+7 -1 lines; new: #include <cute/layout.hpp>, cute::make_layout, #pragma unroll, float4, __fmaxf");
  // Nothing new the other way round: only removals.
  SourceChange back = DescribeSourceChange(kChild, kParent);
  EXPECT_TRUE(back.new_constructs.empty());
  EXPECT_TRUE(back.library_constructs.empty());
  EXPECT_EQ(FormatSourceChange(DescribeSourceChange(kParent, kParent)), "+0 -0 lines");
}

TEST(ChangeSummary, StatedChangeIsTheFirstSentenceBeforeTheCode) {
  EXPECT_EQ(StatedChange("Vectorized the loads with float4. This halves the instructions.\n\n```cuda\nx\n```"),
            "Vectorized the loads with float4.");
  EXPECT_EQ(StatedChange("Fused the bias\ninto the epilogue\n\nmore\n```cuda\n```"), "Fused the bias into the epilogue");
  EXPECT_EQ(StatedChange("```cuda\nint x;\n```\nAfter the code."), "");
  EXPECT_EQ(StatedChange(""), "");
  std::string cut = StatedChange("one two three four five six", 12);
  EXPECT_EQ(cut, "one two…");
}

}  // namespace
}  // namespace kopt
