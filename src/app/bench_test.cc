// RunBench's checks that come before any compile or child: they need neither
// nvcc nor a GPU (the GPU query is injected).
#include "app/bench.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/fake_command_runner_test_util.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

std::string ExampleTask(const std::string& name) {
  return std::string(KOPT_FIXTURE_DIR) + "/../../examples/tasks/" + name;
}

GpuSpec SmallGpu() {
  GpuSpec gpu;
  gpu.name = "Tiny GPU";
  gpu.device_index = 0;
  gpu.compute_capability = "9.0";
  gpu.dram_capacity_bytes = 64e6;  // 64 MB: gemm_bf16's tensors do not fit
  gpu.l2_cache_bytes = 50e6;
  return gpu;
}

TEST(RunBenchTest, ShapesThatDoNotFitInDeviceMemoryAreBadInput) {
  FakeCommandRunner commands;
  BenchEnvironment environment;
  environment.command_runner = &commands;
  environment.query_gpus = [] { return Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{SmallGpu()}); };
  BenchOptions options;
  options.task_directory = ExampleTask("gemm_bf16");
  options.measure.workspace = (std::filesystem::temp_directory_path() / "kopt_bench_test_workspace").string();
  std::ostringstream out;
  Status status = RunBench(options, environment, out);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("task gemm_bf16"));
  EXPECT_THAT(status.message(), HasSubstr("Tiny GPU"));
  EXPECT_THAT(status.message(), HasSubstr("task.toml smaller"));
  EXPECT_TRUE(commands.commands().empty()) << "nothing may be compiled or run";
}

TEST(RunBenchTest, AnUnknownDeviceOrdinalNamesTheGpusPresent) {
  FakeCommandRunner commands;
  BenchEnvironment environment;
  environment.command_runner = &commands;
  environment.query_gpus = [] { return Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{SmallGpu()}); };
  BenchOptions options;
  options.task_directory = ExampleTask("saxpy");
  options.measure.device = 3;
  std::ostringstream out;
  Status status = RunBench(options, environment, out);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("--device 3"));
  EXPECT_THAT(status.message(), HasSubstr("0: Tiny GPU"));
}

TEST(LoadCandidateFilesTest, AReferenceNamedCandidateAndAFileGivenTwice) {
  std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("kopt_bench_names_" + std::to_string(getpid()));
  std::filesystem::create_directories(directory / "sub");
  std::ofstream(directory / "reference.cu") << "// a candidate called reference\n";
  std::ofstream(directory / "a.cu") << "// a\n";
  std::string a = (directory / "a.cu").string();
  auto candidates = LoadCandidateFiles(directory.string(), {(directory / "reference.cu").string(), a,
                                                            (directory / "sub" / ".." / "a.cu").string()});
  std::filesystem::remove_all(directory);
  ASSERT_TRUE(candidates.ok()) << candidates.status().message();
  ASSERT_EQ(candidates->size(), 2u) << "a.cu given twice is measured once";
  EXPECT_EQ((*candidates)[0].name, "reference#2") << "the reference's row keeps its name";
  EXPECT_EQ((*candidates)[1].name, "a");
}

}  // namespace
}  // namespace kopt
