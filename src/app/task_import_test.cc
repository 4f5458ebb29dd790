#include "app/task_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/file_io.h"
#include "fixture_reader.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class TaskImport : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_ = MakeSystemCommandRunner();
    if (runner_->FindProgram("python3").empty()) GTEST_SKIP() << "no python3 on PATH";
    out_ = fs::temp_directory_path() / ("kopt_task_import_test_" + std::to_string(::getpid()));
    fs::remove_all(out_);
  }
  void TearDown() override { fs::remove_all(out_); }
  std::unique_ptr<CommandRunner> runner_;
  fs::path out_;
};

TEST_F(TaskImport, ADirectoryImportsWhatItCanAndListsTheRest) {
  TaskImportOptions options;
  options.paths = {(FixtureDirectory() / "kernelbench").string()};
  options.output_directory = out_.string();
  std::ostringstream out;
  Status status = RunTaskImportKernelBench(options, *runner_, out);
  EXPECT_EQ(status.kind(), ErrorKind::kWorkFailed) << status.message();
  EXPECT_THAT(out.str(),
              HasSubstr("failed   " + (FixtureDirectory() / "kernelbench" / "no_model.py").string() +
                        ": it does not define Model"));
  EXPECT_THAT(out.str(), HasSubstr("unknown_module.py: it imports module 'scipy.special'"));
  EXPECT_THAT(out.str(), HasSubstr("imported " + (out_ / "kb_relu_small").string()));
  // Each imported task loads as a kopt task.
  for (const char* name :
       {"kb_relu_small", "kb_softmax_small", "kb_gemm_bias_relu_small", "kb_scale_small"}) {
    auto task = LoadTask((out_ / name).string());
    ASSERT_TRUE(task.ok()) << name << ": " << task.status().message();
    EXPECT_EQ(task->entry, "model_forward");
  }
  auto gemm = LoadTask((out_ / "kb_gemm_bias_relu_small").string());
  ASSERT_EQ(gemm->tensors.size(), 4u);
  EXPECT_EQ(gemm->tensors[1].name, "bias");  // PyTorch's named_parameters order
  EXPECT_EQ(gemm->tensors[2].name, "gemm_weight");
  EXPECT_TRUE(fs::exists(out_ / "kb_relu_small" / "kopt_torch_reference.py"));
}

TEST_F(TaskImport, BadOptionsAndMissingPathsAreClearErrors) {
  TaskImportOptions options;
  std::ostringstream out;
  EXPECT_EQ(RunTaskImportKernelBench(options, *runner_, out).kind(), ErrorKind::kInvalidInput);
  options.paths = {"/no/such/problem.py"};
  Status missing = RunTaskImportKernelBench(options, *runner_, out);
  EXPECT_EQ(missing.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("/no/such/problem.py"));
  options.paths = {(FixtureDirectory() / "kernelbench" / "relu_small.py").string()};
  options.import.inputs = "uniform";
  EXPECT_THAT(RunTaskImportKernelBench(options, *runner_, out).message(),
              HasSubstr("--inputs: \"uniform\": expected exercise or kernelbench"));
}

TEST_F(TaskImport, ASecondImportNeverOverwritesAnEditedTask) {
  TaskImportOptions options;
  options.paths = {(FixtureDirectory() / "kernelbench" / "relu_small.py").string()};
  options.output_directory = out_.string();
  std::ostringstream out;
  ASSERT_TRUE(RunTaskImportKernelBench(options, *runner_, out).ok()) << out.str();
  // The same import again writes the same bytes: allowed.
  ASSERT_TRUE(RunTaskImportKernelBench(options, *runner_, out).ok()) << out.str();
  fs::path toml = out_ / "kb_relu_small" / "task.toml";
  auto original = ReadWholeFile(toml.string());
  ASSERT_TRUE(original.ok());
  ASSERT_TRUE(WriteFileAtomically(toml.string(), *original + "# edited by hand\n").ok());
  ASSERT_TRUE(WriteFileAtomically((out_ / "kb_relu_small" / "mine.cu").string(), "// mine\n").ok());
  Status refused = RunTaskImportKernelBench(options, *runner_, out);
  EXPECT_EQ(refused.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(refused.message(), HasSubstr("relu_small.py: " + toml.string() + " already exists"));
  EXPECT_THAT(refused.message(), HasSubstr("--force"));
  EXPECT_THAT(*ReadWholeFile(toml.string()), HasSubstr("# edited by hand"));
  // Other settings differ too.
  options.protocol = "verified";
  EXPECT_EQ(RunTaskImportKernelBench(options, *runner_, out).kind(), ErrorKind::kInvalidInput);
  options.force = true;
  ASSERT_TRUE(RunTaskImportKernelBench(options, *runner_, out).ok());
  std::string replaced = *ReadWholeFile(toml.string());
  EXPECT_THAT(replaced, Not(HasSubstr("# edited by hand")));
  EXPECT_THAT(replaced, HasSubstr("f32 = { rtol = 1e-3, atol = 1e-3 }"));
  EXPECT_THAT(*ReadWholeFile((out_ / "kb_relu_small" / "kernelbench.json").string()),
              HasSubstr("\"protocol\": \"verified\""));
  EXPECT_TRUE(fs::exists(out_ / "kb_relu_small" / "mine.cu"));
}

TEST_F(TaskImport, AGetInputsThatNeverReturnsTimesOutNamingTheFile) {
  TaskImportOptions options;
  fs::path hanging = FixtureDirectory() / "kernelbench_slow" / "hanging_get_inputs.py";
  options.paths = {hanging.string(), (FixtureDirectory() / "kernelbench" / "relu_small.py").string()};
  options.output_directory = out_.string();
  options.import.timeout_seconds = 8;  // relu_small's probe needs well under this, even on a loaded machine
  std::ostringstream out;
  Status status = RunTaskImportKernelBench(options, *runner_, out);
  EXPECT_EQ(status.kind(), ErrorKind::kWorkFailed) << status.message();
  EXPECT_THAT(out.str(),
              HasSubstr("failed   " + hanging.string() + ": reading the problem did not finish within 8 s"));
  EXPECT_THAT(out.str(), HasSubstr("imported " + (out_ / "kb_relu_small").string()));
}

TEST_F(TaskImport, ProtocolsSetInputsAndTolerances) {
  TaskImportOptions options;
  options.paths = {(FixtureDirectory() / "kernelbench" / "relu_small.py").string()};
  options.output_directory = out_.string();
  options.protocol = "fastest";
  std::ostringstream out;
  EXPECT_THAT(RunTaskImportKernelBench(options, *runner_, out).message(),
              HasSubstr("--protocol: \"fastest\": expected kernelbench, verified or kopt"));
  options.protocol = "kopt";
  ASSERT_TRUE(RunTaskImportKernelBench(options, *runner_, out).ok());
  std::string toml = *ReadWholeFile((out_ / "kb_relu_small" / "task.toml").string());
  EXPECT_THAT(toml, HasSubstr("kopt's (--tolerance kopt)"));
  EXPECT_THAT(toml, HasSubstr("heavy_tailed"));
}

// What the LLM programmer is told: the problem file and each argument's place in it.
TEST_F(TaskImport, TheStatementMapsEveryArgumentToTheProblem) {
  TaskImportOptions options;
  options.paths = {(FixtureDirectory() / "kernelbench" / "gemm_bias_relu_small.py").string()};
  options.output_directory = out_.string();
  std::ostringstream out;
  ASSERT_TRUE(RunTaskImportKernelBench(options, *runner_, out).ok()) << out.str();
  auto statement = LoadKernelBenchStatement((out_ / "kb_gemm_bias_relu_small").string());
  ASSERT_TRUE(statement.ok()) << statement.status().message();
  ASSERT_TRUE(statement->has_value());
  const KernelBenchStatement& problem = **statement;
  EXPECT_EQ(problem.problem, "gemm_bias_relu_small");
  EXPECT_THAT(problem.source, HasSubstr("def forward("));
  ASSERT_EQ(problem.argument_lines.size(), 4u);
  EXPECT_THAT(problem.argument_lines[0], HasSubstr(": get_inputs()[0], forward's argument 0"));
  EXPECT_THAT(problem.argument_lines[1], HasSubstr("`bias` f32"));
  EXPECT_THAT(problem.argument_lines[1], HasSubstr("the model's parameter or buffer `bias`"));
  EXPECT_THAT(problem.argument_lines[3], HasSubstr("`out` f32"));
  EXPECT_THAT(problem.argument_lines[3], HasSubstr("forward's result"));
  // A native task has none.
  auto native = LoadKernelBenchStatement((FixtureDirectory() / "kernelbench").string());
  ASSERT_TRUE(native.ok());
  EXPECT_FALSE(native->has_value());
}

}  // namespace
}  // namespace kopt
