#include "harness/timing_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kopt {
namespace {

TEST(TimingStatisticsTest, QuartilesOfFourValuesInterpolate) {
  SampleStatistics statistics = Summarize(std::vector<double>{4, 1, 3, 2});
  EXPECT_EQ(statistics.count, 4);
  EXPECT_DOUBLE_EQ(statistics.min, 1);
  EXPECT_DOUBLE_EQ(statistics.max, 4);
  EXPECT_DOUBLE_EQ(statistics.q1, 1.75);
  EXPECT_DOUBLE_EQ(statistics.median, 2.5);
  EXPECT_DOUBLE_EQ(statistics.q3, 3.25);
  EXPECT_DOUBLE_EQ(statistics.iqr, 1.5);
  EXPECT_DOUBLE_EQ(statistics.mean, 2.5);
}

TEST(TimingStatisticsTest, QuartilesOfFiveValuesAreExactRanks) {
  SampleStatistics statistics = Summarize(std::vector<double>{5, 3, 1, 4, 2});
  EXPECT_DOUBLE_EQ(statistics.q1, 2);
  EXPECT_DOUBLE_EQ(statistics.median, 3);
  EXPECT_DOUBLE_EQ(statistics.q3, 4);
  EXPECT_DOUBLE_EQ(statistics.iqr, 2);
}

TEST(TimingStatisticsTest, BesselStdevAndRelativeStdev) {
  SampleStatistics statistics = Summarize(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(statistics.mean, 5);
  // Sum of squared deviations 32, divided by n - 1 = 7.
  EXPECT_NEAR(statistics.stdev, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(statistics.relative_stdev, std::sqrt(32.0 / 7.0) / 5, 1e-12);
  EXPECT_DOUBLE_EQ(statistics.median, 4.5);
}

TEST(TimingStatisticsTest, EmptyAndSingleSample) {
  SampleStatistics empty = Summarize(std::vector<double>{});
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.median, 0);
  SampleStatistics single = Summarize(std::vector<double>{3e-5});
  EXPECT_EQ(single.count, 1);
  EXPECT_DOUBLE_EQ(single.median, 3e-5);
  EXPECT_DOUBLE_EQ(single.q1, 3e-5);
  EXPECT_DOUBLE_EQ(single.q3, 3e-5);
  EXPECT_EQ(single.stdev, 0);
  EXPECT_EQ(single.relative_stdev, 0);
}

TEST(TimingStatisticsTest, QuantileClampsItsArgument) {
  std::vector<double> sorted{1, 2, 3};
  EXPECT_DOUBLE_EQ(QuantileOfSorted(sorted, -1), 1);
  EXPECT_DOUBLE_EQ(QuantileOfSorted(sorted, 2), 3);
  EXPECT_DOUBLE_EQ(QuantileOfSorted(sorted, 0.9), 2.8);
}

TEST(TimingStatisticsTest, StdevAroundAnotherReference) {
  std::vector<double> values{1, 1, 1};
  EXPECT_DOUBLE_EQ(BesselStdevAround(values, 1), 0);
  EXPECT_NEAR(BesselStdevAround(values, 2), std::sqrt(3.0 / 2.0), 1e-12);
}

StoppingOptions FastOptions() {
  StoppingOptions options;
  options.min_samples = 10;
  options.max_samples = 100000;
  options.max_relative_stdev = 0.005;
  options.min_gpu_seconds = 0.0005;
  options.timeout_seconds = 10;
  return options;
}

// Adds samples until the rule stops (or `limit` samples); returns the reason.
StopReason RunUntilStop(NoiseStoppingRule& rule, const std::vector<double>& pattern, int64_t limit) {
  for (int64_t index = 0; index < limit; ++index) {
    rule.AddSample(pattern[static_cast<size_t>(index) % pattern.size()]);
    StopReason reason = rule.Check(0.0);
    if (reason != StopReason::kContinue) return reason;
  }
  return StopReason::kContinue;
}

TEST(NoiseStoppingRuleTest, QuietSamplesStopOnNoiseAtMinSamples) {
  NoiseStoppingRule rule(FastOptions());
  EXPECT_EQ(RunUntilStop(rule, {1e-4}, 1000), StopReason::kNoiseTarget);
  // 10 samples of 100 µs = 1 ms > 0.5 ms min GPU time; the minimum sample count decides.
  EXPECT_EQ(rule.samples(), 10);
  EXPECT_NEAR(rule.gpu_seconds(), 1e-3, 1e-12);
  EXPECT_EQ(StopReasonName(StopReason::kNoiseTarget), "noise");
}

TEST(NoiseStoppingRuleTest, MinGpuTimeHoldsBackAQuietRun) {
  StoppingOptions options = FastOptions();
  options.min_gpu_seconds = 0.01;  // 100 samples of 100 µs; the stop needs strictly more
  NoiseStoppingRule rule(options);
  EXPECT_EQ(RunUntilStop(rule, {1e-4}, 1000), StopReason::kNoiseTarget);
  EXPECT_EQ(rule.samples(), 101);
}

TEST(NoiseStoppingRuleTest, NoisyButStableSamplesStopWhenTheNoiseConverges) {
  NoiseStoppingRule rule(FastOptions());
  // Alternating 100 and 120 µs: about 9% noise, never below the 0.5% target.
  StopReason reason = RunUntilStop(rule, {1.0e-4, 1.2e-4}, 100000);
  EXPECT_EQ(reason, StopReason::kNoiseStable);
  EXPECT_GT(rule.samples(), 64);
  EXPECT_EQ(rule.samples() % NoiseStoppingRule::kStableCheckPeriod, 0);
  EXPECT_GT(rule.relative_stdev(), 0.05);
  EXPECT_EQ(StopReasonName(reason), "noise");
}

TEST(NoiseStoppingRuleTest, DriftingNoiseDoesNotCountAsStable) {
  StoppingOptions options = FastOptions();
  options.max_samples = 400;
  NoiseStoppingRule rule(options);
  // A steadily growing sample time: the noise keeps rising, so it never stabilises
  // within 400 samples and the cap stops the run.
  std::vector<double> ramp;
  for (int index = 0; index < 400; ++index) ramp.push_back(1e-4 * (1 + 0.01 * index * index));
  EXPECT_EQ(RunUntilStop(rule, ramp, 400), StopReason::kMaxSamples);
  EXPECT_EQ(rule.samples(), 400);
}

TEST(NoiseStoppingRuleTest, MaxSamplesStopsANoisyRun) {
  StoppingOptions options = FastOptions();
  options.max_samples = 30;
  NoiseStoppingRule rule(options);
  EXPECT_EQ(RunUntilStop(rule, {1e-4, 3e-4, 2e-4}, 1000), StopReason::kMaxSamples);
  EXPECT_EQ(rule.samples(), 30);
  EXPECT_EQ(StopReasonName(StopReason::kMaxSamples), "max_samples");
}

TEST(NoiseStoppingRuleTest, TimeoutAppliesEvenBeforeMinSamples) {
  NoiseStoppingRule rule(FastOptions());
  rule.AddSample(1e-4);
  EXPECT_EQ(rule.Check(9.9), StopReason::kContinue);
  EXPECT_EQ(rule.Check(10.1), StopReason::kTimeout);
  EXPECT_EQ(StopReasonName(StopReason::kTimeout), "timeout");
}

TEST(NoiseStoppingRuleTest, RelativeStdevMatchesSummarize) {
  NoiseStoppingRule rule(FastOptions());
  std::vector<double> samples{2, 4, 4, 4, 5, 5, 7, 9};
  for (double sample : samples) rule.AddSample(sample);
  EXPECT_NEAR(rule.relative_stdev(), Summarize(samples).relative_stdev, 1e-12);
  EXPECT_DOUBLE_EQ(rule.mean(), 5);
  EXPECT_DOUBLE_EQ(rule.gpu_seconds(), 40);
}

TEST(ThrottleFilterTest, KeepsSamplesAtOrAboveThreeQuartersOfMaxClock) {
  ThrottleFilter filter(1980);
  EXPECT_DOUBLE_EQ(filter.threshold_mhz(), 1485);
  EXPECT_TRUE(filter.Observe(1980).keep);
  EXPECT_TRUE(filter.Observe(1485).keep);
  EXPECT_EQ(filter.discarded(), 0);
}

TEST(ThrottleFilterTest, DiscardsThrottledSamplesWithGrowingRecoveryDelay) {
  ThrottleFilter filter(1980);
  std::vector<double> delays;
  for (int index = 0; index < 7; ++index) {
    ThrottleVerdict verdict = filter.Observe(345);
    EXPECT_FALSE(verdict.keep);
    delays.push_back(verdict.recovery_delay_seconds);
  }
  EXPECT_EQ(delays, (std::vector<double>{0.05, 0.05, 0.1, 0.2, 0.4, 0.5, 0.5}));
  EXPECT_EQ(filter.discarded(), 7);
  // A good sample resets the delay.
  EXPECT_TRUE(filter.Observe(1900).keep);
  EXPECT_DOUBLE_EQ(filter.Observe(1000).recovery_delay_seconds, 0.05);
  EXPECT_EQ(filter.discarded(), 8);
}

TEST(ThrottleFilterTest, UnknownClocksKeepEverySample) {
  ThrottleFilter no_maximum(0);
  EXPECT_TRUE(no_maximum.Observe(345).keep);
  ThrottleFilter with_maximum(1980);
  EXPECT_TRUE(with_maximum.Observe(0).keep);
  EXPECT_EQ(with_maximum.discarded(), 0);
}

TEST(ThrottleFilterTest, PersistentLowClockStopsDiscarding) {
  ThrottleOptions options;
  options.give_up_after_consecutive = 3;
  ThrottleFilter filter(2000, options);
  EXPECT_FALSE(filter.Observe(1000).keep);
  EXPECT_FALSE(filter.Observe(1000).keep);
  EXPECT_FALSE(filter.Observe(1000).keep);
  EXPECT_FALSE(filter.gave_up());
  EXPECT_TRUE(filter.Observe(1000).keep);
  EXPECT_TRUE(filter.gave_up());
  EXPECT_TRUE(filter.Observe(900).keep);
  EXPECT_EQ(filter.discarded(), 3);
}

TEST(SideStreamDecisionTest, OverheadTenPercentAndSlackAreAllowed) {
  // Allowed: 10 µs overhead + 10 µs (10% of 100 µs) + 2 µs slack = 22 µs.
  SideStreamDecision decision = DecideSideStream(100e-6, 121e-6, 10e-6);
  EXPECT_FALSE(decision.escaped);
  EXPECT_NEAR(decision.excess_seconds, 21e-6, 1e-12);
  EXPECT_NEAR(decision.allowed_excess_seconds, 22e-6, 1e-12);
  EXPECT_DOUBLE_EQ(decision.tolerance_fraction, 0.10);
}

TEST(SideStreamDecisionTest, ExcessBeyondTheAllowanceEscapes) {
  EXPECT_TRUE(DecideSideStream(100e-6, 123e-6, 10e-6).escaped);
  // Without slack the rule is overhead + 10% alone.
  EXPECT_TRUE(DecideSideStream(100e-6, 121e-6, 10e-6, 0.10, 0.0).escaped);
}

TEST(SideStreamDecisionTest, HonestTinyKernelMeasuredOnTheH200IsNotFlagged) {
  // A 3.97 µs cold copy: device-wide 11.29 µs, empty-call overhead 6.75 µs
  // (excess 7.33 µs; overhead + 10% alone would allow only 7.14 µs).
  EXPECT_FALSE(DecideSideStream(3.968e-6, 11.293e-6, 6.746e-6).escaped);
}

TEST(SideStreamDecisionTest, EmptyTimedStreamWithWorkElsewhereEscapes) {
  // Measured on the H200: a 180 µs copy launched on the candidate's own stream;
  // the events on the harness stream see 1.7 µs.
  SideStreamDecision decision = DecideSideStream(1.696e-6, 181.873e-6, 6.758e-6);
  EXPECT_TRUE(decision.escaped);
  std::string message = DescribeSideStream(decision, 1.696e-6, 181.873e-6);
  EXPECT_NE(message.find("device-wide median 181.87 us"), std::string::npos) << message;
  EXPECT_NE(message.find("event median 1.70 us"), std::string::npos) << message;
  EXPECT_NE(message.find("10%"), std::string::npos) << message;
}

TEST(SideStreamDecisionTest, NegativeOverheadCountsAsZero) {
  SideStreamDecision decision = DecideSideStream(100e-6, 105e-6, -3e-6, 0.10, 0.0);
  EXPECT_NEAR(decision.allowed_excess_seconds, 10e-6, 1e-12);
  EXPECT_FALSE(decision.escaped);
  EXPECT_TRUE(DecideSideStream(100e-6, 111e-6, -3e-6, 0.10, 0.0).escaped);
}

}  // namespace
TEST(ChargedSampleSecondsTest, AnEntryPointThatOnlyEnqueuesIsTimedOnItsEvents) {
  EXPECT_DOUBLE_EQ(ChargedSampleSeconds(60e-6, 4e-6), 60e-6);
  EXPECT_DOUBLE_EQ(ChargedSampleSeconds(60e-6, 15e-6), 60e-6);  // a graph launch within the grace
}

TEST(ChargedSampleSecondsTest, HostTimeBeyondTheGraceIsAddedAndNeverLessThanTheCall) {
  // Half the work on a private stream while the host waits (30 us), half on the stream (30 us).
  EXPECT_NEAR(ChargedSampleSeconds(30e-6, 30e-6), 45e-6, 1e-12);
  // All the work behind a blocked host, nothing on the stream.
  EXPECT_NEAR(ChargedSampleSeconds(1e-6, 60e-6), 60e-6, 1e-12);
  EXPECT_NEAR(ChargedSampleSeconds(50e-6, 60e-6, 0.0), 110e-6, 1e-12);
}

}  // namespace kopt
