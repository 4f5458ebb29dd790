#include "profile/ncu_progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/interrupt.h"
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

TEST(FormatElapsedSeconds, WholeSecondsThenMinutes) {
  EXPECT_EQ(FormatElapsedSeconds(0.4), "0 s");
  EXPECT_EQ(FormatElapsedSeconds(59.9), "59 s");
  EXPECT_EQ(FormatElapsedSeconds(60), "1 min 00 s");
  EXPECT_EQ(FormatElapsedSeconds(3725.5), "62 min 05 s");
}

// The lines a progress line draws, guarded: the ticker thread draws too.
class DrawnLines {
 public:
  CollectionProgress Sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(line);
      changed_.notify_all();
    };
  }
  std::vector<std::string> Lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  // Waits (at most 5 s) until `line` was drawn.
  bool AwaitLine(const std::string& line) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(5),
                             [&] { return std::find(lines_.begin(), lines_.end(), line) != lines_.end(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
};

// A step is drawn at once; its whole seconds are added from one on, each time they change; a new step
// counts from zero again, a launch within the step does not.
TEST(CollectionProgressLine, RedrawsTheStepWithItsWholeSeconds) {
  DrawnLines drawn;
  double now = 100;
  CollectionProgressLine line(drawn.Sink(), 0, [&now] { return now; });
  line.Step("profiling python3 under ncu: 31 launches sampled of 20002");
  now = 100.5;
  line.Refresh();  // under a second: nothing new
  now = 101.2;
  line.Refresh();
  line.Refresh();  // the same second: drawn once
  now = 112.9;
  line.Refresh();
  now = 113;
  line.Update("profiling launch 4 of 31: scale (ncu launch ID 3)");
  now = 114;
  line.Step("exporting the raw page (ncu --import)");
  now = 175.5;
  line.Refresh();
  EXPECT_EQ(drawn.Lines(), (std::vector<std::string>{
                               "profiling python3 under ncu: 31 launches sampled of 20002",
                               "profiling python3 under ncu: 31 launches sampled of 20002 · 1 s",
                               "profiling python3 under ncu: 31 launches sampled of 20002 · 12 s",
                               "profiling launch 4 of 31: scale (ncu launch ID 3) · 13 s",
                               "exporting the raw page (ncu --import)",
                               "exporting the raw page (ncu --import) · 1 min 01 s",
                           }));
}

// A long kernel name is cut so that the seconds stay on the line.
TEST(CollectionProgressLine, ALongLineKeepsItsSeconds) {
  DrawnLines drawn;
  double now = 0;
  CollectionProgressLine line(drawn.Sink(), 0, [&now] { return now; });
  line.Step("profiling launch 1 of 2: " + std::string(200, 'k'));
  now = 7;
  line.Refresh();
  ASSERT_EQ(drawn.Lines().size(), 2u);
  EXPECT_TRUE(drawn.Lines()[1].ends_with("… · 7 s")) << drawn.Lines()[1];
  EXPECT_LT(drawn.Lines()[1].size(), 110u);
}

// The ticker redraws while nothing else happens (ncu printing nothing), and once Stop returned nothing is
// drawn any more, whatever the clock says.
TEST(CollectionProgressLine, TheTickerRedrawsAndStopsBeforeStopReturns) {
  DrawnLines drawn;
  std::atomic<double> now = 0;
  CollectionProgressLine line(drawn.Sink(), 0.001, [&now] { return now.load(); });
  line.Step("profiling app under ncu");
  now = 3.5;
  EXPECT_TRUE(drawn.AwaitLine("profiling app under ncu · 3 s"));
  line.Stop();
  size_t count = drawn.Lines().size();
  now = 10;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  line.Step("exporting the raw page (ncu --import)");
  line.Refresh();
  line.Stop();  // again: nothing to do
  EXPECT_EQ(drawn.Lines().size(), count);
}

// While kopt is being interrupted the handler's message must stay the last line: nothing is drawn.
TEST(CollectionProgressLine, NothingIsDrawnWhileInterrupted) {
  DrawnLines drawn;
  double now = 0;
  CollectionProgressLine line(drawn.Sink(), 0, [&now] { return now; });
  line.Step("profiling app under ncu");
  {
    InterruptCleanup during_interrupt([&] {
      now = 5;
      line.Refresh();
      line.Update("profiling launch 1 of 3: scale (ncu launch ID 0)");
    });
    RunInterruptCleanupsForTest(SIGINT);
  }
  EXPECT_EQ(drawn.Lines(), std::vector<std::string>{"profiling app under ncu"});
  line.Refresh();  // after the interrupt (a test's): drawn again
  EXPECT_EQ(drawn.Lines().back(), "profiling launch 1 of 3: scale (ncu launch ID 0) · 5 s");
}

// No callback: nothing to draw to, no thread.
TEST(CollectionProgressLine, WithoutACallbackNothingHappens) {
  CollectionProgressLine line(nullptr, 0.001);
  line.Step("building app.cu (nvcc)");
  line.Refresh();
  line.Stop();
}

}  // namespace
}  // namespace kopt
