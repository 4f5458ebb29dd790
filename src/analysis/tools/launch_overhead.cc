// launch_overhead: many short launches of one kernel: the share of time the
// SMs idle between them (duration + launch cost against SM-busy time).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

// The timeline's launches of this kernel (every launch of the profile, also those not selected).
struct LaunchStatistics {
  long long count = 0;
  double mean_ns = 0, minimum_ns = 0, maximum_ns = 0;
};

LaunchStatistics SameKernelLaunches(const ToolContext& context) {
  LaunchDurations durations = context.timeline->Of(context.launch.FunctionName());
  return {durations.count, durations.MeanNs(), durations.minimum_ns, durations.maximum_ns};
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

std::optional<Finding> AnalyzeLaunchOverhead(const ToolContext& context) {
  if (!context.timeline) return std::nullopt;
  LaunchStatistics statistics = SameKernelLaunches(context);
  double minimum_launches = context.Threshold("min_launches");
  double maximum_mean_ns = context.Threshold("max_mean_duration_us") * 1000;
  if (statistics.count < minimum_launches || statistics.mean_ns <= 0 ||
      statistics.mean_ns > maximum_mean_ns) {
    return std::nullopt;
  }
  double cost_ns = context.Threshold("launch_cost_us") * 1000;
  auto activity = MeasuredSmActivity(context);
  double active = activity ? activity->AverageActiveFraction() : 1;
  double work_ns = statistics.mean_ns * active;
  double gain = Clamp01(1 - work_ns / (statistics.mean_ns + cost_ns));
  if (gain < context.Threshold("min_gain")) return std::nullopt;
  Finding finding;
  finding.title = fmt::format("Launch overhead: {} launches of {} on average", statistics.count,
                              FormatDuration(statistics.mean_ns, QuantityStyle::kFixed));
  finding.estimated_gain = gain;
  finding.gain_method = fmt::format(
      "share of each launch's cost that is overhead: per launch {} of GPU time + {} launch cost (threshold); "
      "the SMs work {:.1f}% of the GPU time ({}); gain = 1 − {} / {} (ncu serialises launches, so the gaps "
      "between them are not in the profile: the launch cost is the threshold's)",
      FormatDuration(statistics.mean_ns, QuantityStyle::kFixed),
      FormatDuration(cost_ns, QuantityStyle::kFixed), Percent(active),
      FormatDuration(work_ns, QuantityStyle::kFixed), FormatDuration(work_ns, QuantityStyle::kFixed),
      FormatDuration(statistics.mean_ns + cost_ns, QuantityStyle::kFixed));
  finding.evidence.push_back(MakeEvidence("launches of this kernel in the profile",
                                          static_cast<double>(statistics.count), "launch",
                                          ">=", minimum_launches));
  finding.evidence.push_back(MakeEvidence("mean gpu__time_duration.sum", statistics.mean_ns / 1000, "µs",
                                          "<=", maximum_mean_ns / 1000));
  finding.evidence.push_back(
      MakeEvidence("min gpu__time_duration.sum", statistics.minimum_ns / 1000, "µs", "", 0));
  finding.evidence.push_back(
      MakeEvidence("max gpu__time_duration.sum", statistics.maximum_ns / 1000, "µs", "", 0));
  finding.evidence.push_back(MakeEvidence("launch cost (threshold)", cost_ns / 1000, "µs", "", 0));
  if (activity) {
    finding.evidence.push_back(MakeEvidence("SM active fraction (sm__cycles_active.avg / sm__cycles_elapsed)",
                                            Percent(active), "%", "", 0));
  }
  finding.evidence.push_back(
      MakeEvidence("launch__grid_size", static_cast<double>(context.launch.grid.Count()), "block", "", 0));
  finding.root_cause = fmt::format(
      "The kernel is launched many times ({} in the profile) and each launch does about {} of GPU work, less "
      "than the fixed cost of a launch. The program spends its time launching, starting and draining kernels "
      "rather than computing.",
      statistics.count, FormatDuration(work_ns, QuantityStyle::kFixed));
  finding.recommendations = LaunchOverheadRecommendations(statistics, cost_ns);
  finding.confidence = activity ? 0.75 : 0.6;
  return finding;
}

}  // namespace

ToolDefinition LaunchOverheadTool() {
  ToolDefinition tool;
  tool.id = "launch_overhead";
  tool.title = "Launch overhead (many short launches)";
  tool.family = ToolFamily::kLaunch;
  tool.side = ToolSide::kLatency;
  tool.required = {NcuMetric("gpu__time_duration.sum"),
                   {InputSource::kLaunches, "all launches", false},
                   NcuMetric("sm__cycles_active.avg", true),
                   NcuMetric("sm__cycles_elapsed.max", true)};
  tool.thresholds = {{"min_launches", 10, "launch",
                      "launches of the same kernel in the profile from which launch overhead is examined "
                      "(GPA's KernelMerge: at least 10 launches)"},
                     {"max_mean_duration_us", 100, "µs",
                      "mean kernel duration up to which a launch counts as short (GPA's KernelMerge: kernels "
                      "of at most 100 µs)"},
                     {"launch_cost_us", 3, "µs",
                      "host and driver cost of one kernel launch, not visible in an ncu profile (2–5 µs on "
                      "current drivers; the reason CUDA Graphs exist)"},
                     LatencyMinGainThreshold()};
  tool.trigger =
      "launches of this kernel >= min_launches and mean gpu__time_duration.sum <= max_mean_duration_us, and "
      "the overhead share 1 − SM-busy time / (duration + launch_cost_us) >= min_gain";
  tool.subsumes = {"tail_effect", "achieved_occupancy_gap", "sm_load_imbalance"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeLaunchOverhead;
  return tool;
}

}  // namespace kopt
