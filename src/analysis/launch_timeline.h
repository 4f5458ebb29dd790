// A profile's launches summarized, in time linear in their number:
//  - LaunchTimeline: per kernel function (KernelLaunch::FunctionName), how
//    many launches have a duration and their total, minimum and maximum
//    (gpu__time_duration.sum, ns); the launch-overhead tool's input. Built once
//    per profile, looked up in O(1). With the program's CUPTI timeline
//    (profile/launch_trace.h) it also holds what the timeline measured per
//    function: every launch (not only the profiled ones), their durations
//    without ncu, and the GPU idle gaps between them.
//  - GroupLaunches: the launches of one kernel with the same grid and block,
//    in order of first appearance; each group is diagnosed once, on the
//    launch of median duration, and reported with its spread.
//
// Thread safety: immutable after construction.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile/kernel_launch.h"
#include "profile/launch_trace.h"

namespace kopt {

// The most DRAM traffic any launch of one kernel function moved
// (dram__bytes_read.sum + dram__bytes_write.sum, bytes).
struct FunctionTraffic {
  std::string function_name;
  double max_dram_bytes = 0;
};

struct LaunchDurations {
  long long count = 0;  // launches with a gpu__time_duration.sum
  double total_ns = 0, minimum_ns = 0, maximum_ns = 0;
  double MeanNs() const { return count > 0 ? total_ns / count : 0; }
};

class LaunchTimeline {
 public:
  LaunchTimeline() = default;
  explicit LaunchTimeline(const std::vector<const KernelLaunch*>& launches);
  explicit LaunchTimeline(const std::vector<KernelLaunch>& launches);
  // The same, with the program's launch timeline (summarized here; `trace` is not kept).
  LaunchTimeline(const std::vector<KernelLaunch>& launches, const LaunchTrace* trace);

  // The durations of `function_name`'s launches; count 0 when it has none.
  LaunchDurations Of(std::string_view function_name) const;
  // Every function of the profile with its largest DRAM traffic, in order
  // of first appearance (the data-movement tool compares a kernel with the
  // others of its program).
  const std::vector<FunctionTraffic>& DramTrafficByFunction() const { return traffic_; }
  // What the CUPTI timeline measured for `function_name`; nullptr without a
  // timeline or when the timeline has no launch of it.
  const KernelTraceSummary* Measured(std::string_view function_name) const;

 private:
  void Add(const KernelLaunch& launch);
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::unordered_map<std::string, LaunchDurations, Hash, std::equal_to<>> by_function_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> traffic_index_;
  std::vector<FunctionTraffic> traffic_;
  std::optional<TraceSummary> measured_;
};

// The launches one KernelDiagnosis stands for.
struct LaunchGroup {
  std::vector<size_t> members;  // indices into the launches given, in order
  size_t representative = 0;    // index (into the launches) of the median-duration member
  // gpu__time_duration.sum (ns) over the members that have it; absent when none has.
  std::optional<double> minimum_ns, median_ns, maximum_ns, total_ns;
};

// Groups `launches` by (kernel_name, grid, block), groups in order of their
// first launch. The representative is the member whose duration is the
// (lower) median; without durations, the first member.
std::vector<LaunchGroup> GroupLaunches(const std::vector<KernelLaunch>& launches);

}  // namespace kopt
