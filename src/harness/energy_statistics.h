// Arithmetic of kopt-runner's energy measurement (docs/harness-protocol.md §3
// `energy` event; measurement.md §4-5): joules per launch per window of
// back-to-back launches, their mean and spread, dynamic energy above idle, and
// the instantaneous-power cross-check. Pure C++: the CUDA/NVML code that
// measures the windows is src/runner/energy.*.
//
// Units: joules, seconds, watts.
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <span>

#include "core/status.h"

namespace kopt {

// One window of back-to-back launches between two updates of the cumulative
// energy counter.
struct EnergyWindow {
  double joules = 0;                   // counter delta over the window
  double seconds = 0;                  // host time between the two counter updates
  int64_t launches = 0;                // launches that completed inside the window
  double instant_power_watts_sum = 0;  // sum of field-186 readings taken during the window
  int64_t power_samples = 0;           // how many readings that sum holds
};

struct EnergySummary {
  double joules_per_launch = 0;          // mean over windows of joules / launches
  double joules_per_launch_stdev = 0;    // Bessel stdev over windows; 0 for one window
  double dynamic_joules_per_launch = 0;  // mean over windows of (joules - idle_watts * seconds) / launches
  double idle_watts = 0;
  double mean_watts = 0;          // total joules / total seconds of the windows
  double power_sample_watts = 0;  // mean of the instantaneous readings; 0 when none
  int64_t windows = 0;
  int64_t launches_per_window = 0;  // mean, rounded
};

// Average power over an idle window: joules / seconds. InvalidInput for a
// non-positive duration.
Result<double> IdleWatts(double joules, double seconds);

// Summarizes `windows` measured after an idle power of `idle_watts`.
// Unavailable when there is no window, or a window saw no counter change
// (0 J: shorter than the counter's update period) or no launch; the message
// names the window and its numbers.
Result<EnergySummary> SummarizeEnergy(double idle_watts, std::span<const EnergyWindow> windows);

}  // namespace kopt
