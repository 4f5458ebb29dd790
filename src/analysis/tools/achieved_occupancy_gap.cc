// achieved_occupancy_gap: achieved occupancy far below the theoretical one
// (imbalanced warps, partial waves, short blocks); gain by the latency model.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_selection.h"
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

// The occupancy the grid itself allows: its warps spread over the SMs, as a
// percentage of the warps an SM holds (nullopt when a launch metric is missing).
std::optional<double> GridOccupancyPercent(const ToolContext& context) {
  auto grid = context.Metric("launch__grid_size");
  auto block = context.Metric("launch__block_size");
  auto sm_count = context.Metric("launch__sm_count");
  double max_warps = context.gpu ? context.gpu->max_warps_per_sm : 0;
  if (!grid || !block || !sm_count || *sm_count <= 0 || max_warps <= 0) return std::nullopt;
  double warps_per_sm = *grid * std::ceil(*block / kWarpSize) / *sm_count;
  return std::min(100.0, 100 * warps_per_sm / max_warps);
}

std::vector<Recommendation> GridLimitedRecommendations(double grid_percent) {
  return {{"Launch more, smaller pieces of work: split the per-thread loop (e.g. the inner range of an "
           "all-pairs or reduction loop) across several blocks and combine the partial results (atomics or "
           "a second pass), or give each thread fewer outputs",
           fmt::format("the whole grid holds {:.0f}% of the warps the SMs could keep resident: no block "
                       "shape or balancing fills an SM the grid has no warps for",
                       grid_percent),
           "resident warps rise toward the theoretical occupancy; their latency hides behind each other"},
          {"Or raise the instruction-level parallelism of each thread (several independent accumulators, "
           "unrolled independent iterations) when the problem cannot be split",
           "few warps need independent instructions in flight to keep the pipes busy",
           "fewer cycles wait on dependent results"}};
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
  // A grid with fewer warps than the SMs hold: the gap is the launch's size, not stragglers.
  auto grid_percent = GridOccupancyPercent(context);
  if (grid_percent && *grid_percent <= theoretical - minimum_gap &&
      achieved >= context.Threshold("min_grid_explained_share") * *grid_percent) {
    finding.evidence.push_back(MakeEvidence("grid warps / (SMs × warps per SM) (grid-limited occupancy)",
                                            *grid_percent, "%", "<=", theoretical - minimum_gap));
    finding.title = fmt::format(
        "Achieved occupancy {:.1f}% far below the theoretical {:.1f}%: the grid has "
        "too few warps to fill the SMs",
        achieved, theoretical);
    finding.root_cause = fmt::format(
        "The SMs could hold {:.0f}% of their warps, but the whole grid ({} blocks of {} threads over {} SMs) "
        "has only {:.0f}% of that many, and the SMs held {:.0f}% on average: with so few warps per "
        "scheduler, each waits out the latency of its dependent instructions with nothing else to issue.",
        theoretical, FormatCount(*context.Metric("launch__grid_size")),
        FormatCount(*context.Metric("launch__block_size")), FormatCount(*context.Metric("launch__sm_count")),
        *grid_percent, achieved);
    finding.recommendations = GridLimitedRecommendations(*grid_percent);
  }
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
  tool.relevant_classes = EveryBottleneckClass();
  tool.ncu_rules = {NcuRule::kAchievedOccupancy};
  tool.required = {NcuMetric("sm__maximum_warps_per_active_cycle_pct"),
                   NcuMetric("sm__warps_active.avg.pct_of_peak_sustained_active"),
                   NcuMetric("smsp__cycles_active.avg", true),
                   NcuMetric("launch__grid_size", true),
                   NcuMetric("launch__block_size", true),
                   NcuMetric("launch__sm_count", true)};
  for (RequiredInput& input : LatencyModelInputs()) tool.required.push_back(input);
  tool.thresholds = {{"min_gap_points", 10, "%",
                      "theoretical − achieved occupancy, in points, from which the gap is examined (ncu's "
                      "AchievedOccupancy rule)"},
                     {"min_grid_explained_share", 0.8, "fraction",
                      "achieved occupancy over the grid-limited one (grid warps / (SMs × warps per SM)) from "
                      "which the grid's size, not stragglers, explains the gap: the finding then names the "
                      "grid and recommends more, smaller pieces of work"},
                     LatencyMinGainThreshold(),
                     ReachablePeakThreshold()};
  tool.trigger =
      "theoretical − achieved occupancy >= min_gap_points, and the gain of reaching the theoretical "
      "occupancy (calibrated latency-hiding model) >= min_gain; named a grid too small to fill the SMs when "
      "the grid-limited occupancy is below the theoretical one by min_gap_points and achieved >= "
      "min_grid_explained_share of it";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"achieved_occupancy_gap",
       {{ParameterRole::kBlockSize, MoveDirection::kDecrease},
        {ParameterRole::kRowsPerBlock, MoveDirection::kDecrease},
        {ParameterRole::kItemsPerThread, MoveDirection::kDecrease}},
       "resident warps fall short of the theoretical occupancy: smaller blocks even out the SMs"},
  };
  tool.analyze = AnalyzeAchievedOccupancyGap;
  return tool;
}

}  // namespace kopt
