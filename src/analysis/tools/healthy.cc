// healthy: the healthy-kernel verdict: a kernel near its speed-of-light
// ceiling gets no invented problem; the report says so and names the
// next-order gain.
#include <fmt/format.h>

#include "analysis/tool_support.h"

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

std::optional<Finding> AnalyzeHealthy(const ToolContext& context) {
  const RooflineAnalysis& roofline = context.roofline;
  double minimum = context.Threshold("min_speed_of_light");
  if (roofline.speed_of_light_percent < minimum) return std::nullopt;
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
  healthy.required = {
      {InputSource::kNcuMetric, "gpu__time_duration.sum", false},
      {InputSource::kNcuMetric, "sm__throughput.avg.pct_of_peak_sustained_elapsed", false},
      {InputSource::kNcuMetric, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", false}};
  healthy.thresholds = {
      {"min_speed_of_light", 80, "%",
       "speed of light at or above which the kernel is near its ceiling (an H200 device-to-device copy tops "
       "out "
       "near 90% of the datasheet DRAM bandwidth)"},
      {"max_other_gain", 0.10, "fraction",
       "the verdict is withdrawn when another tool estimates at least this gain (the high throughput is then "
       "wasted work, e.g. uncoalesced traffic)"}};
  healthy.trigger = "speed of light >= min_speed_of_light, and no other finding with gain >= max_other_gain";
  healthy.analyze = AnalyzeHealthy;
  return healthy;
}

}  // namespace kopt
