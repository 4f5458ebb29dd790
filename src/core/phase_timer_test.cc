#include "core/phase_timer.h"

#include <gtest/gtest.h>

#include <thread>

namespace kopt {
namespace {

using Clock = PhaseTimer::Clock;
using std::chrono::milliseconds;

TEST(PhaseTimerTest, RecordsStartAndDurationRelativeToTheOrigin) {
  Clock::time_point origin = Clock::now();
  PhaseTimer timer(origin);
  timer.Add("ncu run", origin + milliseconds(1500), origin + milliseconds(4000));
  timer.Add("build (nvcc)", origin + milliseconds(100), origin + milliseconds(1400));
  std::vector<PhaseTiming> phases = timer.Phases();
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "build (nvcc)");  // by start time, not recording order
  EXPECT_DOUBLE_EQ(phases[0].start_seconds, 0.1);
  EXPECT_DOUBLE_EQ(phases[0].seconds, 1.3);
  EXPECT_EQ(phases[1].name, "ncu run");
  EXPECT_DOUBLE_EQ(phases[1].start_seconds, 1.5);
  EXPECT_DOUBLE_EQ(phases[1].seconds, 2.5);
}

TEST(PhaseTimerTest, AnEndBeforeTheStartRecordsZeroSeconds) {
  Clock::time_point origin = Clock::now();
  PhaseTimer timer(origin);
  timer.Add("odd", origin + milliseconds(20), origin + milliseconds(10));
  EXPECT_DOUBLE_EQ(timer.Phases().at(0).seconds, 0);
}

TEST(PhaseTimerTest, AScopeRecordsOnceWhenStoppedAndDestroyed) {
  PhaseTimer timer;
  {
    PhaseTimer::Scope scope(&timer, "analysis");
    std::this_thread::sleep_for(milliseconds(5));
    scope.Stop();
    scope.Stop();
  }
  std::vector<PhaseTiming> phases = timer.Phases();
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].name, "analysis");
  EXPECT_GE(phases[0].seconds, 0.004);
}

TEST(PhaseTimerTest, AScopeWithoutATimerRecordsNothing) {
  PhaseTimer::Scope scope(nullptr, "nothing");
  scope.Stop();  // must not crash
}

TEST(PhaseTimerTest, PhasesFromSeveralThreadsAreAllKept) {
  PhaseTimer timer;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&timer, t] {
      for (int i = 0; i < 50; ++i) PhaseTimer::Scope scope(&timer, "thread " + std::to_string(t));
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(timer.Phases().size(), 200u);
}

TEST(DescribePhasesTest, OneLinePerPhaseAndTheTotalToTheLastEnd) {
  std::vector<PhaseTiming> phases = {
      {"build (nvcc)", 0.05, 1.8}, {"disassembly (cuobjdump)", 1.9, 1.2}, {"ncu run", 2.3, 2.7}};
  std::vector<std::string> lines = DescribePhases(phases);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "  0.05–1.85   s   1.80 s  build (nvcc)");
  EXPECT_EQ(lines[2], "  2.30–5.00   s   2.70 s  ncu run");
  EXPECT_EQ(lines[3], "  5.00 s in all, from the start of the command");
  EXPECT_TRUE(DescribePhases({}).empty());
}

}  // namespace
}  // namespace kopt
