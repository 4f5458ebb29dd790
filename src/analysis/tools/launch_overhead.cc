// launch_overhead: many short launches of one kernel: the share of time the
// SMs idle between them (duration + gap against SM-busy time). The gap is the
// median GPU idle time before each launch that the CUPTI launch timeline
// measured, or, without one, the launch_cost_us threshold.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

// This kernel's launches: from the CUPTI timeline when there is one (every launch of the program, timed
// without ncu, with the GPU idle gap before each), else from the profile's launches and the threshold's
// launch cost.
struct LaunchStatistics {
  long long count = 0;
  double mean_ns = 0, minimum_ns = 0, maximum_ns = 0;
  double cost_ns = 0;                            // per launch, besides the kernel's own time
  const KernelTraceSummary* measured = nullptr;  // the timeline's numbers, when the cost is measured
};

LaunchStatistics SameKernelLaunches(const ToolContext& context) {
  LaunchStatistics statistics;
  if (const KernelTraceSummary* measured = context.timeline->Measured(context.launch.FunctionName());
      measured && measured->gaps > 0) {
    statistics = {measured->launches,
                  measured->MeanDurationNs(),
                  measured->minimum_duration_ns,
                  measured->maximum_duration_ns,
                  measured->median_gap_ns,
                  measured};
    return statistics;
  }
  LaunchDurations durations = context.timeline->Of(context.launch.FunctionName());
  return {durations.count,
          durations.MeanNs(),
          durations.minimum_ns,
          durations.maximum_ns,
          context.Threshold("launch_cost_us") * 1000,
          nullptr};
}

std::vector<Recommendation> LaunchOverheadRecommendations(const LaunchStatistics& statistics,
                                                          double cost_ns) {
  return {
      {"Capture the launch sequence in a CUDA Graph (cudaStreamBeginCapture … cudaGraphLaunch) and replay it",
       fmt::format("each launch pays about {} of CPU/driver cost for {} of GPU work",
                   FormatDuration(cost_ns, QuantityStyle::kFixed),
                   FormatDuration(statistics.mean_ns, QuantityStyle::kFixed)),
       "the per-launch host cost mostly disappears; the GPU runs the kernels back to back"},
      {"Fuse the work of many launches into one kernel: loop over the iterations or batch items inside the "
       "kernel (a bigger grid, or a persistent kernel with grid-wide sync between dependent steps), or fuse "
       "with the producer/consumer kernel",
       "a kernel this short spends most of its own time starting and draining, not computing",
       "launch and ramp-up costs are paid once instead of once per launch"},
      {"Give each launch more work (process several items per launch)",
       "fixed costs are amortized over more work",
       "the overhead's share of the time falls with the batch size"}};
}

// The evidence of where the launch count, durations and cost come from.
void AddLaunchEvidence(const LaunchStatistics& statistics, double minimum_launches, double maximum_mean_ns,
                       Finding& finding) {
  const KernelTraceSummary* measured = statistics.measured;
  std::string source = measured ? " (CUPTI timeline, without ncu)" : "";
  std::string duration = measured ? "kernel duration" : "gpu__time_duration.sum";
  finding.evidence.push_back(MakeEvidence(
      measured ? "launches of this kernel (CUPTI timeline)" : "launches of this kernel in the profile",
      static_cast<double>(statistics.count), "launch", ">=", minimum_launches));
  finding.evidence.push_back(MakeEvidence("mean " + duration + source, statistics.mean_ns / 1000, "µs",
                                          "<=", maximum_mean_ns / 1000));
  finding.evidence.push_back(
      MakeEvidence("min " + duration + source, statistics.minimum_ns / 1000, "µs", "", 0));
  finding.evidence.push_back(
      MakeEvidence("max " + duration + source, statistics.maximum_ns / 1000, "µs", "", 0));
  if (!measured) {
    finding.evidence.push_back(
        MakeEvidence("launch cost (threshold)", statistics.cost_ns / 1000, "µs", "", 0));
    return;
  }
  finding.evidence.push_back(MakeEvidence("median GPU idle gap before a launch (CUPTI timeline)",
                                          measured->median_gap_ns / 1000, "µs", "", 0));
  finding.evidence.push_back(MakeEvidence("mean GPU idle gap before a launch (CUPTI timeline)",
                                          measured->MeanGapNs() / 1000, "µs", "", 0));
  if (measured->host_calls > 0) {
    finding.evidence.push_back(MakeEvidence("mean host time in the launch call (CUPTI timeline)",
                                            measured->MeanHostCallNs() / 1000, "µs", "", 0));
  }
}

std::optional<Finding> AnalyzeLaunchOverhead(const ToolContext& context) {
  if (!context.timeline) return std::nullopt;
  LaunchStatistics statistics = SameKernelLaunches(context);
  double minimum_launches = context.Threshold("min_launches");
  double maximum_mean_ns = context.Threshold("max_mean_duration_us") * 1000;
  if (statistics.count < minimum_launches || statistics.mean_ns <= 0 ||
      statistics.mean_ns > maximum_mean_ns) {
    return std::nullopt;
  }
  double cost_ns = statistics.cost_ns;
  auto activity = MeasuredSmActivity(context);
  double active = activity ? activity->AverageActiveFraction() : 1;
  double work_ns = statistics.mean_ns * active;
  double gain = Clamp01(1 - work_ns / (statistics.mean_ns + cost_ns));
  if (gain < context.Threshold("min_gain")) return std::nullopt;
  bool measured = statistics.measured != nullptr;
  Finding finding;
  finding.title = fmt::format(
      "Launch overhead: {} launches of {} on average{}", statistics.count,
      FormatDuration(statistics.mean_ns, QuantityStyle::kFixed),
      measured ? fmt::format(", {} idle between them", FormatDuration(cost_ns, QuantityStyle::kFixed)) : "");
  finding.estimated_gain = gain;
  finding.gain_method = fmt::format(
      "share of each launch's cost that is overhead: per launch {} of GPU time + {} {}; the SMs work {:.1f}% "
      "of the GPU time ({}); gain = 1 − {} / {}{}",
      FormatDuration(statistics.mean_ns, QuantityStyle::kFixed),
      FormatDuration(cost_ns, QuantityStyle::kFixed),
      measured ? "of GPU idle before it (the median gap the CUPTI timeline measured; the tracing itself adds "
                 "about 2 µs to each launch's host cost on the H200)"
               : "launch cost (threshold)",
      Percent(active), FormatDuration(work_ns, QuantityStyle::kFixed),
      FormatDuration(work_ns, QuantityStyle::kFixed),
      FormatDuration(statistics.mean_ns + cost_ns, QuantityStyle::kFixed),
      measured
          ? ""
          : " (ncu serialises launches, so the gaps between them are not in the profile: the launch cost is "
            "the threshold's)");
  AddLaunchEvidence(statistics, minimum_launches, maximum_mean_ns, finding);
  if (activity) {
    finding.evidence.push_back(MakeEvidence("SM active fraction (sm__cycles_active.avg / sm__cycles_elapsed)",
                                            Percent(active), "%", "", 0));
  }
  finding.evidence.push_back(
      MakeEvidence("launch__grid_size", static_cast<double>(context.launch.grid.Count()), "block", "", 0));
  finding.root_cause = fmt::format(
      "The kernel is launched many times ({} {}) and each launch does about {} of GPU work, {}. The program "
      "spends its time launching, starting and draining kernels rather than computing.",
      statistics.count, measured ? "in the program's timeline" : "in the profile",
      FormatDuration(work_ns, QuantityStyle::kFixed),
      measured ? fmt::format("while the GPU idles {} before each launch",
                             FormatDuration(cost_ns, QuantityStyle::kFixed))
               : "less than the fixed cost of a launch");
  finding.recommendations = LaunchOverheadRecommendations(statistics, cost_ns);
  finding.confidence = measured ? (activity ? 0.85 : 0.7) : (activity ? 0.75 : 0.6);
  return finding;
}

}  // namespace

ToolDefinition LaunchOverheadTool() {
  ToolDefinition tool;
  tool.id = "launch_overhead";
  tool.title = "Launch overhead (many short launches)";
  tool.family = ToolFamily::kLaunch;
  tool.side = ToolSide::kLatency;
  tool.relevant_classes = EveryBottleneckClass();
  tool.required = {NcuMetric("gpu__time_duration.sum"),
                   {InputSource::kLaunches, "all launches", false},
                   {InputSource::kLaunches, std::string(kLaunchTimelineInput), true},
                   NcuMetric("sm__cycles_active.avg", true),
                   NcuMetric("sm__cycles_elapsed.max", true)};
  tool.thresholds = {
      {"min_launches", 10, "launch",
       "launches of the same kernel in the profile from which launch overhead is examined "
       "(GPA's KernelMerge: at least 10 launches)"},
      {"max_mean_duration_us", 100, "µs",
       "mean kernel duration up to which a launch counts as short (GPA's KernelMerge: kernels "
       "of at most 100 µs)"},
      {"launch_cost_us", 3, "µs",
       "host and driver cost of one kernel launch, used only without a launch timeline (ncu "
       "serialises launches, so the gaps are not in its profile; 2–5 µs on current drivers; the "
       "reason CUDA Graphs exist); with a CUPTI timeline the measured median gap replaces it"},
      LatencyMinGainThreshold()};
  tool.trigger =
      "launches of this kernel >= min_launches and mean duration <= max_mean_duration_us, and the overhead "
      "share 1 − SM-busy time / (duration + gap) >= min_gain, where launches, duration and gap come from the "
      "CUPTI launch timeline when there is one (gap: the median GPU idle time before a launch), else from "
      "the "
      "profile with gap = launch_cost_us";
  tool.subsumes = {"tail_effect", "achieved_occupancy_gap", "sm_load_imbalance"};
  tool.gain_bound = GainBound::kRemovesLaunches;
  tool.tuning_moves = {
      {"launch_overhead",
       {{ParameterRole::kItemsPerThread, MoveDirection::kIncrease},
        {ParameterRole::kRowsPerBlock, MoveDirection::kIncrease},
        {ParameterRole::kVectorWidth, MoveDirection::kIncrease}},
       "a kernel this short is dominated by launch cost: more work per launch"},
  };
  tool.analyze = AnalyzeLaunchOverhead;
  return tool;
}

}  // namespace kopt
