#include "harness/timing_statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace kopt {

double QuantileOfSorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + fraction * (sorted[upper] - sorted[lower]);
}

double BesselStdevAround(std::span<const double> values, double reference) {
  if (values.size() < 2) return 0;
  double sum_of_squares = 0;
  for (double value : values) sum_of_squares += (value - reference) * (value - reference);
  return std::sqrt(sum_of_squares / static_cast<double>(values.size() - 1));
}

SampleStatistics Summarize(std::span<const double> samples) {
  SampleStatistics statistics;
  if (samples.empty()) return statistics;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  statistics.count = static_cast<int64_t>(sorted.size());
  statistics.min = sorted.front();
  statistics.max = sorted.back();
  statistics.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  statistics.median = QuantileOfSorted(sorted, 0.5);
  statistics.q1 = QuantileOfSorted(sorted, 0.25);
  statistics.q3 = QuantileOfSorted(sorted, 0.75);
  statistics.iqr = statistics.q3 - statistics.q1;
  statistics.stdev = BesselStdevAround(sorted, statistics.mean);
  statistics.relative_stdev = statistics.mean != 0 ? statistics.stdev / statistics.mean : 0;
  return statistics;
}

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kContinue: return "continue";
    case StopReason::kNoiseTarget:
    case StopReason::kNoiseStable: return "noise";
    case StopReason::kMaxSamples: return "max_samples";
    case StopReason::kTimeout: return "timeout";
  }
  return "continue";
}

void NoiseStoppingRule::AddSample(double seconds) {
  ++count_;
  sum_ += seconds;
  double delta = seconds - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (seconds - mean_);
  double noise = relative_stdev();
  if (count_ >= 2 && std::isfinite(noise)) {
    noise_history_.push_back(noise);
    if (noise_history_.size() > kNoiseHistoryCapacity) noise_history_.pop_front();
  }
}

double NoiseStoppingRule::relative_stdev() const {
  if (count_ < 2 || mean_ == 0) return 0;
  return std::sqrt(m2_ / static_cast<double>(count_ - 1)) / mean_;
}

bool NoiseStoppingRule::NoiseHasStabilised() const {
  if (noise_history_.size() <= kMinNoiseHistory || count_ % kStableCheckPeriod != 0) return false;
  double current_noise = noise_history_.back();
  if (current_noise <= 0) return false;
  std::vector<double> history(noise_history_.begin(), noise_history_.end());
  return BesselStdevAround(history, current_noise) / current_noise < kStableNoiseThreshold;
}

StopReason NoiseStoppingRule::Check(double elapsed_wall_seconds) const {
  if (count_ >= options_.max_samples) return StopReason::kMaxSamples;
  if (count_ >= options_.min_samples && sum_ > options_.min_gpu_seconds) {
    if (count_ >= 2 && relative_stdev() < options_.max_relative_stdev) return StopReason::kNoiseTarget;
    if (NoiseHasStabilised()) return StopReason::kNoiseStable;
  }
  if (elapsed_wall_seconds > options_.timeout_seconds) return StopReason::kTimeout;
  return StopReason::kContinue;
}

ThrottleVerdict ThrottleFilter::Observe(double sm_clock_mhz) {
  bool throttled = max_sm_clock_mhz_ > 0 && sm_clock_mhz > 0 && sm_clock_mhz < threshold_mhz();
  if (!throttled || gave_up_) {
    consecutive_ = 0;
    delay_seconds_ = 0;
    return ThrottleVerdict{};
  }
  ++consecutive_;
  if (consecutive_ > options_.give_up_after_consecutive) {
    gave_up_ = true;
    return ThrottleVerdict{};
  }
  ++discarded_;
  if (consecutive_ <= 2 || delay_seconds_ <= 0) {
    delay_seconds_ = options_.recovery_delay_seconds;
  } else {
    delay_seconds_ = std::min(delay_seconds_ * 2, options_.max_recovery_delay_seconds);
  }
  return ThrottleVerdict{false, delay_seconds_};
}

SideStreamDecision DecideSideStream(double event_median_seconds, double device_wide_median_seconds,
                                    double empty_call_overhead_seconds, double tolerance_fraction,
                                    double slack_seconds) {
  SideStreamDecision decision;
  decision.excess_seconds = device_wide_median_seconds - event_median_seconds;
  decision.allowed_excess_seconds = std::max(empty_call_overhead_seconds, 0.0) +
                                    tolerance_fraction * std::max(event_median_seconds, 0.0) +
                                    std::max(slack_seconds, 0.0);
  decision.tolerance_fraction = tolerance_fraction;
  decision.escaped = decision.excess_seconds > decision.allowed_excess_seconds;
  return decision;
}

std::string DescribeSideStream(const SideStreamDecision& decision, double event_median_seconds,
                               double device_wide_median_seconds) {
  constexpr double kMicroseconds = 1e6;
  return fmt::format(
      "work escaped the timed stream: the device-wide median {:.2f} us exceeds the timed stream's event "
      "median {:.2f} us by {:.2f} us, more than the allowed {:.2f} us (empty-call overhead + {:.0f}% of the "
      "event median + slack); the entry point must enqueue all work on the stream it is given or join other "
      "streams back into it",
      device_wide_median_seconds * kMicroseconds, event_median_seconds * kMicroseconds,
      decision.excess_seconds * kMicroseconds, decision.allowed_excess_seconds * kMicroseconds,
      decision.tolerance_fraction * 100);
}

double ChargedSampleSeconds(double event_seconds, double host_call_seconds, double grace_seconds) {
  return std::max(host_call_seconds, event_seconds + std::max(0.0, host_call_seconds - grace_seconds));
}

}  // namespace kopt
