// `kopt diff a.cu b.cu` and `kopt explain a.cu b.cu` collect each .cu as
// `kopt explain a.cu` does: the targeted set (or the --set given) through
// kopt-launcher (the timeline library too: explain/profile_request_test.cc).
// The fake CommandRunner records the ncu command lines; the collection need
// not succeed for them to be seen.
#include "app/diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "app/explain.h"
#include "core/fake_command_runner_test_util.h"
#include "core/file_io.h"
#include "core/scoped_environment_test_util.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLauncher = "/opt/kopt/bin/kopt-launcher";
constexpr const char* kTimelineLibrary = "/opt/kopt/libkopt_timeline.so";

class LiveComparisonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("kopt_live_comparison_" + std::to_string(getpid()));
    fs::remove_all(directory_);
    fs::create_directories(directory_);
    for (const char* name : {"a.cu", "b.cu"}) {
      std::string path = (directory_ / name).string();
      ASSERT_TRUE(WriteFileAtomically(path, "__global__ void k() {}\n").ok());
      targets_.push_back(path);
    }
    runner_.OnCommand("nvidia-smi", {"--query-gpu=compute_cap"}, ExitedWith(0, "9.0\n"));
    runner_.OnCommand("nvcc", {}, ExitedWith(0, ""));
    runner_.OnCommand("ncu", {}, ExitedWith(1, "", "fake ncu: no GPU"));
  }
  void TearDown() override { fs::remove_all(directory_); }

  // The ncu profiling runs' command lines (not exports), in order.
  std::vector<std::vector<std::string>> ProfilingRuns() const {
    std::vector<std::vector<std::string>> runs;
    for (const CommandSpec& spec : runner_.CommandsOf("ncu")) {
      if (std::find(spec.argv.begin(), spec.argv.end(), "--import") == spec.argv.end())
        runs.push_back(spec.argv);
    }
    return runs;
  }
  static bool Has(const std::vector<std::string>& argv, const std::string& argument) {
    return std::find(argv.begin(), argv.end(), argument) != argv.end();
  }
  // Every profiling run was the targeted collection through kopt-launcher.
  void ExpectTargetedWithLauncher() const {
    std::vector<std::vector<std::string>> runs = ProfilingRuns();
    ASSERT_FALSE(runs.empty());
    for (const std::vector<std::string>& argv : runs) {
      EXPECT_TRUE(Has(argv, "--metrics")) << fmt::format("{}", fmt::join(argv, " "));
      EXPECT_FALSE(Has(argv, "--set")) << fmt::format("{}", fmt::join(argv, " "));
      EXPECT_TRUE(Has(argv, kLauncher)) << fmt::format("{}", fmt::join(argv, " "));
    }
  }

  ScopedEnvironment launcher_{"KOPT_LAUNCHER", kLauncher};
  ScopedEnvironment library_{"KOPT_TIMELINE_LIBRARY", kTimelineLibrary};
  fs::path directory_;
  std::vector<std::string> targets_;
  FakeCommandRunner runner_;
  std::ostringstream out_, log_;
};

TEST_F(LiveComparisonTest, DiffCollectsLikeExplain) {
  DiffOptions options;
  options.settings.before = targets_[0];
  options.settings.after = targets_[1];
  options.settings.profile.work_directory = (directory_ / "work").string();
  (void)RunDiff(options, runner_, out_, log_);
  ExpectTargetedWithLauncher();
}

TEST_F(LiveComparisonTest, DiffTakesTheSetItIsGiven) {
  DiffOptions options;
  options.settings.before = targets_[0];
  options.settings.after = targets_[1];
  options.settings.profile.work_directory = (directory_ / "work").string();
  options.settings.profile.collection.section_set = "detailed";
  (void)RunDiff(options, runner_, out_, log_);
  std::vector<std::vector<std::string>> runs = ProfilingRuns();
  ASSERT_FALSE(runs.empty());
  auto set = std::find(runs[0].begin(), runs[0].end(), "--set");
  ASSERT_NE(set, runs[0].end());
  EXPECT_EQ(*(set + 1), "detailed");
}

TEST_F(LiveComparisonTest, VersionsCollectLikeExplain) {
  ExplainOptions options;
  options.settings.profile.target = targets_[0];
  options.series.more_targets = {targets_[1]};
  options.settings.profile.work_directory = (directory_ / "work").string();
  (void)RunExplain(options, runner_, out_, log_);
  ExpectTargetedWithLauncher();
  options.settings.profile.collection.section_set = "full";
  FakeCommandRunner full;
  full.OnCommand("nvidia-smi", {"--query-gpu=compute_cap"}, ExitedWith(0, "9.0\n"));
  full.OnCommand("nvcc", {}, ExitedWith(0, ""));
  full.OnCommand("ncu", {}, ExitedWith(1, "", "fake ncu: no GPU"));
  (void)RunExplain(options, full, out_, log_);
  ASSERT_FALSE(full.CommandsOf("ncu").empty());
  std::vector<std::string> argv = full.CommandsOf("ncu")[0].argv;
  auto set = std::find(argv.begin(), argv.end(), "--set");
  ASSERT_NE(set, argv.end());
  EXPECT_EQ(*(set + 1), "full");
}

}  // namespace
}  // namespace kopt
