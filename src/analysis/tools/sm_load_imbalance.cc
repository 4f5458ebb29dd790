// sm_load_imbalance: SMs busy for very different times, beyond what the wave
// model explains: the time that goes away when every SM is as busy as the average.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

// quantization of uniform blocks explains.

std::vector<Recommendation> ImbalanceRecommendations() {
  return {{"Split heavy work items across several blocks (decompose by elements, not by segments/rows): cap "
           "the work per block and let long items span many blocks, combining partial results with a second "
           "pass or atomics",
           "a block runs on one SM; a block with far more work than the others keeps its SM busy alone",
           "every SM finishes at about the same time: time falls toward the average SM's busy time"},
          {"Schedule work dynamically: a persistent kernel (one wave of blocks) whose blocks take the next "
           "chunk from a global atomic counter until the work runs out",
           "static block-to-work assignment cannot adapt to uneven work",
           "idle SMs take over remaining work instead of waiting"},
          {"If the work sizes are known in advance, launch the biggest items first (sort or bin by size)",
           "blocks start in index order; big items started last finish last",
           "the longest items overlap with the short ones instead of forming a tail"}};
}

std::optional<Finding> AnalyzeSmLoadImbalance(const ToolContext& context) {
  auto activity = MeasuredSmActivity(context);
  if (!activity) return std::nullopt;
  double minimum_idle = context.Threshold("min_idle_fraction");
  if (activity->IdleFraction() < minimum_idle) return std::nullopt;
  auto model = PredictWaves(context);
  double expected_balance = model ? model->Balance() : 1;
  double unexplained = Clamp01(1 - activity->Balance() / expected_balance);
  double gain = unexplained * Clamp01(activity->maximum / activity->elapsed);
  if (gain < context.Threshold("min_gain")) return std::nullopt;
  Finding finding;
  finding.title =
      fmt::format("Load imbalance across SMs: the average SM is busy {:.0f}% as long as the busiest",
                  Percent(activity->Balance()));
  finding.estimated_gain = gain;
  finding.gain_method = fmt::format(
      "time beyond the wave quantization when every SM is as busy as the average one: (1 − measured balance "
      "{:.1f}% / balance expected from the waves {:.1f}%) × busiest SM active / elapsed {:.1f}% (ncu's "
      "WorkloadImbalance weights by avg/elapsed instead, which shrinks the estimate as the imbalance grows)",
      Percent(activity->Balance()), Percent(expected_balance),
      Percent(activity->maximum / activity->elapsed));
  AddSmActivityEvidence(*activity, finding.evidence);
  finding.evidence.push_back(MakeEvidence("(max − avg) SM active cycles / elapsed",
                                          Percent(activity->IdleFraction()), "%",
                                          ">=", Percent(minimum_idle)));
  if (model) AddWaveEvidence(*model, finding.evidence);
  finding.root_cause = fmt::format(
      "Blocks carry very different amounts of work: the busiest SM is active {} cycles, the average one {}. "
      "For most of the kernel a few SMs run the heavy blocks while the others have finished and sit idle; "
      "uniform blocks over these waves would keep the average SM {:.0f}% as busy as the busiest.",
      FormatCount(activity->maximum), FormatCount(activity->average), Percent(expected_balance));
  finding.recommendations = ImbalanceRecommendations();
  finding.confidence = model ? 0.8 : 0.6;
  return finding;
}

}  // namespace

ToolDefinition SmLoadImbalanceTool() {
  ToolDefinition tool;
  tool.id = "sm_load_imbalance";
  tool.title = "Load imbalance across SMs";
  tool.family = ToolFamily::kOccupancy;
  tool.side = ToolSide::kLatency;
  tool.relevant_classes = EveryBottleneckClass();
  tool.ncu_rules = {NcuRule::kWorkloadImbalance};
  tool.required = {NcuMetric("sm__cycles_active.avg"),
                   NcuMetric("sm__cycles_active.max"),
                   NcuMetric("sm__cycles_elapsed.max"),
                   NcuMetric("sm__cycles_active.min", true),
                   NcuMetric("launch__waves_per_multiprocessor", true),
                   NcuMetric("launch__grid_size", true),
                   NcuMetric("launch__sm_count", true)};
  tool.thresholds = {{"min_idle_fraction", 0.05, "fraction",
                      "(max − avg) SM active cycles / elapsed from which imbalance is examined (ncu's "
                      "WorkloadImbalance reports from 5%)"},
                     LatencyMinGainThreshold()};
  tool.trigger =
      "(max − avg) SM active cycles / elapsed >= min_idle_fraction, and the part the wave quantization does "
      "not explain, (1 − measured avg/max ÷ expected avg/max) × max/elapsed, >= min_gain";
  tool.subsumes = {"achieved_occupancy_gap", "tail_effect"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"sm_load_imbalance",
       {{ParameterRole::kItemsPerThread, MoveDirection::kDecrease}, {ParameterRole::kRowsPerBlock, MoveDirection::kDecrease}, {ParameterRole::kBlockSize, MoveDirection::kDecrease}, {ParameterRole::kSplitK, MoveDirection::kIncrease}},
       "some SMs finish early: more, smaller pieces of work"},
  };
  tool.analyze = AnalyzeSmLoadImbalance;
  return tool;
}

}  // namespace kopt
