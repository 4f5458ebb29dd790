#include "analysis/launch_timeline.h"

#include <fmt/format.h>

#include <algorithm>

namespace kopt {
namespace {

constexpr std::string_view kDuration = "gpu__time_duration.sum";

}  // namespace

LaunchTimeline::LaunchTimeline(const std::vector<const KernelLaunch*>& launches) {
  for (const KernelLaunch* launch : launches) {
    if (launch) Add(*launch);
  }
}

LaunchTimeline::LaunchTimeline(const std::vector<KernelLaunch>& launches) {
  for (const KernelLaunch& launch : launches) Add(launch);
}

LaunchTimeline::LaunchTimeline(const std::vector<KernelLaunch>& launches, const LaunchTrace* trace)
    : LaunchTimeline(launches) {
  if (trace) measured_ = SummarizeLaunchTrace(*trace);
}

const KernelTraceSummary* LaunchTimeline::Measured(std::string_view function_name) const {
  return measured_ ? measured_->Find(function_name) : nullptr;
}

void LaunchTimeline::Add(const KernelLaunch& launch) {
  double bytes =
      launch.Metric("dram__bytes_read.sum").value_or(0) + launch.Metric("dram__bytes_write.sum").value_or(0);
  auto [slot, added] = traffic_index_.try_emplace(launch.FunctionName(), traffic_.size());
  if (added) traffic_.push_back({launch.FunctionName(), bytes});
  traffic_[slot->second].max_dram_bytes = std::max(traffic_[slot->second].max_dram_bytes, bytes);
  std::optional<double> duration = launch.Metric(kDuration);
  if (!duration) return;
  LaunchDurations& entry = by_function_[launch.FunctionName()];
  entry.minimum_ns = entry.count == 0 ? *duration : std::min(entry.minimum_ns, *duration);
  entry.maximum_ns = entry.count == 0 ? *duration : std::max(entry.maximum_ns, *duration);
  entry.total_ns += *duration;
  ++entry.count;
}

LaunchDurations LaunchTimeline::Of(std::string_view function_name) const {
  auto found = by_function_.find(function_name);
  return found == by_function_.end() ? LaunchDurations{} : found->second;
}

std::vector<LaunchGroup> GroupLaunches(const std::vector<KernelLaunch>& launches) {
  std::vector<LaunchGroup> groups;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < launches.size(); ++i) {
    const KernelLaunch& launch = launches[i];
    std::string key =
        fmt::format("{}\x1f{},{},{}\x1f{},{},{}", launch.kernel_name, launch.grid.x, launch.grid.y,
                    launch.grid.z, launch.block.x, launch.block.y, launch.block.z);
    auto [slot, added] = index.try_emplace(std::move(key), groups.size());
    if (added) groups.emplace_back();
    groups[slot->second].members.push_back(i);
  }
  for (LaunchGroup& group : groups) {
    std::vector<std::pair<double, size_t>> timed;
    timed.reserve(group.members.size());
    for (size_t member : group.members) {
      if (auto duration = launches[member].Metric(kDuration)) timed.emplace_back(*duration, member);
    }
    group.representative = group.members.front();
    if (timed.empty()) continue;
    auto median = timed.begin() + (timed.size() - 1) / 2;
    std::nth_element(timed.begin(), median, timed.end());
    group.representative = median->second;
    group.median_ns = median->first;
    auto [low, high] = std::minmax_element(timed.begin(), timed.end());
    group.minimum_ns = low->first;
    group.maximum_ns = high->first;
    double total = 0;
    for (const auto& [duration, member] : timed) total += duration;
    group.total_ns = total;
  }
  return groups;
}

}  // namespace kopt
