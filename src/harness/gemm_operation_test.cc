#include "harness/gemm_operation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

std::string ExampleTask(const std::string& name) {
  return (std::filesystem::path(KOPT_FIXTURE_DIR) / ".." / ".." / "examples" / "tasks" / name).string();
}

// A task.toml with two inputs and one output of the given shapes and dtypes.
std::string TaskText(const std::string& a_shape, const std::string& b_shape, const std::string& d_shape,
                     const std::string& dtype = "f32", const std::string& extra = "") {
  return R"([task]
name = "g"
entry = "g"

[[scalar]]
name = "M"
type = "i32"
value = 64

[[scalar]]
name = "N"
type = "i32"
value = 48

[[scalar]]
name = "K"
type = "i32"
value = 32

[[tensor]]
name = "A"
dtype = ")" +
         dtype + R"("
shape = )" +
         a_shape + R"(
role = "input"

[[tensor]]
name = "B"
dtype = ")" +
         dtype + R"("
shape = )" +
         b_shape + R"(
role = "input"

[[tensor]]
name = "C"
dtype = "f32"
shape = )" +
         d_shape + R"(
role = "output"
)" + extra;
}

Result<std::optional<GemmOperation>> Recognize(const std::string& text) {
  Result<TaskSpec> task = ParseTaskToml(text, "task.toml");
  if (!task.ok()) return task.status();
  return RecognizeGemm(*task, text, "task.toml");
}

TEST(GemmOperationTest, DetectsTheExampleGemmTasks) {
  for (const char* name : {"gemm_f32", "gemm_bf16"}) {
    Result<TaskSpec> task = LoadTask(ExampleTask(name));
    if (!task.ok()) GTEST_SKIP() << "no examples/tasks/" << name;
    Result<std::optional<GemmOperation>> operation = RecognizeGemmTask(*task);
    ASSERT_TRUE(operation.ok()) << operation.status().message();
    ASSERT_TRUE(operation->has_value()) << name;
    const GemmOperation& gemm = **operation;
    EXPECT_EQ(gemm.a, "A");
    EXPECT_EQ(gemm.b, "B");
    EXPECT_EQ(gemm.d, "C");
    EXPECT_EQ(gemm.m.scalar, "M");
    EXPECT_EQ(gemm.n.scalar, "N");
    EXPECT_EQ(gemm.k.scalar, "K");
    EXPECT_FALSE(gemm.declared);
    EXPECT_FALSE(gemm.batch.has_value());
    EXPECT_EQ(gemm.output_type, DataType::kF32);
  }
  Result<TaskSpec> bf16 = LoadTask(ExampleTask("gemm_bf16"));
  if (bf16.ok()) {
    Result<std::optional<GemmOperation>> operation = RecognizeGemmTask(*bf16);
    ASSERT_TRUE(operation.ok() && operation->has_value());
    EXPECT_EQ((*operation)->input_type, DataType::kBF16);
    EXPECT_EQ((*operation)->m_value, 4096);
    EXPECT_THAT((*operation)->Describe(), HasSubstr("bf16→f32 GEMM 4096x4096x4096 (C = A·B), detected"));
  }
}

TEST(GemmOperationTest, OtherExampleTasksAreNotGemms) {
  for (const char* name : {"saxpy", "softmax", "transpose", "reduce_sum"}) {
    Result<TaskSpec> task = LoadTask(ExampleTask(name));
    if (!task.ok()) continue;
    Result<std::optional<GemmOperation>> operation = RecognizeGemmTask(*task);
    ASSERT_TRUE(operation.ok()) << operation.status().message();
    EXPECT_FALSE(operation->has_value()) << name;
  }
}

TEST(GemmOperationTest, DetectsBatchedShapes) {
  std::string text = TaskText("[4, \"M\", \"K\"]", "[4, \"K\", \"N\"]", "[4, \"M\", \"N\"]");
  Result<std::optional<GemmOperation>> operation = Recognize(text);
  ASSERT_TRUE(operation.ok()) << operation.status().message();
  ASSERT_TRUE(operation->has_value());
  ASSERT_TRUE((*operation)->batch.has_value());
  EXPECT_EQ((*operation)->batch_value, 4);
  EXPECT_EQ((*operation)->n_value, 48);
}

TEST(GemmOperationTest, DetectsTransposedOperandsWhenOnlyOneLayoutFits) {
  // A stored [K, M], B stored [N, K] (KernelBench's "transposed A / B" problems, nn.Linear's weight).
  Result<std::optional<GemmOperation>> operation =
      Recognize(TaskText("[\"K\", \"M\"]", "[\"N\", \"K\"]", "[\"M\", \"N\"]"));
  ASSERT_TRUE(operation.ok()) << operation.status().message();
  ASSERT_TRUE(operation->has_value());
  EXPECT_TRUE((*operation)->transpose_a);
  EXPECT_TRUE((*operation)->transpose_b);
  EXPECT_EQ((*operation)->m_value, 64);
  EXPECT_EQ((*operation)->k_value, 32);
}

TEST(GemmOperationTest, AmbiguousOrMismatchedShapesAreNotDetected) {
  // One literal for every dimension: A·B, Aᵀ·B and B·A all fit.
  EXPECT_FALSE(Recognize(TaskText("[64, 64]", "[64, 64]", "[64, 64]"))->has_value());
  // No layout fits: the output is not [M, N].
  EXPECT_FALSE(Recognize(TaskText("[\"M\", \"K\"]", "[\"K\", \"N\"]", "[\"N\", \"M\"]"))->has_value());
  // Integer inputs.
  EXPECT_FALSE(Recognize(TaskText("[\"M\", \"K\"]", "[\"K\", \"N\"]", "[\"M\", \"N\"]", "i32"))->has_value());
}

TEST(GemmOperationTest, ReadsADeclaredGemmWithItsEpilogue) {
  std::string text = TaskText("[64, 64]", "[64, 64]", "[64, 64]", "f32", R"(
[[tensor]]
name = "bias"
dtype = "f32"
shape = [64]
role = "input"

[gemm]
a = "A"
b = "B"
d = "C"
transpose_b = true
bias = "bias"
activation = "relu"
post_scale = 0.5
)");
  Result<std::optional<GemmOperation>> operation = Recognize(text);
  ASSERT_TRUE(operation.ok()) << operation.status().message();
  ASSERT_TRUE(operation->has_value());
  const GemmOperation& gemm = **operation;
  EXPECT_TRUE(gemm.declared);
  EXPECT_TRUE(gemm.transpose_b);
  EXPECT_EQ(gemm.bias, "bias");
  EXPECT_EQ(gemm.activation, GemmActivation::kRelu);
  EXPECT_DOUBLE_EQ(gemm.post_scale, 0.5);
  EXPECT_THAT(gemm.Describe(), HasSubstr("C = 0.5·relu(A·Bᵀ + bias)"));
  EXPECT_THAT(gemm.Describe(), HasSubstr("declared in task.toml [gemm]"));
}

TEST(GemmOperationTest, ADeclarationThatDisagreesIsAnError) {
  auto error = [](const std::string& table) {
    std::string text = TaskText("[\"M\", \"K\"]", "[\"K\", \"N\"]", "[\"M\", \"N\"]", "f32", table);
    Result<std::optional<GemmOperation>> operation = Recognize(text);
    return operation.ok() ? std::string("ok") : operation.status().message();
  };
  EXPECT_THAT(error("[gemm]\na = \"A\"\nb = \"X\"\nd = \"C\"\n"),
              HasSubstr("task.toml:39: [gemm] b: \"X\" is not a tensor of the task"));
  EXPECT_THAT(error("[gemm]\na = \"A\"\nb = \"B\"\nd = \"C\"\ntranspose_b = true\n"),
              HasSubstr("the inner dimensions differ"));
  EXPECT_THAT(error("[gemm]\na = \"A\"\nb = \"B\"\nd = \"C\"\nactivation = \"tanh\"\n"),
              HasSubstr("must be \"none\", \"relu\" or \"gelu\""));
  EXPECT_THAT(error("[gemm]\na = \"A\"\nb = \"B\"\nd = \"C\"\ncolour = 1\n"), HasSubstr("unknown key"));
  EXPECT_THAT(error("[gemm]\na = \"A\"\nb = \"B\"\n"), HasSubstr("missing key \"d\""));
  EXPECT_THAT(error("[gemm]\na = \"A\"\nb = \"B\"\nd = \"C\"\nactivation = \"gelu\"\npost_scale = 2.0\n"),
              HasSubstr("a scale after gelu"));
  EXPECT_EQ(error("[gemm]\na = \"A\"\nb = \"B\"\nd = \"C\"\n"), "ok");
}

}  // namespace
}  // namespace kopt
