// The model the occupancy and launch-configuration tools share
// (analysis/tools/low_occupancy.cc, achieved_occupancy_gap.cc, tail_effect.cc,
// sm_load_imbalance.cc, barrier_stalls.cc, launch_overhead.cc).
//
// Every fix there hides latency or fills idle SMs; none removes work. So each
// gain is bounded twice: by the idle issue slots the fix can fill (the issue
// rate ncu measured), and by the headroom left before the busiest unit reaches
// the share of its peak that is reachable in practice. Estimates are upper
// bounds and, like ncu's, not additive across findings.
//
// Rationale of the models (see ../shared/reference/ncu_sass_gpus.md §1, §3):
//  - More warps: GPA's PARALLEL_LAT estimator, issue = 1 − (1 − p)^warps, but
//    calibrated so that it reproduces the measured issue rate u: more warps by
//    a factor r give u' = 1 − (1 − u)^r. (Uncalibrated, GPA predicts gains on
//    a kernel whose issue slots are already full.)
//  - SM balance: ncu's WorkloadImbalance weights (1 − avg/max) by
//    avg active/elapsed, which shrinks the estimate exactly when the imbalance
//    is worst; the time that goes away when the SMs are balanced is
//    (max − avg)/elapsed.
//  - Tail: ncu's 1/(1 + full waves) claims 50% for 1.94 waves; the waste of
//    uniform blocks is (⌈w⌉ − w)/⌈w⌉, and the measured SM spread bounds it.
//
// Thread safety: pure functions over values.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "analysis/tool_support.h"

namespace kopt {

// `min_gain` at 5%: below it a launch-configuration change is within timing noise.
ThresholdDefinition LatencyMinGainThreshold();
// `reachable_peak_percent`: the share of a unit's peak reachable in practice.
ThresholdDefinition ReachablePeakThreshold();

// Issue-slot use per active cycle of a scheduler, 0..1, and where it came from.
struct IssueRate {
  double value = 0;
  std::string metric;
};
std::optional<IssueRate> IssueActive(const ToolContext& context);

// Active cycles of the SMs (avg, max over SMs) against the elapsed cycles.
struct SmActivity {
  double average = 0, maximum = 0, minimum = 0, elapsed = 0;
  bool has_minimum = false;
  double Balance() const { return maximum > 0 ? average / maximum : 1; }
  // Time that goes away when every SM is as busy as the average one.
  double IdleFraction() const { return elapsed > 0 ? Clamp01((maximum - average) / elapsed) : 0; }
  double AverageActiveFraction() const { return elapsed > 0 ? Clamp01(average / elapsed) : 1; }
};
std::optional<SmActivity> MeasuredSmActivity(const ToolContext& context);
void AddSmActivityEvidence(const SmActivity& activity, std::vector<Evidence>& evidence);

// The fraction of time a latency fix may remove before the busiest unit
// reaches what it can reach (reads `reachable_peak_percent`).
double ThroughputHeadroom(const ToolContext& context);
Evidence HeadroomEvidence(const ToolContext& context);

// Calibrated latency-hiding model: the measured issue rate u with r times the
// resident warps becomes u' = 1 − (1 − u)^r; the time that goes away is 1 − u/u'.
double MoreWarpsGain(double issue_active, double warp_ratio);

struct LatencyHidingEstimate {
  double gain = 0;
  std::string method;
  std::vector<Evidence> evidence;
  double confidence = 0.5;
};
// The gain of running `warp_ratio` times the resident warps.
LatencyHidingEstimate EstimateMoreWarps(const ToolContext& context, double warp_ratio);
// The inputs of EstimateMoreWarps: the issue rate (any of three forms) and the SM activity.
std::vector<RequiredInput> LatencyModelInputs();

// How evenly uniform blocks would spread over the SMs: the expected
// avg/max of SM active time. Below one wave it is the block count per SM that
// quantizes (q = grid/SMs, balance q/⌈q⌉; below one block per SM, grid/SMs),
// from one wave on the wave count (w/⌈w⌉). Shared by tail_effect and sm_load_imbalance.
struct WaveModel {
  double grid = 0, sm_count = 0, waves = 0;
  bool below_one_wave = false;
  double Units() const { return below_one_wave ? grid / sm_count : waves; }
  double Balance() const {
    double units = Units();
    return units > 0 ? units / std::ceil(units - 1e-9) : 1;
  }
  double Waste() const { return 1 - Balance(); }
};
std::optional<WaveModel> PredictWaves(const ToolContext& context);
void AddWaveEvidence(const WaveModel& model, std::vector<Evidence>& evidence);

}  // namespace kopt
