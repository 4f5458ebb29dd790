#include "profile/launch_sampling.h"

#include <gtest/gtest.h>

#include <string>

namespace kopt {
namespace {

TraceActivity KernelActivity(const std::string& name, uint64_t start, long long grid_x,
                             long long dynamic_shared = 0) {
  TraceActivity kernel;
  kernel.kind = TraceActivityKind::kKernel;
  kernel.name = name;
  kernel.start_ns = start;
  kernel.end_ns = start + 10;
  kernel.correlation = static_cast<long long>(start);  // launched in start order unless a test says otherwise
  kernel.grid = {grid_x, 1, 1};
  kernel.block = {256, 1, 1};
  kernel.shared_dynamic_bytes = dynamic_shared;
  return kernel;
}

// The 20,000-launch program: two fill launches, then one tiny kernel 20,000 times; a copy at the end.
LaunchTrace TinyLaunchesTrace() {
  LaunchTrace trace;
  trace.activities.push_back(KernelActivity("_Z11fill_randomPfijff", 0, 8));
  trace.activities.push_back(KernelActivity("_Z11fill_randomPfijff", 20, 8));
  for (int i = 0; i < 20000; ++i)
    trace.activities.push_back(KernelActivity("_Z9tiny_stepPfPKffi", 100 + 20 * i, 8));
  TraceActivity copy;
  copy.kind = TraceActivityKind::kMemcpy;
  copy.name = "DtoH";
  copy.start_ns = 500000;
  copy.end_ns = 500010;
  trace.activities.push_back(copy);
  return trace;
}

TEST(LaunchSampling, ProfilesTheFirstLaunchesOfEachConfiguration) {
  SamplingPlan plan = PlanLaunchSampling(TinyLaunchesTrace(), 3);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].function_name, "fill_random");
  EXPECT_EQ(plan.kernels[0].launches, 2);
  EXPECT_EQ(plan.kernels[0].profiled, 2);
  EXPECT_EQ(plan.kernels[1].function_name, "tiny_step");
  EXPECT_EQ(plan.kernels[1].launches, 20000);
  EXPECT_EQ(plan.kernels[1].profiled, 3);
  EXPECT_EQ(plan.total_launches, 20002);  // the copy is not a launch
  EXPECT_EQ(plan.total_profiled, 5);
  EXPECT_TRUE(plan.Samples());
  EXPECT_EQ(plan.ncu_arguments,
            (std::vector<std::string>{"--filter-mode", "per-launch-config", "--launch-count", "3"}));
  // The sample is the program's first 5 launches: ncu can end the program after them.
  EXPECT_EQ(plan.early_stop_arguments, (std::vector<std::string>{"--launch-count", "5", "--kill", "yes"}));
  EXPECT_EQ(
      plan.Describe(),
      "profiled 5 of the 20002 launches the launch timeline recorded (2 of 2 of fill_random and 3 of 20000 "
      "of tiny_step): the first 3 of each launch configuration; --launches-per-kernel 0 profiles every "
      "launch");
}

TEST(LaunchSampling, EachLaunchConfigurationIsSampled) {
  LaunchTrace trace;
  for (int i = 0; i < 10; ++i) trace.activities.push_back(KernelActivity("_Z4gemmv", i * 100, 64));
  for (int i = 0; i < 10; ++i) trace.activities.push_back(KernelActivity("_Z4gemmv", 2000 + i * 100, 128));
  trace.activities.push_back(KernelActivity("_Z4gemmv", 5000, 128, /*dynamic_shared=*/4096));
  SamplingPlan plan = PlanLaunchSampling(trace, 2);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].configurations, 3);
  EXPECT_EQ(plan.kernels[0].profiled, 2 + 2 + 1);
  // Launches of the first configuration left out come before sampled ones: not a prefix.
  EXPECT_TRUE(plan.early_stop_arguments.empty());
  EXPECT_FALSE(plan.ncu_arguments.empty());
}

TEST(LaunchSampling, APrefixIsJudgedInLaunchCallOrderNotGpuStartOrder) {
  // y was launched first (correlation 1) on another stream but started on the GPU last; x four times.
  LaunchTrace trace;
  for (int i = 0; i < 4; ++i) {
    trace.activities.push_back(KernelActivity("_Z1xv", i * 10, 1));
    trace.activities.back().correlation = 2 + i;
  }
  trace.activities.push_back(KernelActivity("_Z1yv", 100, 1));
  trace.activities.back().correlation = 1;
  SamplingPlan plan = PlanLaunchSampling(trace, 3);
  EXPECT_EQ(plan.total_profiled, 4);
  EXPECT_EQ(plan.early_stop_arguments, (std::vector<std::string>{"--launch-count", "4", "--kill", "yes"}));

  trace.activities.back().correlation = 99;  // y launched after the left-out fourth x
  EXPECT_TRUE(PlanLaunchSampling(trace, 3).early_stop_arguments.empty());
}

TEST(LaunchSampling, NoEarlyStopForSeveralProcessesOrWhenNothingIsLeftOut) {
  LaunchTrace trace = TinyLaunchesTrace();
  trace.files = {"timeline.1.jsonl", "timeline.2.jsonl"};
  SamplingPlan plan = PlanLaunchSampling(trace, 3);
  EXPECT_TRUE(plan.Samples());
  EXPECT_TRUE(plan.early_stop_arguments.empty());
  EXPECT_TRUE(PlanLaunchSampling(TinyLaunchesTrace(), 0).early_stop_arguments.empty());
}

TEST(LaunchSampling, ZeroOrFewLaunchesProfileEverything) {
  SamplingPlan all = PlanLaunchSampling(TinyLaunchesTrace(), 0);
  EXPECT_EQ(all.total_profiled, 20002);
  EXPECT_FALSE(all.Samples());
  EXPECT_TRUE(all.ncu_arguments.empty());
  EXPECT_NE(all.Describe().find("profiled every launch the launch timeline recorded (20002"),
            std::string::npos);

  LaunchTrace small;
  small.activities.push_back(KernelActivity("_Z1kv", 0, 1));
  SamplingPlan few = PlanLaunchSampling(small, 3);
  EXPECT_FALSE(few.Samples());
  EXPECT_TRUE(few.ncu_arguments.empty());  // nothing to leave out: ncu's plain command line

  SamplingPlan empty = PlanLaunchSampling(LaunchTrace{}, 3);
  EXPECT_EQ(empty.total_launches, 0);
  EXPECT_FALSE(empty.Samples());
}

}  // namespace
}  // namespace kopt
