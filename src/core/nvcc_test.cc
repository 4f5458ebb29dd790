#include "core/nvcc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/fake_command_runner_test_util.h"
#include "core/file_io.h"

namespace kopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NvccTest, FindNvccPrefersTheEnvironmentThenPathThenTheDefault) {
  FakeCommandRunner runner;
  runner.AddProgram("nvcc");
  EXPECT_EQ(*FindNvcc(runner, "/opt/cuda/bin/nvcc"), "/opt/cuda/bin/nvcc");
  EXPECT_EQ(*FindNvcc(runner, nullptr), "/fake/bin/nvcc");
  EXPECT_EQ(*FindNvcc(runner, ""), "/fake/bin/nvcc");
  runner.RemoveProgram("nvcc");
  Result<std::string> missing = FindNvcc(runner, nullptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(
      missing.status().message(),
      "nvcc not found (searched KOPT_NVCC, PATH, /usr/local/cuda/bin/nvcc); install the CUDA toolkit or "
      "set KOPT_NVCC to nvcc's path");
  EXPECT_EQ(FindNvcc(runner, "/nowhere/nvcc").status().message(),
            "KOPT_NVCC=/nowhere/nvcc: not an executable program; expected the path of nvcc");
}

TEST(NvccTest, ArchitectureFlagBuildsTheTargetAndNothingElse) {
  EXPECT_EQ(NvccArchitectureFlag("sm_80"), "-arch=sm_80");
  EXPECT_EQ(NvccArchitectureFlag("native"), "-arch=native");
  EXPECT_EQ(NvccArchitectureFlag("sm_90a"), "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]");
  EXPECT_EQ(NvccArchitectureFlag("sm_100f"), "-gencode=arch=compute_100f,code=[sm_100f,compute_100f]");
}

TEST(NvccTest, GencodeFlagForOneTarget) {
  EXPECT_EQ(GencodeFlagFor("sm_90a").value(), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(GencodeFlagFor("sm_86").value(), "-gencode=arch=compute_86,code=sm_86");
  Result<std::string> bad = GencodeFlagFor("90");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_EQ(bad.status().message(),
            "architecture '90' is not of the form sm_<digits>[suffix] such as sm_90a");
}

TEST(NvccTest, VersionIsStdoutVerbatimAndAFailureIsUnavailable) {
  FakeCommandRunner runner;
  runner.OnCommand("nvcc", {"--version"}, ExitedWith(0, "Cuda compilation tools, release 12.4\n"));
  EXPECT_EQ(*QueryNvccVersion(runner, "/fake/bin/nvcc"), "Cuda compilation tools, release 12.4\n");
  ASSERT_EQ(runner.CommandsOf("nvcc").size(), 1u);
  EXPECT_THAT(runner.CommandsOf("nvcc")[0].argv, ElementsAre("/fake/bin/nvcc", "--version"));
  EXPECT_EQ(runner.CommandsOf("nvcc")[0].timeout_seconds, 60);

  runner.OnCommand("nvcc", {"--version"}, ExitedWith(1, "", "broken install"));
  Result<std::string> failed = QueryNvccVersion(runner, "/fake/bin/nvcc");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(failed.status().message(), "/fake/bin/nvcc --version failed (exit code 1): broken install");

  runner.RemoveProgram("nvcc");
  EXPECT_EQ(QueryNvccVersion(runner, "/fake/bin/nvcc").status().kind(), ErrorKind::kNotFound);
}

TEST(NvccTest, RunNvccKeepsAFailedRunAsDataAndPassesAStartFailureThrough) {
  FakeCommandRunner runner;
  runner.OnCommand("nvcc", {"-c"}, ExitedWith(2, "", "error: x"));
  CommandSpec spec;
  spec.argv = {"nvcc", "-c", "a b.cu"};
  Result<NvccRun> run = RunNvcc(runner, spec);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->result.exit_code, 2);
  EXPECT_EQ(run->command_line, CommandLineForDisplay(spec.argv));
  EXPECT_GE(run->seconds, 0);
  runner.RemoveProgram("nvcc");
  EXPECT_EQ(RunNvcc(runner, spec).status().kind(), ErrorKind::kNotFound);
}

TEST(NvccTest, CheckNvccBuildNamesTheCommandAndNvccsWords) {
  std::filesystem::path output = std::filesystem::path(::testing::TempDir()) / "nvcc_test_output";
  std::filesystem::remove(output);
  NvccRun run;
  run.command_line = "nvcc -o out a.cu";

  run.result = ExitedWith(1, "note\n", "a.cu(3): error: bad\n");
  Status failed = CheckNvccBuild(run, "a.cu", output, 30);
  EXPECT_EQ(failed.kind(), ErrorKind::kWorkFailed);
  EXPECT_EQ(failed.message(),
            "'a.cu' does not compile (nvcc exit code 1)\n$ nvcc -o out a.cu\nnote\na.cu(3): error: bad");

  run.result = TimedOutResult();
  EXPECT_EQ(CheckNvccBuild(run, "a.cu", output, 2.5).message(),
            "nvcc timed out after 2.5 s compiling 'a.cu'\n$ nvcc -o out a.cu");

  run.result = ExitedWith(0, "");
  EXPECT_EQ(CheckNvccBuild(run, "a.cu", output, 30).message(),
            "nvcc reported success but wrote no program at '" + output.string() + "'\n$ nvcc -o out a.cu");

  ASSERT_TRUE(WriteFileAtomically(output.string(), "ELF").ok());
  EXPECT_TRUE(CheckNvccBuild(run, "a.cu", output, 30).ok());
  std::filesystem::remove(output);
}

}  // namespace
}  // namespace kopt
