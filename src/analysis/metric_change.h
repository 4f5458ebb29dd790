// The metrics that moved between two launches beyond their noise.
//
// Noise per metric (docs/diff.md, "Noise"): each metric belongs to a family
// chosen by its name; a family has a relative noise (of the larger of the two
// values) and an absolute floor in the metric's unit. A change is beyond
// noise when |after − before| > max(relative · max(|before|, |after|), floor).
// Families, first match wins (relative noise, floor):
//   launch configuration (launch__*, device__*)                 exact: 0, 0
//   sampled stall counts (smsp__pcsamp_*)                        35 %, 50 samples
//   stall reasons (*warps_issue_stalled*)                        12 %, 0.05 warps per issue
//   percentages (*pct_of_peak*, *.pct, unit %)                   9 %, 1 point
//   time, cycles and rates (*.per_second, *time*, *cycles*)      6 %, 0
//   instruction and FLOP counts (*inst_executed*, *inst_issued*,
//     *sass_thread_inst*, *ops_path*)                            2 %, 1
//   L1 and shared traffic (l1tex__*)                             1 %, 32
//   L2 and DRAM traffic (lts__*, dram__*, fbpa__*)               7 %, 32
//   anything else                                                5 %, 0
// Each relative noise is the 95th percentile of the family's launch-to-launch
// spread, (max − min)/max over three launches of one kernel, measured on the
// H200 (tests/fixtures/h200_diff/repeat: saxpy, gelu and transpose references,
// three launches each under ncu --set full), rounded up; docs/diff.md lists the
// measured percentiles. For stall reasons only values above the floor count.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profile/kernel_launch.h"

namespace kopt {

struct MetricNoise {
  std::string family;
  double relative = 0;  // fraction of the larger value
  double floor = 0;     // in the metric's unit
};

MetricNoise NoiseOf(std::string_view metric, std::string_view unit);

struct MetricMove {
  std::string metric;
  std::string unit;
  double before = 0, after = 0;
  double noise = 0;        // the threshold the change had to pass, in `unit`
  double noise_units = 0;  // |after − before| / noise (inf for exact metrics that changed)
  std::string family;
};

struct MetricSetDifference {
  int common = 0;                        // metrics both launches have
  std::vector<std::string> only_before;  // present before only (sorted)
  std::vector<std::string> only_after;
};

// The metrics both launches have, compared; `limit` largest moves by
// noise_units (ties: larger relative change first); 0 = all beyond noise.
// The launch configuration family is left out (LaunchConfigurationChanges).
std::vector<MetricMove> MovedMetrics(const KernelLaunch& before, const KernelLaunch& after, size_t limit);

// The launch configuration metrics (launch__*, device__*) that differ, by name.
std::vector<MetricMove> LaunchConfigurationChanges(const KernelLaunch& before, const KernelLaunch& after);

MetricSetDifference CompareMetricSets(const KernelLaunch& before, const KernelLaunch& after);

}  // namespace kopt
