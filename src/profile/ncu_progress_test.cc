#include "profile/ncu_progress.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixture_reader.h"

namespace kopt {
namespace {

// ncu's line grows while it replays the launch: the launch is reported as soon as its ID arrives, once.
TEST(NcuProgressWatcher, ReportsEachLaunchOnceAsItsLineArrives) {
  std::vector<std::string> lines;
  NcuProgressWatcher watcher([&](std::string_view line) { lines.emplace_back(line); }, 2);
  watcher.Feed("==PROF== Connected to process 959 (/tmp/app)\n==PROF== Profiling \"scale(float *)\" - ");
  EXPECT_TRUE(lines.empty());
  watcher.Feed("0: 0%....50%");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "profiling launch 1 of 2: scale (ncu launch ID 0)");
  watcher.Feed("....100% - 10 passes\nprogram output\n");
  watcher.Feed(
      "==PROF== Profiling \"void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, "
      "float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, 4>(float *, const float *, "
      "long)\" - 7: 0%....50%....100% - 37 passes\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(
      lines[1],
      "profiling launch 2 of 2: cunn_SoftMaxForwardReg<float, float, float, SoftMaxForwardEpilogue, …> (ncu "
      "launch ID 7)");
  EXPECT_EQ(watcher.LaunchesSeen(), 2);
}

// The H200 capture of a successful run: one launch; the program's own lines are not launches.
TEST(NcuProgressWatcher, H200OutputHasOneLaunch) {
  std::vector<std::string> lines;
  NcuProgressWatcher watcher([&](std::string_view line) { lines.emplace_back(line); }, 0);
  std::string output = ReadFixture("collector/ncu_success.txt");
  for (size_t at = 0; at < output.size(); at += 7) watcher.Feed(std::string_view(output).substr(at, 7));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "profiling launch 1: scale (ncu launch ID 0)");
}

}  // namespace
}  // namespace kopt
