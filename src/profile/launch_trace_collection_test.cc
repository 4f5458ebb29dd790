#include "profile/launch_trace_collection.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "core/fake_command_runner_test_util.h"
#include "core/scoped_environment_test_util.h"

namespace kopt {
namespace {

TEST(TimelineLibrary, TheEnvironmentNamesItOrSwitchesItOff) {
  {
    ScopedEnvironment library("KOPT_TIMELINE_LIBRARY", "/opt/kopt/libkopt_timeline.so");
    EXPECT_EQ(FindTimelineLibrary(), "/opt/kopt/libkopt_timeline.so");
  }
  ScopedEnvironment off("KOPT_TIMELINE_LIBRARY", "none");
  EXPECT_EQ(FindTimelineLibrary(), "");
}

TEST(TimelineLibrary, AProgramThatDoesNotStartIsANote) {
  FakeCommandRunner runner;  // ./missing is not installed: Run returns NotFound
  std::vector<std::string> notes;
  std::filesystem::path directory = std::filesystem::temp_directory_path() / "kopt_trace_collection_test";
  std::filesystem::create_directories(directory);
  auto trace =
      CollectLaunchTrace({"./missing"}, "/lib/libkopt_timeline.so", directory.string(), 5, runner, notes);
  EXPECT_FALSE(trace.has_value());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("no launch timeline: `./missing` did not start"), std::string::npos) << notes[0];
  std::filesystem::remove_all(directory);
}

TEST(TimelineLibrary, AnUnreadableTimelineIsANote) {
  FakeCommandRunner runner;
  std::filesystem::path directory = std::filesystem::temp_directory_path() / "kopt_trace_collection_bad";
  std::filesystem::create_directories(directory);
  runner.OnCommand("./app", {}, ExitedWith(0, ""), [](const CommandSpec& spec) {
    for (const auto& [name, value] : spec.environment) {
      if (name != "KOPT_TIMELINE_OUT") continue;
      std::string path = value;
      path.replace(path.find("%p"), 2, "7");
      std::FILE* file = std::fopen(path.c_str(), "w");
      std::fputs("{\"format\":\"something else\"}\n", file);
      std::fclose(file);
    }
  });
  std::vector<std::string> notes;
  auto trace =
      CollectLaunchTrace({"./app"}, "/lib/libkopt_timeline.so", directory.string(), 5, runner, notes);
  EXPECT_FALSE(trace.has_value());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("timeline.7.jsonl line 1: not a kopt launch timeline"), std::string::npos)
      << notes[0];
  std::filesystem::remove_all(directory);
}

// On a GPU machine (KOPT_LIVE_GPU_TESTS=1, KOPT_TIMELINE_LIBRARY naming the built library, nvcc on
// PATH): tests/gpu/timeline/timeline_mix.cu under the real injection library records every kernel,
// copy and memset it makes.
TEST(LaunchTraceLiveTest, TheInjectionLibraryRecordsEveryLaunchCopyAndMemset) {
  const char* flag = std::getenv("KOPT_LIVE_GPU_TESTS");
  if (flag == nullptr || std::string(flag) != "1")
    GTEST_SKIP() << "set KOPT_LIVE_GPU_TESTS=1 (and KOPT_TIMELINE_LIBRARY) on a GPU machine with nvcc";
  std::string library = FindTimelineLibrary();
  if (library.empty()) GTEST_SKIP() << "no libkopt_timeline.so (set KOPT_TIMELINE_LIBRARY)";
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  std::filesystem::path directory = std::filesystem::temp_directory_path() / "kopt_trace_live";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  std::string source =
      (std::filesystem::path(KOPT_FIXTURE_DIR) / ".." / "gpu" / "timeline" / "timeline_mix.cu").string();
  std::string binary = (directory / "timeline_mix").string();
  CommandSpec build;
  build.argv = {"nvcc", "-O3", "-o", binary, source};
  build.timeout_seconds = 300;
  auto built = runner->Run(build);
  ASSERT_TRUE(built.ok() && built->Succeeded())
      << (built.ok() ? built->stderr_text : built.status().message());
  std::vector<std::string> notes;
  auto trace = CollectLaunchTrace({binary}, library, directory.string(), 120, *runner, notes);
  for (const std::string& note : notes) std::cout << "note: " << note << "\n";
  ASSERT_TRUE(trace.has_value());
  EXPECT_TRUE(trace->complete);
  EXPECT_EQ(trace->dropped_records, 0);
  TraceSummary summary = SummarizeLaunchTrace(*trace);
  const KernelTraceSummary* short_scale = summary.Find("short_scale");
  ASSERT_NE(short_scale, nullptr);
  EXPECT_EQ(short_scale->launches, 300);
  EXPECT_EQ(short_scale->gaps, 300);  // the memset comes first on the device
  ASSERT_NE(summary.Find("long_polynomial<256>"), nullptr);
  EXPECT_EQ(summary.Find("long_polynomial<256>")->launches, 3);
  ASSERT_NE(summary.Find("long_polynomial<64>"), nullptr);
  EXPECT_EQ(summary.Find("long_polynomial<64>")->launches, 8);
  EXPECT_EQ(summary.memcpy_count, 2);
  EXPECT_EQ(summary.memset_count, 1);
  EXPECT_GT(short_scale->host_calls, 0);
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace kopt
