#include "harness/energy_statistics.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "harness/timing_statistics.h"

namespace kopt {

Result<double> IdleWatts(double joules, double seconds) {
  if (!(seconds > 0))
    return InvalidInput(fmt::format("idle window of {} s: expected a positive duration", seconds));
  return joules / seconds;
}

namespace {

Status CheckWindow(const EnergyWindow& window, size_t index) {
  if (!(window.seconds > 0) || window.launches <= 0) {
    return Unavailable(fmt::format("energy window {} is empty ({} s, {} launches)", index + 1, window.seconds,
                                   window.launches));
  }
  if (!(window.joules > 0)) {
    return Unavailable(fmt::format(
        "the energy counter did not change over window {} ({} s, {} launches): the window is shorter than "
        "the counter's update period",
        index + 1, window.seconds, window.launches));
  }
  return Status::Ok();
}

}  // namespace

Result<EnergySummary> SummarizeEnergy(double idle_watts, std::span<const EnergyWindow> windows) {
  if (windows.empty()) return Unavailable("no energy window was measured");
  std::vector<double> per_launch;
  double dynamic_sum = 0, joules_sum = 0, seconds_sum = 0, power_sum = 0;
  int64_t launches_sum = 0, power_samples = 0;
  for (size_t index = 0; index < windows.size(); ++index) {
    const EnergyWindow& window = windows[index];
    KOPT_RETURN_IF_ERROR(CheckWindow(window, index));
    double launches = static_cast<double>(window.launches);
    per_launch.push_back(window.joules / launches);
    dynamic_sum += (window.joules - idle_watts * window.seconds) / launches;
    joules_sum += window.joules;
    seconds_sum += window.seconds;
    launches_sum += window.launches;
    power_sum += window.instant_power_watts_sum;
    power_samples += window.power_samples;
  }
  SampleStatistics statistics = Summarize(per_launch);
  double count = static_cast<double>(windows.size());
  EnergySummary summary;
  summary.joules_per_launch = statistics.mean;
  summary.joules_per_launch_stdev = statistics.stdev;
  summary.dynamic_joules_per_launch = dynamic_sum / count;
  summary.idle_watts = idle_watts;
  summary.mean_watts = joules_sum / seconds_sum;
  summary.power_sample_watts = power_samples > 0 ? power_sum / static_cast<double>(power_samples) : 0;
  summary.windows = static_cast<int64_t>(windows.size());
  summary.launches_per_window = std::llround(static_cast<double>(launches_sum) / count);
  return summary;
}

}  // namespace kopt
