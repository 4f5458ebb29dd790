#include "analysis/latency_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/tool_support.h"

namespace kopt {

ThresholdDefinition LatencyMinGainThreshold() {
  return MinGainThreshold(
      0.05,
      "smallest estimated gain reported: below 5% of kernel time a launch-configuration change is within "
      "run-to-run timing noise (ncu's WorkloadImbalance reports from 5%)");
}

ThresholdDefinition ReachablePeakThreshold() {
  return {"reachable_peak_percent", 90, "%",
          "share of a unit's peak reachable in practice; a latency fix cannot push the busiest unit past it "
          "(an H200 device-to-device copy tops out near 90% of the datasheet DRAM bandwidth)"};
}

std::optional<IssueRate> IssueActive(const ToolContext& context) {
  if (auto percent = context.Metric("smsp__issue_active.avg.pct_of_peak_sustained_active")) {
    return IssueRate{Clamp01(*percent / 100), "smsp__issue_active.avg.pct_of_peak_sustained_active"};
  }
  if (auto rate = context.Metric("smsp__issue_active.avg.per_cycle_active")) {
    return IssueRate{Clamp01(*rate), "smsp__issue_active.avg.per_cycle_active"};
  }
  auto elapsed_percent = context.Metric("sm__issue_active.avg.pct_of_peak_sustained_elapsed");
  auto active = context.Metric("sm__cycles_active.avg");
  auto elapsed = context.Metric("sm__cycles_elapsed.avg");
  if (elapsed_percent && active && elapsed && *active > 0) {
    return IssueRate{Clamp01(*elapsed_percent / 100 * *elapsed / *active),
                     "sm__issue_active.avg.pct_of_peak_sustained_elapsed × sm__cycles_elapsed.avg / "
                     "sm__cycles_active.avg"};
  }
  return std::nullopt;
}

std::optional<SmActivity> MeasuredSmActivity(const ToolContext& context) {
  auto average = context.Metric("sm__cycles_active.avg");
  auto maximum = context.Metric("sm__cycles_active.max");
  auto elapsed = context.Metric("sm__cycles_elapsed.max");
  if (!elapsed) elapsed = context.Metric("sm__cycles_elapsed.avg");
  if (!average || !maximum || !elapsed || *elapsed <= 0 || *maximum <= 0) return std::nullopt;
  SmActivity activity{*average, *maximum, 0, *elapsed, false};
  if (auto minimum = context.Metric("sm__cycles_active.min")) {
    activity.minimum = *minimum;
    activity.has_minimum = true;
  }
  return activity;
}

void AddSmActivityEvidence(const SmActivity& activity, std::vector<Evidence>& evidence) {
  evidence.push_back(MakeEvidence("sm__cycles_active.avg", activity.average, "cycle", "", 0));
  evidence.push_back(MakeEvidence("sm__cycles_active.max", activity.maximum, "cycle", "", 0));
  if (activity.has_minimum) {
    evidence.push_back(MakeEvidence("sm__cycles_active.min", activity.minimum, "cycle", "", 0));
  }
  evidence.push_back(MakeEvidence("sm__cycles_elapsed", activity.elapsed, "cycle", "", 0));
}

double ThroughputHeadroom(const ToolContext& context) {
  double reachable = context.Threshold("reachable_peak_percent");
  return reachable > 0 ? Clamp01(1 - context.roofline.speed_of_light_percent / reachable) : 0;
}

Evidence HeadroomEvidence(const ToolContext& context) {
  return MakeEvidence("speed of light (busiest unit, % of peak)", context.roofline.speed_of_light_percent,
                      "%", "<", context.Threshold("reachable_peak_percent"));
}

double MoreWarpsGain(double issue_active, double warp_ratio) {
  if (warp_ratio <= 1 || issue_active >= 1) return 0;
  if (issue_active <= 1e-9) return 1 - 1 / warp_ratio;  // the model's limit as u → 0
  double issue_after = 1 - std::pow(1 - issue_active, warp_ratio);
  return issue_after > 0 ? Clamp01(1 - issue_active / issue_after) : 0;
}

LatencyHidingEstimate EstimateMoreWarps(const ToolContext& context, double warp_ratio) {
  LatencyHidingEstimate estimate;
  double model = 1 - 1 / std::max(warp_ratio, 1.0);
  if (auto issue = IssueActive(context)) {
    model = MoreWarpsGain(issue->value, warp_ratio);
    double issue_after = 1 - std::pow(1 - issue->value, std::max(warp_ratio, 1.0));
    estimate.method = fmt::format(
        "latency-hiding model (GPA's PARALLEL_LAT, calibrated to the measured issue rate): u = {:.1f}% of "
        "issue slots used per active cycle ({}); with {:.2f}x the resident warps u' = 1 − (1 − u)^{:.2f} = "
        "{:.1f}%; model gain 1 − u/u' = {:.1f}%",
        Percent(issue->value), issue->metric, warp_ratio, warp_ratio, Percent(issue_after), Percent(model));
    estimate.evidence.push_back(MakeEvidence(issue->metric, Percent(issue->value), "%", "", 0));
    estimate.confidence = 0.8;
  } else {
    estimate.method = fmt::format(
        "no issue-rate metric: upper bound 1 − 1/{:.2f} = {:.1f}% (ncu's occupancy estimate, as if nothing "
        "hid the latency now)",
        warp_ratio, Percent(model));
  }
  double active = 1;
  if (auto activity = MeasuredSmActivity(context)) {
    active = activity->AverageActiveFraction();
    estimate.evidence.push_back(MakeEvidence(
        "SM active fraction (sm__cycles_active.avg / sm__cycles_elapsed)", Percent(active), "%", "", 0));
  }
  double headroom = ThroughputHeadroom(context);
  estimate.evidence.push_back(HeadroomEvidence(context));
  estimate.gain = std::min(model * active, headroom);
  estimate.method += fmt::format(
      "; × SM active fraction {:.1f}% (warps only speed up the cycles an SM is active); capped at the "
      "throughput headroom 1 − speed of light / reachable peak = {:.1f}%",
      Percent(active), Percent(headroom));
  return estimate;
}

std::optional<WaveModel> PredictWaves(const ToolContext& context) {
  auto waves = context.Metric("launch__waves_per_multiprocessor");
  auto grid = context.Metric("launch__grid_size");
  auto sm_count = context.Metric("launch__sm_count");
  if (!sm_count) sm_count = context.Metric("device__attribute_multiprocessor_count");
  if (!waves || !grid || !sm_count || *sm_count <= 0 || *grid <= 0) return std::nullopt;
  WaveModel model{*grid, *sm_count, *waves, *waves < 1};
  return model;
}

void AddWaveEvidence(const WaveModel& model, std::vector<Evidence>& evidence) {
  evidence.push_back(MakeEvidence("launch__grid_size", model.grid, "block", "", 0));
  evidence.push_back(MakeEvidence("launch__sm_count", model.sm_count, "SM", "", 0));
  evidence.push_back(MakeEvidence("launch__waves_per_multiprocessor", model.waves, "wave", "", 0));
  evidence.push_back(MakeEvidence("SM balance expected from the waves (uniform blocks)",
                                  Percent(model.Balance()), "%", "", 0));
}

std::vector<RequiredInput> LatencyModelInputs() {
  std::vector<RequiredInput> inputs;
  for (const char* name :
       {"smsp__issue_active.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.per_cycle_active",
        "sm__issue_active.avg.pct_of_peak_sustained_elapsed", "sm__cycles_active.avg",
        "sm__cycles_active.max", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.max"}) {
    inputs.push_back(NcuMetric(name, true));
  }
  return inputs;
}

}  // namespace kopt
