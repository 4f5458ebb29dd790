// Tests of the launch_overhead tool (analysis/tools/launch_overhead.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/stalls.h"
#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(OccupancyTools, LaunchOverheadNeedsManyLaunches) {
  Profile profile = LoadFixture("launch_overhead");
  ASSERT_GE(profile.launches.size(), 10u);
  profile.launches.resize(1);
  Diagnosis diagnosis = Diagnose(profile, DiagnoseOptions{});
  ASSERT_EQ(diagnosis.kernels.size(), 1u);
  EXPECT_EQ(FindFinding(diagnosis.kernels[0], "launch_overhead"), nullptr);
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

// The blind set's 20,000-launch program with a launch timeline: `launches` launches of tiny_step of
// `duration_ns` each, `gap_ns` apart on the GPU.
LaunchTrace TinyStepTrace(int launches, uint64_t duration_ns, uint64_t gap_ns) {
  LaunchTrace trace;
  uint64_t start = 1000;
  for (int i = 0; i < launches; ++i) {
    TraceActivity kernel;
    kernel.name = "_Z9tiny_stepPfPKffi";
    kernel.start_ns = start;
    kernel.end_ns = start + duration_ns;
    kernel.grid = {8, 1, 1};
    kernel.block = {256, 1, 1};
    trace.activities.push_back(kernel);
    start += duration_ns + gap_ns;
  }
  return trace;
}

KernelDiagnosis DiagnoseTinyLaunches(std::optional<LaunchTrace> trace) {
  Profile profile = LoadFixtureFrom("h200_blind", "many_tiny_launches");
  profile.trace = std::move(trace);
  DiagnoseOptions options;
  options.ceilings = &H200Ceilings();
  Diagnosis diagnosis = Diagnose(profile, options);
  EXPECT_FALSE(diagnosis.kernels.empty());
  return diagnosis.kernels.empty() ? KernelDiagnosis{} : diagnosis.kernels.front();
}

const Evidence* FindEvidence(const Finding& finding, const std::string& metric) {
  for (const Evidence& evidence : finding.evidence) {
    if (evidence.metric == metric) return &evidence;
  }
  return nullptr;
}

// Issue 18, kind 7: with a timeline the tool counts every launch of the program and uses the measured
// gap, not the 3 µs threshold; the gap is in the evidence and the launch overhead ranks first.
TEST(LaunchOverhead, TheTimelinesMeasuredGapReplacesTheAssumedLaunchCost) {
  KernelDiagnosis kernel = DiagnoseTinyLaunches(TinyStepTrace(20000, 2500, 1500));
  ASSERT_FALSE(kernel.findings.empty());
  const Finding& top = kernel.findings.front();
  EXPECT_EQ(top.tool, "launch_overhead") << DescribeFindings(kernel);
  const Evidence* gap = FindEvidence(top, "median GPU idle gap before a launch (CUPTI timeline)");
  ASSERT_NE(gap, nullptr);
  EXPECT_DOUBLE_EQ(gap->value, 1.5);
  EXPECT_EQ(gap->unit, "µs");
  const Evidence* launches = FindEvidence(top, "launches of this kernel (CUPTI timeline)");
  ASSERT_NE(launches, nullptr);
  EXPECT_DOUBLE_EQ(launches->value, 20000);
  EXPECT_EQ(FindEvidence(top, "launch cost (threshold)"), nullptr);
  EXPECT_NE(top.title.find("1.50 µs idle between them"), std::string::npos) << top.title;
  EXPECT_NE(top.gain_method.find("median gap the CUPTI timeline measured"), std::string::npos);
}

// The gain follows the measured gap: a longer gap is a larger share of each launch.
TEST(LaunchOverhead, ALongerMeasuredGapIsALargerGain) {
  const Finding* short_gap = nullptr;
  const Finding* long_gap = nullptr;
  KernelDiagnosis with_short = DiagnoseTinyLaunches(TinyStepTrace(1000, 2500, 200));
  KernelDiagnosis with_long = DiagnoseTinyLaunches(TinyStepTrace(1000, 2500, 20000));
  short_gap = FindFinding(with_short, "launch_overhead");
  long_gap = FindFinding(with_long, "launch_overhead");
  ASSERT_NE(long_gap, nullptr);
  if (short_gap) EXPECT_LT(short_gap->estimated_gain, long_gap->estimated_gain);
}

// Without a timeline: the profile's launches and the threshold's launch cost, said so.
TEST(LaunchOverhead, WithoutATimelineTheThresholdsCostIsUsedAndSaid) {
  KernelDiagnosis kernel = DiagnoseTinyLaunches(std::nullopt);
  const Finding* finding = FindFinding(kernel, "launch_overhead");
  ASSERT_NE(finding, nullptr);
  ASSERT_NE(FindEvidence(*finding, "launch cost (threshold)"), nullptr);
  EXPECT_NE(finding->gain_method.find("the launch cost is the threshold's"), std::string::npos);
}

// A timeline whose kernel launches only a few times: no launch-overhead finding from the timeline's count.
TEST(LaunchOverhead, AFewTimedLaunchesAreNotLaunchOverhead) {
  KernelDiagnosis kernel = DiagnoseTinyLaunches(TinyStepTrace(5, 2500, 1500));
  EXPECT_EQ(FindFinding(kernel, "launch_overhead"), nullptr) << DescribeFindings(kernel);
}

}  // namespace
}  // namespace kopt
