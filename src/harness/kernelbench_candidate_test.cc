#include "harness/kernelbench_candidate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file_io.h"
#include "fixture_reader.h"
#include "harness/compiler.h"
#include "harness/kernelbench_task.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kReluProbe = R"({"schema": "kopt.kernelbench.probe/1", "input_names": ["x"],
  "inputs": [{"dtype": "f32", "init": {"high": 1.0, "kind": "uniform", "low": 0.0}, "kind": "tensor",
              "shape": [512, 4096]}],
  "outputs": [{"dtype": "f32", "shape": [512, 4096]}], "parameters": [], "init_inputs": []})";

constexpr std::string_view kGemmProbe = R"({"schema": "kopt.kernelbench.probe/1", "input_names": ["x"],
  "inputs": [{"dtype": "f32", "init": null, "kind": "tensor", "shape": [4, 8]}],
  "parameters": [{"kind": "tensor", "name": "gemm.weight", "shape": [2, 8], "dtype": "f32", "init": null}],
  "outputs": [{"dtype": "f32", "shape": [4, 2]}], "init_inputs": []})";

// Writes the task directory of a probe record under a fresh temporary folder.
std::string WriteTask(std::string_view probe, const std::string& name) {
  fs::path directory =
      fs::temp_directory_path() / ("kopt_kb_candidate_test_" + std::to_string(::getpid())) / name;
  fs::create_directories(directory);
  auto problem = ParseKernelBenchProbe(probe, name + ".py", KernelBenchImportOptions{});
  EXPECT_TRUE(problem.ok()) << problem.status().message();
  auto files = KernelBenchTaskFiles(*problem, "", KernelBenchImportOptions{});
  EXPECT_TRUE(files.ok()) << files.status().message();
  for (const auto& [file, text] : *files) std::ofstream(directory / file) << text;
  return directory.string();
}

class KernelBenchCandidate : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_ = MakeSystemCommandRunner();
    if (runner_->FindProgram("python3").empty()) GTEST_SKIP() << "no python3 on PATH";
    relu_task_ = WriteTask(kReluProbe, "relu");
  }
  static std::string Case(const std::string& file) {
    return (FixtureDirectory().parent_path() / "adversarial" / "kernelbench" / file).string();
  }
  std::unique_ptr<CommandRunner> runner_;
  std::string relu_task_;
};

TEST_F(KernelBenchCandidate, ModelNewBecomesACandidateWithTheShimAndTheEntryPoint) {
  auto source = ConvertKernelBenchCandidate(Case("honest_relu_modelnew.py"), relu_task_, *runner_);
  ASSERT_TRUE(source.ok()) << source.status().message();
  EXPECT_THAT(*source, HasSubstr("namespace kopt_shim {"));
  EXPECT_THAT(*source, HasSubstr("// (kopt: provided by the torch shim) #include <torch/extension.h>"));
  EXPECT_THAT(*source, HasSubstr("__global__ void relu_kernel"));
  EXPECT_THAT(
      *source,
      HasSubstr("extern \"C\" void model_forward(const float* x, float* out, cudaStream_t stream) {"));
  EXPECT_THAT(*source, HasSubstr("kopt_shim::CallScope scope(stream, out, 8388608ull);"));
  EXPECT_THAT(*source,
              HasSubstr("relu_cuda(\n      kopt_shim::Wrap(x, {512, 4096}, kopt_shim::ScalarType::Float));"));
}

TEST_F(KernelBenchCandidate, TheShimLeavesTheHalfTypesOutOnlyWhenNothingNamesThem) {
  auto plain = ConvertKernelBenchCandidate(Case("honest_relu_modelnew.py"), relu_task_, *runner_);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_THAT(*plain, HasSubstr("#define KOPT_SHIM_WITHOUT_HALF_TYPES\n"));
  std::string text = *ReadWholeFile(Case("honest_relu_modelnew.py"));
  size_t kernel = text.find("__global__ void relu_kernel");
  ASSERT_NE(kernel, std::string::npos);
  for (const char* spelling : {"__half", "c10::BFloat16", "AT_DISPATCH_FLOATING_TYPES_AND_HALF", "__hadd"}) {
    std::string named = text;
    named.insert(kernel, std::string("// ") + spelling + "\n");
    fs::path path = fs::path(relu_task_).parent_path() / "named_half_modelnew.py";
    std::ofstream(path) << named;
    auto source = ConvertKernelBenchCandidate(path.string(), relu_task_, *runner_);
    ASSERT_TRUE(source.ok()) << source.status().message();
    EXPECT_THAT(*source, Not(HasSubstr("#define KOPT_SHIM_WITHOUT_HALF_TYPES"))) << spelling;
  }
}

TEST_F(KernelBenchCandidate, PythonBesideTheKernelIsRefusedWithTheLine) {
  auto patched = ConvertKernelBenchCandidate(Case("patched_timer_modelnew.py"), relu_task_, *runner_);
  ASSERT_FALSE(patched.ok());
  EXPECT_EQ(patched.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(
      patched.status().message(),
      HasSubstr(
          "patched_timer_modelnew.py:39: a module-level statement assigns torch.cuda.Event.elapsed_time"));
  std::string refused = RefusedKernelBenchCandidate(patched.status().message());
  EXPECT_THAT(refused, HasSubstr("#error \"kopt refused the KernelBench candidate: "));
}

TEST_F(KernelBenchCandidate, TasksWithParametersOrNotImportedAreClearErrors) {
  std::string gemm_task = WriteTask(kGemmProbe, "gemm");
  auto with_parameters = ConvertKernelBenchCandidate(Case("honest_relu_modelnew.py"), gemm_task, *runner_);
  EXPECT_THAT(with_parameters.status().message(),
              HasSubstr("the problem's model has parameters (gemm.weight)"));
  auto not_imported = ConvertKernelBenchCandidate(Case("honest_relu_modelnew.py"),
                                                  (FixtureDirectory() / "kernelbench").string(), *runner_);
  EXPECT_THAT(not_imported.status().message(), HasSubstr("needs a task imported from KernelBench"));
}

// The converted text compiles with the real nvcc (no GPU needed) when there is one.
TEST_F(KernelBenchCandidate, ConvertedCandidatesCompileWithNvcc) {
  Result<std::string> nvcc = FindNvcc(*runner_, std::getenv("KOPT_NVCC"));
  if (!nvcc.ok()) GTEST_SKIP() << "no nvcc";
  CompilerOptions options;
  options.architecture = "sm_90";
  options.nvcc_path = *nvcc;
  options.cache_directory = (fs::path(relu_task_).parent_path() / "cache").string();
  auto compiler = Compiler::Create(*runner_, options);
  ASSERT_TRUE(compiler.ok()) << compiler.status().message();
  auto task = LoadTask(relu_task_);
  ASSERT_TRUE(task.ok()) << task.status().message();
  for (const char* file : {"honest_relu_modelnew.py", "identity_relu_modelnew.py"}) {
    auto source = ConvertKernelBenchCandidate(Case(file), relu_task_, *runner_);
    ASSERT_TRUE(source.ok()) << source.status().message();
    std::string path = (fs::path(relu_task_) / (std::string(file) + ".cu")).string();
    std::ofstream(path) << *source;
    auto compiled = (*compiler)->Compile(*task, path);
    ASSERT_TRUE(compiled.ok()) << compiled.status().message();
    EXPECT_TRUE(compiled->Ok()) << file << ": " << compiled->compiler_output;
  }
  // The imported reference (the bridge) compiles too.
  auto reference = (*compiler)->Compile(*task, task->reference_path);
  ASSERT_TRUE(reference.ok());
  EXPECT_TRUE(reference->Ok()) << reference->compiler_output;
}

}  // namespace
}  // namespace kopt
