#include "harness/kernelbench_task.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/fake_command_runner_test_util.h"
#include "fixture_reader.h"
#include "harness/gemm_operation.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What the probe prints for tests/fixtures/kernelbench/relu_small.py.
constexpr std::string_view kReluProbe =
    R"({"file": "level1/19_ReLU.py", "init_inputs": [], "input_names": ["x"],
  "inputs": [{"dtype": "f32", "init": {"high": 1.0, "kind": "uniform", "low": 0.0}, "kind": "tensor",
              "shape": [512, 4096]}],
  "outputs": [{"dtype": "f32", "shape": [512, 4096]}], "parameters": [],
  "schema": "kopt.kernelbench.probe/1", "shapes_from": "stand-in"})";

std::string FileOf(const std::vector<std::pair<std::string, std::string>>& files, const std::string& name) {
  for (const auto& [file, text] : files) {
    if (file == name) return text;
  }
  return "";
}

TEST(KernelBenchTask, ReluBecomesATaskWithTheBridgeAsReference) {
  KernelBenchImportOptions options;
  auto problem = ParseKernelBenchProbe(kReluProbe, "KernelBench/level1/19_ReLU.py", options);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->level, 1);
  EXPECT_EQ(KernelBenchTaskName(*problem), "kb_level1_19_ReLU");
  ASSERT_EQ(problem->arguments.size(), 2u);
  EXPECT_EQ(problem->arguments[0].name, "x");
  EXPECT_EQ(problem->arguments[0].init["kind"], "heavy_tailed");  // exercise: negatives for ReLU
  EXPECT_THAT(problem->arguments[0].note, HasSubstr("uniform(0, 1)"));
  EXPECT_EQ(problem->arguments[1].name, "out");

  auto files = KernelBenchTaskFiles(*problem, "# problem source\n", options);
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::string toml = FileOf(*files, "task.toml");
  auto task = ParseTaskToml(toml, "task.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_EQ(task->entry, "model_forward");
  EXPECT_EQ(task->check_seeds, 5);
  EXPECT_DOUBLE_EQ(task->ToleranceFor(DataType::kF32).atol, 1e-4);  // KernelBench's allclose
  EXPECT_DOUBLE_EQ(task->ToleranceFor(DataType::kF32).rtol, 1e-4);
  EXPECT_EQ(task->tensors[0].init.kind, InitKind::kHeavyTailed);

  std::string reference = FileOf(*files, "reference.cu");
  EXPECT_THAT(
      reference,
      HasSubstr("extern \"C\" void model_forward(const float* x, float* out, cudaStream_t stream) {"));
  EXPECT_THAT(reference, HasSubstr("{x, 8388608ull, kopt_torch_bridge::Kind::kInput}"));
  EXPECT_THAT(reference, HasSubstr("bridge.Call(args, 2, stream);"));
  EXPECT_THAT(reference, HasSubstr("class Bridge"));  // inlined: the cache key covers it
  EXPECT_EQ(FileOf(*files, "problem.py"), "# problem source\n");
  EXPECT_THAT(FileOf(*files, "kopt_torch_reference.py"), HasSubstr("def main()"));
  EXPECT_THAT(FileOf(*files, "kernelbench.json"), HasSubstr("\"schema\": \"kopt.kernelbench.task/1\""));
}

TEST(KernelBenchTask, KernelBenchInputsAndKoptToleranceOnRequest) {
  KernelBenchImportOptions options;
  options.inputs = "kernelbench";
  options.tolerance = "kopt";
  auto problem = ParseKernelBenchProbe(kReluProbe, "relu.py", options);
  ASSERT_TRUE(problem.ok());
  EXPECT_EQ(problem->level, 0);
  EXPECT_EQ(KernelBenchTaskName(*problem), "kb_relu");
  EXPECT_EQ(problem->arguments[0].init["kind"], "uniform");
  auto files = KernelBenchTaskFiles(*problem, "", options);
  ASSERT_TRUE(files.ok());
  auto task = ParseTaskToml(FileOf(*files, "task.toml"), "task.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_DOUBLE_EQ(task->ToleranceFor(DataType::kF32).atol, 1e-5);  // kopt's default
  EXPECT_EQ(task->tensors[0].init.kind, InitKind::kUniform);
}

TEST(KernelBenchTask, ParametersAndScalarsBecomeInputs) {
  constexpr std::string_view probe = R"({"schema": "kopt.kernelbench.probe/1", "input_names": ["x", "s"],
    "inputs": [{"kind": "tensor", "shape": [64, 256], "dtype": "f32", "init": {"kind": "uniform", "low": 0.0, "high": 1.0}},
               {"kind": "float", "value": 3.14}],
    "init_inputs": [{"kind": "int", "value": 256}],
    "parameters": [{"kind": "tensor", "name": "gemm.weight", "shape": [128, 256], "dtype": "f32",
                    "init": {"kind": "uniform", "low": -0.0625, "high": 0.0625}},
                   {"kind": "tensor", "name": "norm.weight", "shape": [128], "dtype": "f32", "init": {"kind": "ones"}},
                   {"kind": "tensor", "name": "bias", "shape": [128], "dtype": "f32",
                    "init": {"kind": "normal", "mean": 0.0, "stddev": 1.0}}],
    "outputs": [{"shape": [64, 128], "dtype": "f32"}]})";
  auto problem = ParseKernelBenchProbe(probe, "level2/76_Gemm.py", KernelBenchImportOptions{});
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  std::vector<std::string> names;
  for (const auto& argument : problem->arguments) names.push_back(argument.name + ":" + argument.role);
  EXPECT_EQ(names, (std::vector<std::string>{"x:input", "gemm_weight:input", "norm_weight:input",
                                             "bias:input", "out:output", "s:scalar"}));
  EXPECT_EQ(problem->arguments[1].parameter, "gemm.weight");
  EXPECT_EQ(problem->arguments[1].init["kind"], "uniform");  // PyTorch's bound kept
  EXPECT_EQ(problem->arguments[2].init["low"], 0.5);         // ones -> uniform(0.5, 1.5): it matters
  EXPECT_EQ(problem->arguments[5].dtype, "f64");
  auto files = KernelBenchTaskFiles(*problem, "", KernelBenchImportOptions{});
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_THAT(
      FileOf(*files, "reference.cu"),
      HasSubstr("void model_forward(const float* x, const float* gemm_weight, const float* norm_weight, "
                "const float* bias, float* out, double s, cudaStream_t stream)"));
  EXPECT_THAT(FileOf(*files, "reference.cu"), HasSubstr("{&s, sizeof(s), kopt_torch_bridge::Kind::kScalar}"));
}

TEST(KernelBenchTask, ZeroDimensionalOutputAndNamesThatCollide) {
  constexpr std::string_view probe =
      R"({"schema": "kopt.kernelbench.probe/1", "input_names": ["predictions", "int", "out"],
    "inputs": [{"kind": "tensor", "shape": [32, 8], "dtype": "f32", "init": null},
               {"kind": "tensor", "shape": [32], "dtype": "i64", "init": {"kind": "int_range", "low": 0, "high": 7}},
               {"kind": "tensor", "shape": [32], "dtype": "f32", "init": null}],
    "parameters": [], "outputs": [{"shape": [], "dtype": "f32"}]})";
  auto problem = ParseKernelBenchProbe(probe, "loss.py", KernelBenchImportOptions{});
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->arguments[1].name, "int_");
  EXPECT_EQ(problem->arguments[1].init["kind"], "int_range");
  EXPECT_EQ(problem->arguments[2].name, "out_2");
  EXPECT_TRUE(problem->arguments[3].shape.empty());
  auto files = KernelBenchTaskFiles(*problem, "", KernelBenchImportOptions{});
  ASSERT_TRUE(files.ok()) << files.status().message();
}

// Several outputs become out0, out1, ...; a bool tensor is u8 0/1 marked torch_dtype "bool".
TEST(KernelBenchTask, SeveralOutputsAndBoolTensors) {
  KernelBenchImportOptions options;
  auto two = ParseKernelBenchProbe(R"({"schema": "kopt.kernelbench.probe/1", "inputs": [{"kind": "tensor",
      "shape": [4], "dtype": "f32", "init": null}, {"kind": "tensor", "shape": [4], "dtype": "u8",
      "torch_dtype": "bool", "init": {"kind": "int_range", "low": 0, "high": 1}}],
      "input_names": ["x", "mask"], "outputs": [{"shape": [4], "dtype": "f32"},
      {"shape": [4], "dtype": "u8", "torch_dtype": "bool"}]})",
                                   "two.py", options);
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_EQ(two->arguments.size(), 4u);
  EXPECT_EQ(two->arguments[1].name, "mask");
  EXPECT_EQ(two->arguments[1].dtype, "u8");
  EXPECT_EQ(two->arguments[1].torch_dtype, "bool");
  EXPECT_EQ(two->arguments[2].name, "out0");
  EXPECT_EQ(two->arguments[2].position, 0);
  EXPECT_EQ(two->arguments[3].name, "out1");
  EXPECT_EQ(two->arguments[3].torch_dtype, "bool");
  auto files = KernelBenchTaskFiles(*two, "", options);
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::string record;
  for (const auto& [name, text] : *files) {
    if (name == "kernelbench.json") record = text;
  }
  EXPECT_THAT(record, HasSubstr("\"torch_dtype\": \"bool\""));
  auto bad_bool =
      ParseKernelBenchProbe(R"({"schema": "kopt.kernelbench.probe/1", "inputs": [{"kind": "tensor",
      "shape": [4], "dtype": "f32", "torch_dtype": "bool", "init": null}], "outputs": [{"shape": [4], "dtype": "f32"}]})",
                            "b.py", options);
  EXPECT_THAT(bad_bool.status().message(),
              HasSubstr("b.py: get_inputs()[0].torch_dtype: expected \"bool\" on a u8"));
}

TEST(KernelBenchTask, ProbeRecordsKoptCannotHoldAreClearErrors) {
  KernelBenchImportOptions options;
  auto list = ParseKernelBenchProbe(R"({"schema": "kopt.kernelbench.probe/1", "inputs": [{"kind": "list",
      "items": []}], "outputs": [{"shape": [4], "dtype": "f32"}]})",
                                    "list.py", options);
  EXPECT_THAT(list.status().message(), HasSubstr("list.py: get_inputs()[0] is a list"));
  auto garbage = ParseKernelBenchProbe("not json", "g.py", options);
  EXPECT_THAT(garbage.status().message(), HasSubstr("g.py: the probe did not answer"));
  auto empty_dim =
      ParseKernelBenchProbe(R"({"schema": "kopt.kernelbench.probe/1", "inputs": [{"kind": "tensor",
      "shape": [0, 4], "dtype": "f32"}], "outputs": [{"shape": [4], "dtype": "f32"}]})",
                            "e.py", options);
  EXPECT_THAT(empty_dim.status().message(),
              HasSubstr("get_inputs()[0].shape: 0 is not a positive dimension"));
}

// The probe itself, in a real Python child (skipped where there is no python3).
class KernelBenchProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_ = MakeSystemCommandRunner();
    if (runner_->FindProgram("python3").empty()) GTEST_SKIP() << "no python3 on PATH";
  }
  Result<KernelBenchProblem> Probe(const std::string& fixture) {
    return ProbeKernelBenchProblem((FixtureDirectory() / "kernelbench" / fixture).string(), *runner_,
                                   KernelBenchImportOptions{});
  }
  std::unique_ptr<CommandRunner> runner_;
};

TEST_F(KernelBenchProbe, ReadsProblemsWithoutPyTorch) {
  auto relu = Probe("relu_small.py");
  ASSERT_TRUE(relu.ok()) << relu.status().message();
  EXPECT_EQ(relu->arguments[0].shape, (std::vector<int64_t>{512, 4096}));
  EXPECT_EQ(relu->shapes_from, "stand-in");
  auto gemm = Probe("gemm_bias_relu_small.py");
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_EQ(gemm->arguments.size(), 4u);
  // PyTorch's named_parameters order: the model's own bias, then the submodule's weight.
  EXPECT_EQ(gemm->arguments[1].parameter, "bias");
  EXPECT_EQ(gemm->arguments[2].parameter, "gemm.weight");
  EXPECT_EQ(gemm->arguments[2].shape, (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(gemm->arguments[3].shape, (std::vector<int64_t>{64, 128}));
  EXPECT_DOUBLE_EQ(gemm->matmul_flops, 2.0 * 64 * 256 * 128);  // the Linear's multiply-adds
  auto files = KernelBenchTaskFiles(*gemm, "", KernelBenchImportOptions{});
  ASSERT_TRUE(files.ok()) << files.status().message();
  auto task = ParseTaskToml(FileOf(*files, "task.toml"), "task.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  ASSERT_TRUE(task->flops.has_value());
  EXPECT_DOUBLE_EQ(*task->flops, 4194304.0);
  // The probe followed Linear(bias=False) + bias + relu: task.toml declares the GEMM with its epilogue.
  EXPECT_THAT(FileOf(*files, "task.toml"),
              HasSubstr("a = \"x\"\nb = \"gemm_weight\"\nd = \"out\"\ntranspose_b = true\nbias = \"bias\"\n"
                        "activation = \"relu\"\n"));
  auto operation = RecognizeGemm(*task, FileOf(*files, "task.toml"), "task.toml");
  ASSERT_TRUE(operation.ok()) << operation.status().message();
  ASSERT_TRUE(operation->has_value());
  EXPECT_EQ((*operation)->m_value, 64);
  EXPECT_EQ((*operation)->n_value, 128);
  EXPECT_EQ((*operation)->k_value, 256);
  EXPECT_EQ((*operation)->activation, GemmActivation::kRelu);
  EXPECT_TRUE(relu->gemm_table.empty());  // an activation alone is no GEMM
  EXPECT_DOUBLE_EQ(relu->matmul_flops, 0.0);
  auto scale = Probe("scale_small.py");
  ASSERT_TRUE(scale.ok()) << scale.status().message();
  EXPECT_EQ(scale->arguments.back().name, "s");
  EXPECT_DOUBLE_EQ(scale->arguments.back().value.get<double>(), 3.14);
}

TEST_F(KernelBenchProbe, ProblemsKoptCannotReadNameTheFileAndTheCause) {
  struct Case {
    const char* fixture;
    const char* cause;
  };
  for (const Case& c : {Case{"no_model.py", "it does not define Model"},
                        Case{"failing_get_inputs.py", "get_inputs() failed: KeyError: 'dim'"},
                        Case{"unknown_module.py", "it imports module 'scipy.special'"},
                        Case{"conv_needs_torch.py", "nn.Conv2d is not modelled"}}) {
    auto result = Probe(c.fixture);
    ASSERT_FALSE(result.ok()) << c.fixture;
    EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidInput) << c.fixture;
    EXPECT_THAT(result.status().message(), HasSubstr(std::string(c.fixture) + ": ")) << c.fixture;
    EXPECT_THAT(result.status().message(), HasSubstr(c.cause)) << c.fixture;
  }
  auto missing = Probe("does_not_exist.py");
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
}

TEST(KernelBenchTask, ABinaryProblemFileIsNamedBeforeAnyPythonRuns) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("kopt_kb_binary_" + std::to_string(::getpid()) + ".py");
  std::ofstream(path, std::ios::binary) << std::string(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00",
      10);
  FakeCommandRunner runner;
  Result<KernelBenchProblem> problem =
      ProbeKernelBenchProblem(path.string(), runner, KernelBenchImportOptions{});
  std::filesystem::remove(path);
  EXPECT_EQ(problem.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(problem.status().message().find("binary data, not Python"), std::string::npos)
      << problem.status().message();
  EXPECT_TRUE(runner.commands().empty());
}

}  // namespace
}  // namespace kopt
