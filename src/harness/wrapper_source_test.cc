#include "harness/wrapper_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

TaskSpec SoftmaxTask() {
  TaskSpec task;
  task.entry = "softmax";
  TensorSpec x;
  x.name = "x";
  x.dtype = DataType::kF32;
  x.role = TensorRole::kInput;
  TensorSpec y = x;
  y.name = "y";
  y.role = TensorRole::kOutput;
  TensorSpec h = x;
  h.name = "h";
  h.dtype = DataType::kBF16;
  h.role = TensorRole::kInout;
  task.tensors = {x, y, h};
  task.scalars = {{"rows", ScalarType::kI32, 4, 0}, {"scale", ScalarType::kF64, 0, 0.5}};
  return task;
}

TEST(WrapperSourceTest, GoldenText) {
  Result<std::string> wrapper = GenerateWrapperSource(SoftmaxTask(), "/abs/path/candidate.cu");
  ASSERT_TRUE(wrapper.ok()) << wrapper.status().message();
  EXPECT_EQ(*wrapper,
            "#include <cstdint>\n"
            "#include <cuda_runtime.h>\n"
            "#include <cuda_fp16.h>\n"
            "#include <cuda_bf16.h>\n"
            "extern \"C\" void softmax(const float* x, float* y, __nv_bfloat16* h, int rows, double scale, "
            "cudaStream_t stream);\n"
            "#include \"/abs/path/candidate.cu\"\n"
            "extern \"C\" int kopt_abi_version(void) { return 1; }\n"
            "extern \"C\" void kopt_launch(void* const* tensors, const void* const* scalars, cudaStream_t "
            "stream) {\n"
            "  softmax(\n"
            "      static_cast<const float*>(tensors[0]),\n"
            "      static_cast<float*>(tensors[1]),\n"
            "      static_cast<__nv_bfloat16*>(tensors[2]),\n"
            "      *static_cast<const int*>(scalars[0]),\n"
            "      *static_cast<const double*>(scalars[1]),\n"
            "      stream);\n"
            "}\n");
}

TEST(WrapperSourceTest, RefusesPathsThatCannotBeIncluded) {
  for (const char* path : {"relative/candidate.cu", "/a\"b.cu", "/a\\b.cu", "/a\nb.cu", ""}) {
    Result<std::string> wrapper = GenerateWrapperSource(SoftmaxTask(), path);
    ASSERT_FALSE(wrapper.ok()) << path;
    EXPECT_THAT(wrapper.status().message(), ::testing::HasSubstr("expected an absolute path"));
  }
}

}  // namespace
}  // namespace kopt
