// tail_effect: too few blocks for the SMs, or a partial last wave: the
// waste of uniform blocks (⌈w⌉ − w)/⌈w⌉, bounded by the measured SM spread.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_selection.h"
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

constexpr const char* kAchievedOccupancyMetric = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kTheoreticalOccupancyMetric = "sm__maximum_warps_per_active_cycle_pct";

// Past one wave, the partial last wave leaves every SM active (each keeps one
// or a few blocks of it) while most of its block slots stay empty: the SM
// active cycles cannot see that tail, the achieved occupancy does (uniform
// blocks over w waves average w/⌈w⌉ of the theoretical warps). What the empty
// slots cost is what the missing warps would have hidden: the calibrated
// latency-hiding model (GPA's PARALLEL_LAT, as achieved_occupancy_gap uses it)
// at the measured issue rate u with theoretical/achieved times the warps,
// 1 − u/(1 − (1 − u)^r). A tail whose remaining blocks still keep the pipes
// busy costs little; one that leaves the schedulers idle costs its share.
// nullopt below one wave (the idle SMs show in their active cycles) or
// without the occupancy or issue metrics. It bounds the gain only together
// with the wave model's waste, so an occupancy gap of another cause (uneven
// warps) cannot exceed what the grid's shape explains.
struct SlotIdleCost {
  double achieved = 0, theoretical = 0, issue_active = 0, gain = 0;
};
std::optional<SlotIdleCost> TailBlockSlotCost(const ToolContext& context, const WaveModel& model) {
  if (model.below_one_wave) return std::nullopt;
  auto achieved = context.Metric(kAchievedOccupancyMetric);
  auto theoretical = context.Metric(kTheoreticalOccupancyMetric);
  auto issue = IssueActive(context);
  if (!achieved || !theoretical || !issue || *achieved <= 0 || *theoretical <= *achieved) return std::nullopt;
  return SlotIdleCost{*achieved, *theoretical, issue->value,
                      MoreWarpsGain(issue->value, *theoretical / *achieved)};
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
    double measured_idle = activity->IdleFraction();
    finding.gain_method +=
        fmt::format("; bounded by the measured SM idle time (max − avg active cycles) / elapsed = {:.1f}%",
                    Percent(measured_idle));
    if (auto slots = TailBlockSlotCost(context, *model); slots && slots->gain > measured_idle) {
      measured_idle = slots->gain;
      finding.gain_method += fmt::format(
          "; past one wave every SM keeps a block of the last wave, so its active cycles hide the tail and "
          "its empty warp slots show it: achieved {:.1f}% of theoretical {:.1f}% occupancy, which at the "
          "issue rate u = {:.1f}% costs 1 − u/(1 − (1 − u)^{:.2f}) = {:.1f}% (latency-hiding model)",
          slots->achieved, slots->theoretical, Percent(slots->issue_active),
          slots->theoretical / slots->achieved, Percent(slots->gain));
      finding.evidence.push_back(MakeEvidence(kAchievedOccupancyMetric, slots->achieved, "%", "", 0));
      finding.evidence.push_back(MakeEvidence(kTheoreticalOccupancyMetric, slots->theoretical, "%", "", 0));
    }
    finding.estimated_gain = std::min(waste, measured_idle);
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
  tool.relevant_classes = EveryBottleneckClass();
  tool.ncu_rules = {NcuRule::kLaunchConfiguration};
  tool.required = {NcuMetric("launch__waves_per_multiprocessor"),
                   NcuMetric("launch__grid_size"),
                   NcuMetric("launch__sm_count"),
                   NcuMetric("sm__cycles_active.avg", true),
                   NcuMetric("sm__cycles_active.max", true),
                   NcuMetric("sm__cycles_elapsed.max", true),
                   NcuMetric(kAchievedOccupancyMetric, true),
                   NcuMetric(kTheoreticalOccupancyMetric, true)};
  for (RequiredInput& input : LatencyModelInputs()) tool.required.push_back(input);
  tool.thresholds = {LatencyMinGainThreshold()};
  tool.trigger =
      "idle SM time of uniform blocks, 1 − w/⌈w⌉ (w: waves, or blocks per SM below one wave), bounded by the "
      "measured (max − avg) SM active cycles / elapsed or, past one wave, the larger cost of the empty warp "
      "slots (latency-hiding model at the issue rate, theoretical/achieved occupancy), >= min_gain";
  tool.subsumes = {"achieved_occupancy_gap"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"tail_effect",
       {{ParameterRole::kItemsPerThread, MoveDirection::kDecrease},
        {ParameterRole::kRowsPerBlock, MoveDirection::kDecrease},
        {ParameterRole::kTileX, MoveDirection::kDecrease},
        {ParameterRole::kTileY, MoveDirection::kDecrease},
        {ParameterRole::kSplitK, MoveDirection::kIncrease},
        {ParameterRole::kBlockSize, MoveDirection::kDecrease}},
       "the last wave of blocks leaves SMs idle: more, smaller blocks (or split the reduction)"},
  };
  tool.analyze = AnalyzeTailEffect;
  return tool;
}

}  // namespace kopt
