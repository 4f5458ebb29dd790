#include "measure/calibration.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/fake_command_runner_test_util.h"

namespace kopt {
namespace {

const char* kBenchOutput =
    "kopt-calibrate-bench,1\n"
    "device,NVIDIA H200,132,9.0,1980000,3201000,5120,62914560\n"
    "point,copy,2097152,byte,4,256,cold,4100,4000\n"
    "point,copy,2097152,byte,1,256,cold,5100,5000\n"
    "point,copy,2147483648,byte,4,256,cold,520000,515000\n"
    "point,fma,67108864,flop,4,256,hot,3000,2900\n";

// An ncu raw page with two calibrate_copy launches (4 MiB and 2 GiB moved).
std::string NcuCopies() {
  return "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel "
         "Name\",\"Context\",\"Stream\",\"Block "
         "Size\",\"Grid Size\",\"Device\",\"CC\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\","
         "\"gpu__time_duration.sum\"\n"
         "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"ns\"\n"
         "\"0\",\"1\",\"b\",\"h\",\"calibrate_copy(const float4 *, float4 *, unsigned long)\",\"1\",\"7\","
         "\"(256, 1, 1)\",\"(528, 1, 1)\",\"0\",\"9.0\",\"1,048,576\",\"1,048,576\",\"2,500\"\n"
         "\"1\",\"1\",\"b\",\"h\",\"calibrate_copy(const float4 *, float4 *, unsigned long)\",\"1\",\"7\","
         "\"(256, 1, 1)\",\"(528, 1, 1)\",\"0\",\"9.0\",\"1,073,741,824\",\"1,073,741,824\",\"500,000\"\n";
}

TEST(Calibration, ParsesTheBenchmarkOutput) {
  auto table = ParseCalibrateBenchOutput(kBenchOutput);
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->gpu_name, "NVIDIA H200");
  EXPECT_EQ(table->sm_count, 132);
  EXPECT_EQ(table->compute_capability, "9.0");
  ASSERT_EQ(table->points.size(), 4u);
  EXPECT_EQ(table->points[1].blocks_per_sm, 1);
  EXPECT_FALSE(table->points[3].cold);
  EXPECT_EQ(table->points[3].unit, "flop");
  EXPECT_EQ(table->points[0].timing, "events");
}

TEST(Calibration, RejectsMalformedOutputNamingTheLine) {
  EXPECT_FALSE(ParseCalibrateBenchOutput("").ok());
  EXPECT_FALSE(ParseCalibrateBenchOutput("hello\n").ok());
  auto bad = ParseCalibrateBenchOutput(
      "kopt-calibrate-bench,1\ndevice,X,1,9.0,1,1,1,1\npoint,copy,-5,byte,4,256,cold,1,1\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 3"), std::string::npos) << bad.status().message();
  auto no_points = ParseCalibrateBenchOutput("kopt-calibrate-bench,1\ndevice,X,1,9.0,1,1,1,1\n");
  EXPECT_FALSE(no_points.ok());
}

TEST(Calibration, NcuCopiesBecomeNcuTimedPoints) {
  auto points = ParseCalibrateNcuCopies(NcuCopies(), "ncu.csv");
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 2u);
  EXPECT_DOUBLE_EQ((*points)[0].work, 2097152);
  EXPECT_DOUBLE_EQ((*points)[0].median_ns, 2500);
  EXPECT_EQ((*points)[0].timing, "ncu");
}

TEST(Calibration, WithoutAGpuItSaysSoAndRunsNothing) {
  FakeCommandRunner runner;
  runner.AddProgram("nvcc");
  CalibrationSettings settings;
  settings.work_directory = std::filesystem::temp_directory_path().string();
  CalibrationEnvironment env{&runner, [] { return Result<std::vector<GpuSpec>>(Unavailable("no driver")); },
                             [] { return std::string("t"); }};
  auto result = RunCalibration(settings, env);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(result.status().message().find("needs one"), std::string::npos) << result.status().message();
  EXPECT_TRUE(runner.commands().empty());
}

TEST(Calibration, BuildsRunsAndAddsTheNcuCopies) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("kopt-calibration-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  FakeCommandRunner runner;
  runner.OnCommand("nvcc", {"-arch=native"}, ExitedWith(0, ""));
  runner.OnCommand("calibrate_bench", {}, ExitedWith(0, kBenchOutput));
  runner.OnCommand("ncu", {"--ncu"}, ExitedWith(0, NcuCopies()));
  CalibrationSettings settings;
  settings.work_directory = dir.string();
  GpuSpec gpu;
  gpu.name = "NVIDIA H200";
  CalibrationEnvironment env{&runner,
                             [gpu] { return Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{gpu}); },
                             [] { return std::string("2026-12-01T14:00:00Z"); }};
  auto result = RunCalibration(settings, env);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->table.points.size(), 6u);
  EXPECT_EQ(result->table.points.back().timing, "ncu");
  EXPECT_EQ(result->table.measured_at, "2026-12-01T14:00:00Z");
  EXPECT_TRUE(fs::exists(dir / "calibrate_bench.cu"));
  EXPECT_EQ(runner.commands().size(), 3u);
  fs::remove_all(dir);
}

TEST(Calibration, AFailingBenchmarkIsAnErrorWithItsOutput) {
  FakeCommandRunner runner;
  runner.OnCommand("nvcc", {}, ExitedWith(0, ""));
  runner.OnCommand("calibrate_bench", {}, ExitedWith(1, "", "calibrate_bench: no CUDA device"));
  CalibrationSettings settings;
  settings.work_directory = std::filesystem::temp_directory_path().string();
  GpuSpec gpu;
  CalibrationEnvironment env{
      &runner, [gpu] { return Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{gpu}); }, nullptr};
  auto result = RunCalibration(settings, env);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no CUDA device"), std::string::npos) << result.status().message();
}

TEST(Calibration, TheEmbeddedSourceIsTheBenchmark) {
  EXPECT_NE(CalibrateBenchSource().find("kopt-calibrate-bench,1"), std::string_view::npos);
  EXPECT_NE(CalibrateBenchSource().find("__global__ void calibrate_copy"), std::string_view::npos);
}

}  // namespace
}  // namespace kopt
