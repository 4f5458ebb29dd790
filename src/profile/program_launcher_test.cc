// Tests of kopt-launcher's contract (program_launcher.h) and of the launcher binary itself
// (<build>/src/kopt-launcher, run on a shared object built here with the host compiler; the binary
// tests skip without it or without a compiler; no GPU needed: the launcher's CUDA start is best-effort).
#include "profile/program_launcher.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/scoped_environment_test_util.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream stream(path);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

TEST(ProgramLauncherTest, TheEnvironmentNamesTheLauncherOrSwitchesItOff) {
  {
    ScopedEnvironment launcher("KOPT_LAUNCHER", "/opt/kopt/bin/kopt-launcher");
    EXPECT_EQ(FindProgramLauncher(), "/opt/kopt/bin/kopt-launcher");
  }
  ScopedEnvironment off("KOPT_LAUNCHER", "none");
  EXPECT_EQ(FindProgramLauncher(), "");
}

TEST(ProgramLauncherTest, TheWarmUpIsWantedUnlessSwitchedOff) {
  {
    ScopedEnvironment unset("KOPT_LAUNCHER_WARMUP", nullptr);
    EXPECT_TRUE(LauncherWarmupWanted());
  }
  {
    ScopedEnvironment on("KOPT_LAUNCHER_WARMUP", "1");
    EXPECT_TRUE(LauncherWarmupWanted());
  }
  ScopedEnvironment off("KOPT_LAUNCHER_WARMUP", "0");
  EXPECT_FALSE(LauncherWarmupWanted());
}

TEST(ProgramLauncherTest, TheCommandIsTheLauncherTheReadyFileAndTheProgram) {
  EXPECT_EQ(LauncherArgv("/k/kopt-launcher", "/w/app.ready", "/w/app.so"),
            (std::vector<std::string>{"/k/kopt-launcher", "/w/app.ready", "/w/app.so"}));
  EXPECT_EQ(LauncherArgv("/k/kopt-launcher", "/w/app.ready", "/w/app.so", {"4096", "--check"}),
            (std::vector<std::string>{"/k/kopt-launcher", "/w/app.ready", "/w/app.so", "4096", "--check"}));
}

TEST(ProgramLauncherTest, TheSharedObjectIsPositionIndependentWithEverySymbolResolved) {
  EXPECT_EQ(SharedObjectFlags(),
            (std::vector<std::string>{"-shared", "-Xcompiler", "-fPIC", "-Xlinker", "-zdefs"}));
}

TEST(ProgramLauncherTest, TheReadyFileSaysHowTheBuildEnded) {
  fs::path directory = fs::temp_directory_path() / ("kopt_launcher_ready_" + std::to_string(getpid()));
  fs::create_directories(directory);
  ASSERT_TRUE(WriteReadyFile((directory / "ok.ready").string(), true).ok());
  ASSERT_TRUE(WriteReadyFile((directory / "failed.ready").string(), false).ok());
  EXPECT_EQ(ReadAll(directory / "ok.ready"), "ok\n");
  EXPECT_EQ(ReadAll(directory / "failed.ready"), "failed\n");
  EXPECT_FALSE(fs::exists(directory / "ok.ready.partial"));
  EXPECT_FALSE(WriteReadyFile((directory / "missing" / "x.ready").string(), true).ok());
  fs::remove_all(directory);
}

TEST(ProgramLauncherTest, OnlyTheLaunchersOwnLoadFailuresCount) {
  EXPECT_TRUE(LauncherCouldNotLoad(
      "kopt-launcher: cannot load /w/app.so: /w/app.so: undefined symbol: cublasCreate_v2\n"
      "==ERROR== The application returned an error code (98)."));
  EXPECT_TRUE(LauncherCouldNotLoad("kopt-launcher: /w/app.so has no main\n"));
  EXPECT_FALSE(LauncherCouldNotLoad("==ERROR== The application returned an error code (11)."));
  EXPECT_FALSE(LauncherCouldNotLoad("app: cannot load the weights"));
}

TEST(ProgramLauncherTest, TheWarmUpLaunchIsDroppedFromTheProfile) {
  EXPECT_TRUE(RunsLauncher({"/opt/kopt/bin/kopt-launcher", "/w/app.ready", "/w/app.so"}));
  EXPECT_FALSE(RunsLauncher({"/w/app"}));
  EXPECT_EQ(LauncherWarmupEnvironment(), (std::pair<std::string, std::string>{"KOPT_LAUNCHER_WARMUP", "1"}));
  Profile profile;
  profile.launches.resize(3);
  profile.launches[0].kernel_name = "kopt_warmup";
  profile.launches[1].kernel_name = "scale(float*, int)";
  profile.launches[2].kernel_name = "kopt_warmup_not";
  EXPECT_EQ(DropLauncherWarmup(profile), 1u);
  ASSERT_EQ(profile.launches.size(), 2u);
  EXPECT_EQ(profile.launches[0].FunctionName(), "scale");
  EXPECT_EQ(DropLauncherWarmup(profile), 0u);
}

// ---- the kopt-launcher binary ----------------------------------------------

class LauncherBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::error_code error;
    fs::path self = fs::read_symlink("/proc/self/exe", error);
    launcher_ = self.parent_path().parent_path() / "src" / "kopt-launcher";
    if (!fs::is_regular_file(launcher_)) GTEST_SKIP() << "kopt-launcher not built beside the tests";
    directory_ = fs::temp_directory_path() / ("kopt_launcher_binary_" + std::to_string(getpid()));
    fs::create_directories(directory_);
    std::ofstream(directory_ / "program.cc")
        << "#include <cstdio>\n#include <cstdlib>\n"
           "int main(int argc, char** argv) { std::printf(\"%d %s\\n\", argc, argc > 1 ? argv[1] : \"-\");"
           " return argc > 1 ? std::atoi(argv[1]) : 0; }\n";
    std::string build = "c++ -shared -fPIC -o " + (directory_ / "program.so").string() + " " +
                        (directory_ / "program.cc").string() + " 2>/dev/null";
    if (std::system(build.c_str()) != 0) GTEST_SKIP() << "no host C++ compiler to build a shared object";
  }
  void TearDown() override {
    if (!directory_.empty()) fs::remove_all(directory_);
  }

  // The launcher's exit status; its standard output in `output`.
  int Launch(const std::string& ready, const std::string& program, const std::string& arguments,
             std::string& output) {
    fs::path captured = directory_ / "output.txt";
    std::string command = "KOPT_LAUNCHER_WAIT_SECONDS=0.2 " + launcher_.string() + " " + ready + " " +
                          program + " " + arguments + " >" + captured.string() + " 2>&1";
    int status = std::system(command.c_str());
    output = ReadAll(captured);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  fs::path launcher_, directory_;
};

TEST_F(LauncherBinaryTest, RunsTheProgramsMainOnceTheBuildIsReady) {
  std::string ready = (directory_ / "program.ready").string();
  ASSERT_TRUE(WriteReadyFile(ready, true).ok());
  std::string output;
  EXPECT_EQ(Launch(ready, (directory_ / "program.so").string(), "7", output), 7);
  EXPECT_EQ(output, "2 7\n");  // argv: the shared object, then the arguments
}

TEST_F(LauncherBinaryTest, AFailedBuildRunsNothing) {
  std::string ready = (directory_ / "program.ready").string();
  ASSERT_TRUE(WriteReadyFile(ready, false).ok());
  std::string output;
  EXPECT_EQ(Launch(ready, (directory_ / "program.so").string(), "7", output), kLauncherBuildFailed);
  EXPECT_EQ(output, "");
}

TEST_F(LauncherBinaryTest, NoReadyFileInTimeAndAnUnloadableProgramAreTheirOwnStatuses) {
  std::string output;
  EXPECT_EQ(Launch((directory_ / "never.ready").string(), (directory_ / "program.so").string(), "", output),
            kLauncherNoReadyFile);
  std::string ready = (directory_ / "program.ready").string();
  ASSERT_TRUE(WriteReadyFile(ready, true).ok());
  EXPECT_EQ(Launch(ready, (directory_ / "missing.so").string(), "", output), kLauncherNotLoaded);
  EXPECT_TRUE(LauncherCouldNotLoad(output)) << output;
}

}  // namespace
}  // namespace kopt
