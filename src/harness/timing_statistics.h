// Statistics and decisions of kopt-runner's timing (docs/harness-protocol.md
// §3, `timing` event; methodology in ../shared/reference/measurement.md §1):
// order statistics and moments of a sample set, nvbench's noise-based
// stopping rule ("stdrel"), SM-clock throttle filtering, and the side-stream
// decision. Pure C++: the CUDA code that takes the samples is
// src/runner/timer.*, which feeds these.
//
// Units: every time is in seconds, clocks in MHz, noise as a ratio
// (0.005 = 0.5%).
// Thread safety: values and pure functions; NoiseStoppingRule and
// ThrottleFilter are single-threaded objects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>

namespace kopt {

// Order statistics and moments of a set of samples, in the samples' unit.
// All zero for an empty set.
struct SampleStatistics {
  int64_t count = 0;
  double min = 0, max = 0;
  double mean = 0;
  double median = 0;
  double q1 = 0, q3 = 0;      // first and third quartile
  double iqr = 0;             // q3 - q1
  double stdev = 0;           // Bessel-corrected (divides by n - 1); 0 for fewer than 2 samples
  double relative_stdev = 0;  // stdev / mean (nvbench's "Noise"); 0 when the mean is 0
};

// The q-quantile (q in [0, 1], clamped) of `sorted` (ascending) by linear
// interpolation between closest ranks: position q * (n - 1) ("type 7", numpy's
// and R's default). 0 for an empty span.
double QuantileOfSorted(std::span<const double> sorted, double q);

// Bessel-corrected standard deviation of `values` around `reference` (the mean
// for an ordinary stdev; nvbench measures the noise history around its latest
// value): sqrt(sum (x - reference)^2 / (n - 1)). 0 for fewer than 2 values.
double BesselStdevAround(std::span<const double> values, double reference);

SampleStatistics Summarize(std::span<const double> samples);

// When to stop taking timing samples. Defaults are the "cheap" mode that keeps
// a cold candidate within the harness's speed target (≤ 2 s per candidate
// end to end, measurement.md §5): a ≥ 50 µs kernel gets ≥ 2000 samples (the
// min GPU time), a 5 µs kernel stops at max_samples after about 0.4 s of wall
// time. nvbench's strict defaults are min GPU time 0.5 s and timeout 15 s.
struct StoppingOptions {
  int64_t min_samples = 10;           // no stop (except timeout) before this many kept samples
  int64_t max_samples = 5000;         // stop at this many kept samples
  double max_relative_stdev = 0.005;  // the noise target (nvbench --max-noise 0.5%)
  double min_gpu_seconds = 0.1;       // no noise stop before this much summed sample time
  double timeout_seconds = 2.0;       // wall time, warm-up excluded
};

enum class StopReason {
  kContinue,     // take another sample
  kNoiseTarget,  // relative stdev below the target
  kNoiseStable,  // the noise estimate has stabilised above the target (inherently noisy kernel)
  kMaxSamples,
  kTimeout,
};

// The protocol's `stop_reason`: "noise" (both noise reasons), "max_samples",
// "timeout"; "continue" for kContinue.
std::string_view StopReasonName(StopReason reason);

// nvbench's stdrel criterion (nvbench/detail/stdrel_criterion.cxx) with a
// sample cap and a wall-time timeout:
//   - stop at max_samples, or when the wall time exceeds the timeout;
//   - after more than min_samples samples and more than min_gpu_seconds of
//     summed sample time: stop when the relative stdev (Bessel) is below
//     max_relative_stdev, or when the noise has stabilised: more than 64
//     noise values recorded (the last 512 kept), checked every 16 samples,
//     and the relative stdev of that history around the current noise is
//     below 5%.
class NoiseStoppingRule {
 public:
  static constexpr size_t kNoiseHistoryCapacity = 512;
  static constexpr size_t kMinNoiseHistory = 64;
  static constexpr int64_t kStableCheckPeriod = 16;
  static constexpr double kStableNoiseThreshold = 0.05;

  explicit NoiseStoppingRule(StoppingOptions options) : options_(options) {}

  // Records one kept sample (seconds of GPU time).
  void AddSample(double seconds);
  // Whether to stop, given the wall time spent sampling so far.
  StopReason Check(double elapsed_wall_seconds) const;

  int64_t samples() const { return count_; }
  double gpu_seconds() const { return sum_; }
  double mean() const { return mean_; }
  double relative_stdev() const;  // over all samples so far; 0 before 2 samples

 private:
  bool NoiseHasStabilised() const;

  StoppingOptions options_;
  int64_t count_ = 0;
  double sum_ = 0;
  double mean_ = 0;                   // Welford running mean
  double m2_ = 0;                     // Welford sum of squared deviations
  std::deque<double> noise_history_;  // finite relative stdevs, newest last
};

// SM-clock throttle detection as in nvbench (--throttle-threshold 75%,
// --throttle-recovery-delay 0.05 s): a sample taken while the SM clock is
// below threshold_fraction of the maximum is discarded and the caller sleeps
// the returned recovery delay before the next one; after more than 2
// consecutive discards the delay doubles per discard up to
// max_recovery_delay_seconds.
//
// Persistent low clock: after give_up_after_consecutive discards in a row
// the low clock is this kernel's steady state (a power-capped heavy kernel),
// not a transient; the filter then keeps every later sample and says so
// (gave_up()), rather than discarding until the timeout.
struct ThrottleOptions {
  double threshold_fraction = 0.75;
  double recovery_delay_seconds = 0.05;
  double max_recovery_delay_seconds = 0.5;
  int64_t give_up_after_consecutive = 20;
};

struct ThrottleVerdict {
  bool keep = true;
  double recovery_delay_seconds = 0;  // sleep this long before the next sample (0 when kept)
};

class ThrottleFilter {
 public:
  // max_sm_clock_mhz <= 0 (unknown, no NVML) disables the filter.
  explicit ThrottleFilter(double max_sm_clock_mhz, ThrottleOptions options = {})
      : max_sm_clock_mhz_(max_sm_clock_mhz), options_(options) {}

  // The verdict on a sample taken at `sm_clock_mhz`; a clock <= 0 (not
  // measured) always keeps the sample.
  ThrottleVerdict Observe(double sm_clock_mhz);

  int64_t discarded() const { return discarded_; }
  bool gave_up() const { return gave_up_; }
  double threshold_mhz() const { return max_sm_clock_mhz_ * options_.threshold_fraction; }

 private:
  double max_sm_clock_mhz_;
  ThrottleOptions options_;
  int64_t discarded_ = 0;
  int64_t consecutive_ = 0;
  double delay_seconds_ = 0;
  bool gave_up_ = false;
};

// The side-stream check (protocol §4 `side_stream`). Each sample is timed
// twice: by CUDA events on the harness stream, and by a device-wide bracket
// (host clock from when the harness stream may run to after
// cudaDeviceSynchronize), which also counts work the candidate left on other
// streams. The bracket always costs some fixed host/driver overhead, measured
// first by timing an empty call the same way (empty_call_overhead_seconds =
// its device-wide median minus its event median). Work escaped the timed
// stream when
//   device_wide_median - event_median
//       > overhead + tolerance_fraction * event_median + slack_seconds.
// The slack covers what the empty call (a 4-byte memset: the runner has no
// kernel of its own) does not: on the H200 (2026-11-29) honest kernels of
// 3-180 µs showed an excess of 5.5-7.3 µs against an empty-call overhead of
// 5.3-6.8 µs, i.e. up to 0.8 µs more; a kernel moved to a side stream showed
// 180 µs.
struct SideStreamDecision {
  bool escaped = false;
  double excess_seconds = 0;          // device_wide_median - event_median
  double allowed_excess_seconds = 0;  // overhead + tolerance_fraction * event_median + slack
  double tolerance_fraction = 0;
};

inline constexpr double kSideStreamToleranceFraction = 0.10;
inline constexpr double kSideStreamSlackSeconds = 2e-6;

SideStreamDecision DecideSideStream(double event_median_seconds, double device_wide_median_seconds,
                                    double empty_call_overhead_seconds,
                                    double tolerance_fraction = kSideStreamToleranceFraction,
                                    double slack_seconds = kSideStreamSlackSeconds);

// The `failure` message for an escaped decision, with the numbers in µs.
std::string DescribeSideStream(const SideStreamDecision& decision, double event_median_seconds,
                               double device_wide_median_seconds);

// Host time inside a timed entry call that a sample does not add to its
// event time: enough to enqueue a few launches or a graph (a launch costs a
// few microseconds of host time; the timing event's host_call_median_s shows
// it per candidate). What a candidate can hide on the host per call is at
// most this.
inline constexpr double kHostEnqueueGraceSeconds = 15e-6;

// A timed sample's time, s, from its event time on the harness stream and
// the host's time inside the entry call: max(host call, event + max(0, host
// call - grace)). While the call runs the stream gate holds the harness
// stream, so host time beyond an enqueue's grace comes before the timed work
// (work the host waited for on a private stream, a spin until part of the
// work is done), and a sample is never shorter than the call itself. An
// entry point that only enqueues is timed on its events alone.
double ChargedSampleSeconds(double event_seconds, double host_call_seconds,
                            double grace_seconds = kHostEnqueueGraceSeconds);

}  // namespace kopt
