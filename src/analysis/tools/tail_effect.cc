// tail_effect: too few blocks for the SMs, or a partial last wave: the
// waste of uniform blocks (⌈w⌉ − w)/⌈w⌉, bounded by the measured SM spread.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

std::vector<Recommendation> TailRecommendations(const WaveModel& model) {
  double blocks_per_wave = model.waves > 0 ? model.grid / model.waves : model.sm_count;
  if (model.grid < model.sm_count) {
    return {{fmt::format("Split the work into at least {} blocks (2 per SM), e.g. smaller blocks or a finer "
                         "decomposition of the problem (split-K, more tiles)",
                         FormatCount(2 * model.sm_count)),
             fmt::format("{} blocks leave {} of {} SMs without work", FormatCount(model.grid),
                         FormatCount(model.sm_count - model.grid), FormatCount(model.sm_count)),
             "every SM gets work; time falls toward the work divided over all SMs"},
            {"Run independent kernels concurrently in separate streams (or fuse them) to fill the idle SMs",
             "a small grid cannot use the whole GPU", "idle SMs do useful work"}};
  }
  return {
      {fmt::format("Make the grid a whole number of waves: launch {} blocks (a multiple of {} per wave) with "
                   "a grid-stride loop, or a persistent kernel with one wave that loops over the work",
                   FormatCount(std::max(1.0, std::floor(model.Units())) * blocks_per_wave),
                   FormatCount(blocks_per_wave)),
       fmt::format("{:.2f} waves: the last wave runs on a fraction of the SMs while the others idle",
                   model.Units()),
       "the idle tail disappears: time falls to the work divided over all SMs"},
      {"Use smaller blocks (more, shorter waves), so that the partial wave is a smaller share of the time",
       "the tail lasts one block duration; shorter blocks make it shorter",
       "the tail's share of time shrinks with the number of waves"}};
}

std::optional<Finding> AnalyzeTailEffect(const ToolContext& context) {
  auto model = PredictWaves(context);
  if (!model) return std::nullopt;
  double waste = model->Waste();
  if (waste < context.Threshold("min_gain")) return std::nullopt;
  Finding finding;
  finding.estimated_gain = waste;
  finding.gain_method = fmt::format(
      "uniform blocks over {:.2f} {}: 1 − {:.2f}/⌈{:.2f}⌉ = {:.1f}% of SM time idle", model->Units(),
      model->below_one_wave ? "blocks per SM" : "waves", model->Units(), model->Units(), Percent(waste));
  finding.confidence = 0.5;
  AddWaveEvidence(*model, finding.evidence);
  if (auto activity = MeasuredSmActivity(context)) {
    finding.estimated_gain = std::min(waste, activity->IdleFraction());
    finding.gain_method +=
        fmt::format("; bounded by the measured SM idle time (max − avg active cycles) / elapsed = {:.1f}%",
                    Percent(activity->IdleFraction()));
    finding.confidence = 0.8;
    AddSmActivityEvidence(*activity, finding.evidence);
  }
  if (finding.estimated_gain < context.Threshold("min_gain")) return std::nullopt;
  finding.title = model->grid < model->sm_count
                      ? fmt::format("Too few blocks: {} blocks for {} SMs", FormatCount(model->grid),
                                    FormatCount(model->sm_count))
                      : fmt::format("Tail effect: {:.2f} {}, the last one partial", model->Units(),
                                    model->below_one_wave ? "blocks per SM" : "waves");
  finding.root_cause = fmt::format(
      "The grid does not divide evenly over the {} SMs: while the last {} runs, part of the GPU has nothing "
      "to do. With uniform blocks, {:.0f}% of the SM time is idle.",
      FormatCount(model->sm_count), model->below_one_wave ? "blocks" : "wave", Percent(waste));
  finding.recommendations = TailRecommendations(*model);
  return finding;
}

}  // namespace

ToolDefinition TailEffectTool() {
  ToolDefinition tool;
  tool.id = "tail_effect";
  tool.title = "Too few blocks or a partial last wave (tail effect)";
  tool.family = ToolFamily::kOccupancy;
  tool.side = ToolSide::kLatency;
  tool.ncu_rules = {NcuRule::kLaunchConfiguration};
  tool.required = {NcuMetric("launch__waves_per_multiprocessor"),
                   NcuMetric("launch__grid_size"),
                   NcuMetric("launch__sm_count"),
                   NcuMetric("sm__cycles_active.avg", true),
                   NcuMetric("sm__cycles_active.max", true),
                   NcuMetric("sm__cycles_elapsed.max", true)};
  tool.thresholds = {LatencyMinGainThreshold()};
  tool.trigger =
      "idle SM time of uniform blocks, 1 − w/⌈w⌉ (w: waves, or blocks per SM below one wave), bounded by the "
      "measured (max − avg) SM active cycles / elapsed, >= min_gain";
  tool.subsumes = {"achieved_occupancy_gap"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"tail_effect",
       {{ParameterRole::kItemsPerThread, MoveDirection::kDecrease}, {ParameterRole::kRowsPerBlock, MoveDirection::kDecrease}, {ParameterRole::kTileX, MoveDirection::kDecrease}, {ParameterRole::kTileY, MoveDirection::kDecrease}, {ParameterRole::kSplitK, MoveDirection::kIncrease}, {ParameterRole::kBlockSize, MoveDirection::kDecrease}},
       "the last wave of blocks leaves SMs idle: more, smaller blocks (or split the reduction)"},
  };
  tool.analyze = AnalyzeTailEffect;
  return tool;
}

}  // namespace kopt
