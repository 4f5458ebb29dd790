// achieved_occupancy_gap: achieved occupancy far below the theoretical one
// (imbalanced warps, partial waves, short blocks); gain by the latency model.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

// Share of the SMs' active cycles in which a scheduler had at least one warp.
std::optional<double> SubPartitionActiveShare(const ToolContext& context) {
  auto partition = context.Metric("smsp__cycles_active.avg");
  auto sm = context.Metric("sm__cycles_active.avg");
  if (!partition || !sm || *sm <= 0) return std::nullopt;
  return Clamp01(*partition / *sm);
}

std::string AchievedGapRootCause(std::optional<double> partition_share, double achieved, double theoretical) {
  std::string text = fmt::format(
      "The SMs could hold {:.0f}% of their warps but held {:.0f}% on average: warps or blocks finish at "
      "different times, and a block keeps its slot until its last warp ends, so the early finishers leave "
      "slots empty while the stragglers run with too few warps to hide their latency.",
      theoretical, achieved);
  if (partition_share && *partition_share < 0.9) {
    text += fmt::format(
        " The schedulers had no warp at all in {:.0f}% of the SMs' active cycles: within a block, a few "
        "warps carry most of the work.",
        100 - Percent(*partition_share));
  }
  return text;
}

std::vector<Recommendation> AchievedGapRecommendations() {
  return {{"Give every warp of a block the same amount of work: split long per-warp loops across all warps "
           "(e.g. warp w takes iterations w, w + 32, …) instead of letting a few warps carry them",
           "a block's warp slots stay allocated until its slowest warp ends",
           "achieved occupancy approaches the theoretical one; the long chains are hidden by other warps"},
          {"Use a grid-stride loop (or a persistent kernel with a work counter) so that a warp that finishes "
           "early picks up more work instead of exiting",
           "warps that exit leave the scheduler with nothing to issue",
           "resident warps stay busy until the work runs out"},
          {"Use smaller blocks (128–256 threads) when warps of one block finish at very different times",
           "a small block frees its slot sooner, so a new block can start",
           "fewer warp slots wait on a straggler"}};
}

std::optional<Finding> AnalyzeAchievedOccupancyGap(const ToolContext& context) {
  double theoretical = *context.Metric("sm__maximum_warps_per_active_cycle_pct");
  double achieved = *context.Metric("sm__warps_active.avg.pct_of_peak_sustained_active");
  double minimum_gap = context.Threshold("min_gap_points");
  if (theoretical - achieved < minimum_gap) return std::nullopt;
  LatencyHidingEstimate estimate = EstimateMoreWarps(context, theoretical / std::max(achieved, 0.01));
  if (estimate.gain < context.Threshold("min_gain")) return std::nullopt;
  Finding finding;
  finding.title =
      fmt::format("Achieved occupancy {:.1f}% far below the theoretical {:.1f}%", achieved, theoretical);
  finding.estimated_gain = estimate.gain;
  finding.gain_method =
      fmt::format("reaching the theoretical occupancy multiplies resident warps by {:.2f}; ",
                  theoretical / std::max(achieved, 0.01)) +
      estimate.method;
  finding.evidence.push_back(MakeEvidence("sm__maximum_warps_per_active_cycle_pct", theoretical, "%", "", 0));
  finding.evidence.push_back(MakeEvidence("sm__warps_active.avg.pct_of_peak_sustained_active", achieved, "%",
                                          "<", theoretical - minimum_gap));
  auto partition_share = SubPartitionActiveShare(context);
  if (partition_share) {
    finding.evidence.push_back(MakeEvidence("smsp__cycles_active.avg / sm__cycles_active.avg",
                                            Percent(*partition_share), "%", "", 0));
  }
  finding.evidence.insert(finding.evidence.end(), estimate.evidence.begin(), estimate.evidence.end());
  finding.root_cause = AchievedGapRootCause(partition_share, achieved, theoretical);
  finding.recommendations = AchievedGapRecommendations();
  finding.confidence = estimate.confidence - 0.1;
  return finding;
}

}  // namespace

ToolDefinition AchievedOccupancyGapTool() {
  ToolDefinition tool;
  tool.id = "achieved_occupancy_gap";
  tool.title = "Achieved occupancy far below theoretical";
  tool.family = ToolFamily::kOccupancy;
  tool.side = ToolSide::kLatency;
  tool.ncu_rules = {NcuRule::kAchievedOccupancy};
  tool.required = {NcuMetric("sm__maximum_warps_per_active_cycle_pct"),
                   NcuMetric("sm__warps_active.avg.pct_of_peak_sustained_active"),
                   NcuMetric("smsp__cycles_active.avg", true)};
  for (RequiredInput& input : LatencyModelInputs()) tool.required.push_back(input);
  tool.thresholds = {{"min_gap_points", 10, "%",
                      "theoretical − achieved occupancy, in points, from which the gap is examined (ncu's "
                      "AchievedOccupancy rule)"},
                     LatencyMinGainThreshold(),
                     ReachablePeakThreshold()};
  tool.trigger =
      "theoretical − achieved occupancy >= min_gap_points, and the gain of reaching the theoretical "
      "occupancy (calibrated latency-hiding model) >= min_gain";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"achieved_occupancy_gap",
       {{ParameterRole::kBlockSize, MoveDirection::kDecrease}, {ParameterRole::kRowsPerBlock, MoveDirection::kDecrease}, {ParameterRole::kItemsPerThread, MoveDirection::kDecrease}},
       "resident warps fall short of the theoretical occupancy: smaller blocks even out the SMs"},
  };
  tool.analyze = AnalyzeAchievedOccupancyGap;
  return tool;
}

}  // namespace kopt
