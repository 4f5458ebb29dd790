#include "app/task_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "fixture_reader.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

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

}  // namespace
}  // namespace kopt
