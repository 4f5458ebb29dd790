// Which launches live collection profiles under ncu, planned from the
// program's launch timeline (profile/launch_trace.h).
//
// Profiling every launch of a program that launches one kernel 20,000 times
// replays each of them under ncu (minutes); the launches of one kernel with
// one launch configuration differ little. So by default live explain profiles
// the first `launches_per_configuration` launches of each launch
// configuration (kernel, grid, block, dynamic shared memory): ncu's
// `--filter-mode per-launch-config --launch-count N`. The timeline still
// counts and times every launch (the launch-overhead tool reads it), and the
// plan says how many launches of each kernel were profiled of how many.
// launches_per_configuration = 0 profiles every launch (`kopt explain
// --launches-per-kernel 0`, docs/live-collection.md).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "profile/launch_trace.h"

namespace kopt {

inline constexpr long long kDefaultLaunchesPerConfiguration = 3;

struct SampledKernel {
  std::string function_name;  // as KernelLaunch::FunctionName() spells it
  long long launches = 0;     // in the timeline
  long long configurations = 0;
  long long profiled = 0;  // launches ncu will profile
};

struct SamplingPlan {
  long long launches_per_configuration = 0;  // 0: every launch
  std::vector<SampledKernel> kernels;        // in order of first launch
  long long total_launches = 0, total_profiled = 0;
  // ncu's filter arguments for the plan; empty when every launch is profiled.
  std::vector<std::string> ncu_arguments;
  // When the sampled launches are the program's first total_profiled launches (in launch-call order,
  // one process; e.g. two setup kernels, then the first 3 of 20,000 launches of one kernel): the same
  // sample as `--launch-count total_profiled --kill yes`, which ends the program once they are profiled
  // instead of letting ncu intercept every later launch. Empty otherwise, and when nothing is left out.
  // Only valid without a kernel filter (ncu's --launch-count counts the launches the filter matches).
  std::vector<std::string> early_stop_arguments;

  bool Samples() const { return total_profiled < total_launches; }
  // One sentence for the report's notes: "profiled 3 of 20000 launches of tiny_step and 2 of 2 of
  // fill_random (the first 3 of each launch configuration; --launches-per-kernel 0 profiles all)".
  std::string Describe() const;
};

// The plan for `trace`'s kernels (memcpy and memset records do not count). Launch-call order is
// the order of CUPTI's correlation ids (the order ncu counts launches in).
SamplingPlan PlanLaunchSampling(const LaunchTrace& trace, long long launches_per_configuration);

// ncu's filter arguments for the first `launches_per_configuration` (> 0) launches of each launch
// configuration, for a program without a timeline.
std::vector<std::string> UnplannedSamplingArguments(long long launches_per_configuration);

}  // namespace kopt
