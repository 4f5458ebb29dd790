// healthy: the healthy-kernel verdict: a kernel near its speed-of-light
// ceiling gets no invented problem; the report says so and names the
// next-order gain.
#include <fmt/format.h>

#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

std::string UnitOfCeiling(const RooflineAnalysis& roofline) {
  if (roofline.bottleneck == BottleneckClass::kMemoryBound && !roofline.busiest_memory_level.empty()) {
    std::string level = roofline.busiest_memory_level;
    return level == "dram" ? "DRAM bandwidth"
           : level == "l2" ? "L2 bandwidth"
                           : "L1/shared-memory throughput";
  }
  return "SM throughput";
}

Recommendation NextOrderRecommendation(const RooflineAnalysis& roofline) {
  if (roofline.bottleneck == BottleneckClass::kMemoryBound) {
    return {
        "Move fewer bytes: fuse this kernel with its producer or consumer, or store the data in a narrower "
        "type (bf16/fp8) if accuracy allows",
        "At the bandwidth ceiling only less traffic makes it faster",
        fmt::format("time falls in proportion to the bytes removed; the kernel already runs at {:.0f}% of "
                    "the ceiling",
                    roofline.speed_of_light_percent)};
  }
  return {
      "Do less work per result: cheaper instructions (fast-math intrinsics, tensor cores for matrix work) or "
      "algorithmic savings",
      "At the compute ceiling only fewer or cheaper instructions make it faster",
      fmt::format("time falls in proportion to the instructions removed; the kernel already runs at {:.0f}% "
                  "of the ceiling",
                  roofline.speed_of_light_percent)};
}

// A kernel at its size-limited ceiling: as fast as this GPU moves (or computes)
// that much, measured, though below the peak.
Finding SizeLimitedHealthy(const ToolContext& context) {
  const RooflineAnalysis& roofline = context.roofline;
  bool memory = roofline.memory_floor_ns >= roofline.compute_floor_ns && roofline.achievable_dram;
  const AchievableCeiling& ceiling = memory ? *roofline.achievable_dram : *roofline.achievable_fp32;
  std::string work = memory ? FormatBytes(ceiling.work, QuantityStyle::kFixed) + " of DRAM traffic"
                            : FormatOperations(ceiling.work, QuantityStyle::kFixed) + " of FP32 work";
  Finding finding;
  finding.title = fmt::format("Healthy at its size-limited ceiling: {:.0f}% of what this GPU achieves for {}",
                              roofline.achievable_percent, work);
  finding.estimated_gain = std::max(0.0, 1.0 - roofline.achievable_percent / 100);
  finding.gain_method = "next-order gain: the gap to the measured ceiling at this size, 1 − achievable %";
  finding.evidence.push_back(MakeEvidence("duration / measured floor at this size (achievable %)",
                                          roofline.achievable_percent, "%",
                                          ">=", context.Threshold("min_achievable_percent")));
  finding.evidence.push_back(
      MakeEvidence(memory ? "measured DRAM floor for these bytes" : "measured FP32 floor",
                   ceiling.duration_ns / 1000, "µs", "", 0));
  finding.evidence.push_back(MakeEvidence(
      memory ? "achievable DRAM bandwidth at this size" : "achievable FP32 rate",
      memory ? ceiling.per_second / 1e12 : ceiling.per_second / 1e12, memory ? "TB/s" : "TFLOP/s", "", 0));
  finding.evidence.push_back(
      MakeEvidence("speed of light against the peaks", roofline.speed_of_light_percent, "%", "", 0));
  finding.root_cause = fmt::format(
      "The kernel's code is not what limits it: it is within {:.0f}% of the time this GPU needs for {} at "
      "all "
      "(measured by kopt calibrate: {}). Short transfers cannot reach the sustained peak (launch, ramp-up "
      "and "
      "drain take a fixed few microseconds), so hiding latency inside the kernel gains nothing.",
      100 - std::min(100.0, roofline.achievable_percent), work, ceiling.basis);
  finding.recommendations.push_back(
      {"Fuse this kernel with its producer or consumer, or batch several of these calls into one launch",
       "at its size the fixed cost of a launch and its ramp-up is the ceiling; only more work per launch, or "
       "fewer launches, moves it",
       "the fixed cost is paid once for the fused or batched work"});
  finding.confidence = 0.8;
  return finding;
}

// A compute-side verdict needs the busy unit to do the work: the FLOP rate of
// the dominant precision near its peak. An SM busy at high throughput with few
// FLOPs is busy with something else (MUFU, integer and address arithmetic,
// conversions), which the compute tools name.
bool BusyUnitDoesTheWork(const ToolContext& context) {
  const RooflineAnalysis& roofline = context.roofline;
  double memory = std::max(roofline.memory_throughput_percent.value_or(0), roofline.memory_percent_of_peak);
  if (memory >= context.Threshold("min_speed_of_light")) return true;  // memory-side ceiling
  return roofline.compute_percent_of_peak >= context.Threshold("min_useful_compute_percent");
}

std::optional<Finding> AnalyzeHealthy(const ToolContext& context) {
  const RooflineAnalysis& roofline = context.roofline;
  double minimum = context.Threshold("min_speed_of_light");
  if (roofline.speed_of_light_percent < minimum) {
    if (roofline.achievable_percent >= context.Threshold("min_achievable_percent") &&
        (roofline.achievable_dram || roofline.achievable_fp32))
      return SizeLimitedHealthy(context);
    return std::nullopt;
  }
  if (!BusyUnitDoesTheWork(context)) return std::nullopt;
  Finding finding;
  finding.title = fmt::format("Healthy: at {:.0f}% of its {} ceiling", roofline.speed_of_light_percent,
                              UnitOfCeiling(roofline));
  finding.estimated_gain = std::max(0.0, 1.0 - roofline.speed_of_light_percent / 100);
  finding.gain_method = "next-order gain: the gap to the ceiling, 1 − speed of light";
  finding.evidence.push_back(MakeEvidence("speed of light (max of SM and memory throughput)",
                                          roofline.speed_of_light_percent, "%", ">=", minimum));
  if (roofline.floor_ns > 0 && roofline.duration_ns > 0) {
    finding.evidence.push_back(
        MakeEvidence("duration / roofline floor", roofline.duration_ns / roofline.floor_ns, "x", "", 0));
  }
  finding.root_cause = fmt::format(
      "Nothing is wrong: the kernel is {} and runs at {:.0f}% of the ceiling that bounds it. The remaining "
      "gain "
      "is at most {:.0f}% of its time; look for bigger wins elsewhere in the program.",
      BottleneckClassName(roofline.bottleneck), roofline.speed_of_light_percent,
      finding.estimated_gain * 100);
  finding.recommendations.push_back(NextOrderRecommendation(roofline));
  finding.confidence = 0.9;
  return finding;
}

}  // namespace

ToolDefinition HealthyTool() {
  ToolDefinition healthy;
  healthy.id = "healthy";
  healthy.title = "Healthy kernel (near its speed-of-light ceiling)";
  healthy.family = ToolFamily::kHealth;
  healthy.side = ToolSide::kNone;
  healthy.relevant_classes = EveryBottleneckClass();
  healthy.required = {
      {InputSource::kNcuMetric, "gpu__time_duration.sum", false},
      {InputSource::kNcuMetric, "sm__throughput.avg.pct_of_peak_sustained_elapsed", false},
      {InputSource::kNcuMetric, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", false}};
  healthy.thresholds = {
      {"min_speed_of_light", 80, "%",
       "speed of light at or above which the kernel is near its ceiling (an H200 device-to-device copy tops "
       "out "
       "near 90% of the datasheet DRAM bandwidth)"},
      {"min_achievable_percent", 90, "%",
       "with a measured ceilings table (kopt calibrate): the share of the measured size-limited floor (the "
       "time "
       "a tuned copy or FFMA chain of the same size takes) at which a kernel below the peaks is at its "
       "ceiling "
       "(within 10%)"},
      {"min_useful_compute_percent", 50, "%",
       "compute-side verdict only: the dominant precision's FLOP rate against its peak from which the busy "
       "SM "
       "is doing the useful work; below it the throughput is MUFU, integer, conversion or address work"},
      {"max_other_gain", 0.10, "fraction",
       "the verdict is withdrawn when another tool estimates at least this gain (the high throughput is then "
       "wasted work, e.g. uncoalesced traffic)"}};
  healthy.trigger =
      "(speed of light >= min_speed_of_light, and a memory-side ceiling or FLOP rate >= "
      "min_useful_compute_percent) or measured achievable % >= min_achievable_percent; and no other finding "
      "with "
      "gain >= max_other_gain";
  healthy.analyze = AnalyzeHealthy;
  return healthy;
}

}  // namespace kopt
