#include "profile/cuda_build.h"

#include <gtest/gtest.h>

#include "core/fake_command_runner_test_util.h"
#include "core/text.h"

namespace kopt {
namespace {

using GpuList = Result<std::vector<GpuSpec>>;

// A driver query that answers with one GPU of `compute_capability` and counts its calls.
std::function<GpuList()> DriverWith(std::string compute_capability, int& calls) {
  return [compute_capability, &calls]() -> GpuList {
    ++calls;
    GpuSpec gpu;
    gpu.name = "NVIDIA Fake";
    gpu.compute_capability = compute_capability;
    return std::vector<GpuSpec>{gpu};
  };
}

std::function<GpuList()> NoDriver(int& calls) {
  return [&calls]() -> GpuList {
    ++calls;
    return Unavailable("live GPU query skipped: KOPT_NO_GPU_QUERY=1");
  };
}

TEST(DetectLocalArchitecture, NvidiaSmiAnswersFirstAndTheDriverIsNotAsked) {
  FakeCommandRunner runner;
  runner.OnCommand("nvidia-smi", {"--query-gpu=compute_cap", "--format=csv,noheader"},
                   ExitedWith(0, "9.0\n8.0\n"));
  int calls = 0;
  Result<std::string> architecture = DetectLocalArchitecture(runner, 5, DriverWith("8.6", calls));
  ASSERT_TRUE(architecture.ok()) << architecture.status().message();
  EXPECT_EQ(*architecture, "sm_90a");
  EXPECT_EQ(calls, 0);
  ASSERT_EQ(runner.commands().size(), 1u);
  EXPECT_DOUBLE_EQ(runner.commands()[0].timeout_seconds, 5);
}

TEST(DetectLocalArchitecture, TheDriverAnswersWhenNvidiaSmiCannot) {
  int calls = 0;
  FakeCommandRunner missing;
  missing.RemoveProgram("nvidia-smi");
  EXPECT_EQ(DetectLocalArchitecture(missing, 5, DriverWith("8.6", calls)).value(), "sm_86");

  FakeCommandRunner failing;
  failing.OnCommand("nvidia-smi", {}, ExitedWith(9, "", "NVIDIA-SMI has failed"));
  EXPECT_EQ(DetectLocalArchitecture(failing, 5, DriverWith("10.0", calls)).value(), "sm_100");

  FakeCommandRunner empty;
  empty.OnCommand("nvidia-smi", {}, ExitedWith(0, "\n"));
  EXPECT_EQ(DetectLocalArchitecture(empty, 5, DriverWith("9.0", calls)).value(), "sm_90a");

  FakeCommandRunner garbage;
  garbage.OnCommand("nvidia-smi", {}, ExitedWith(0, "[N/A]\n"));
  EXPECT_EQ(DetectLocalArchitecture(garbage, 5, DriverWith("8.0", calls)).value(), "sm_80");
  EXPECT_EQ(calls, 4);
}

TEST(DetectLocalArchitecture, NeitherAnsweringIsNvidiaSmisNoGpuMessage) {
  FakeCommandRunner runner;
  runner.RemoveProgram("nvidia-smi");
  int calls = 0;
  Result<std::string> architecture = DetectLocalArchitecture(runner, 5, NoDriver(calls));
  ASSERT_FALSE(architecture.ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(architecture.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(StartsWith(architecture.status().message(),
                         "no NVIDIA GPU found: nvidia-smi (from the NVIDIA driver) is not on PATH. "))
      << architecture.status().message();
  EXPECT_FALSE(Contains(architecture.status().message(), "KOPT_NO_GPU_QUERY"));

  FakeCommandRunner failing;
  failing.OnCommand("nvidia-smi", {}, ExitedWith(6, "No devices were found\n"));
  int none_calls = 0;
  auto no_gpus = [&none_calls]() -> GpuList {
    ++none_calls;
    return std::vector<GpuSpec>{};
  };
  architecture = DetectLocalArchitecture(failing, 5, no_gpus);
  ASSERT_FALSE(architecture.ok());
  EXPECT_EQ(none_calls, 1);
  EXPECT_TRUE(Contains(architecture.status().message(), "No devices were found"));

  // A driver GPU whose compute capability cannot be read is no answer either.
  int odd_calls = 0;
  architecture = DetectLocalArchitecture(failing, 5, DriverWith("", odd_calls));
  ASSERT_FALSE(architecture.ok());
  EXPECT_TRUE(Contains(architecture.status().message(), "no NVIDIA GPU found"));
}

}  // namespace
}  // namespace kopt
