// memory_latency_low_mlp: memory latency with too little in flight: long-scoreboard
// stalls on a kernel whose occupancy and narrow loads leave few bytes per warp
// outstanding; the fix is wider or more independent loads per thread.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

// Share of static global loads at most 32 bits wide, -1 without SASS.
double NarrowLoadShare(const ToolContext& context, int& load_count) {
  load_count = 0;
  if (!context.sass) return -1;
  int narrow = 0;
  for (const auto& [bits, count] : context.sass->global_load_widths) {
    load_count += count;
    if (bits <= 32) narrow += count;
  }
  return load_count > 0 ? static_cast<double>(narrow) / load_count : -1;
}

std::vector<Recommendation> LatencyRecommendations(double narrow_share, double gain) {
  std::string effect =
      fmt::format("up to {:.0f}% of kernel time, until the memory system becomes the limit", gain * 100);
  std::vector<Recommendation> recommendations{
      {"Give each thread several independent loads in flight: process 2–8 elements per thread and issue all "
       "their "
       "loads before using any (unroll the loop, hoist the loads); for pointer chasing, walk several "
       "independent "
       "chains per thread or warp",
       "Each warp now waits for one load at a time; independent loads overlap their latency (Little's law: "
       "bandwidth = bytes in flight / latency)",
       effect},
      {"Prefetch the next iteration's data while computing this one (software pipelining, or cp.async / TMA "
       "into "
       "shared memory with several stages)",
       "Hides the latency behind useful work instead of stalling on it", effect}};
  Recommendation vectors{"Load 128-bit vectors (float4/int4, aligned) instead of 32-bit scalars",
                         "Four times the bytes per load instruction in flight for the same number of warps",
                         "more bytes in flight per warp"};
  if (narrow_share >= 0.5) {
    recommendations.insert(recommendations.begin() + 1, vectors);
  } else {
    recommendations.push_back(vectors);
  }
  return recommendations;
}

void AddOccupancyAndLoadEvidence(const ToolContext& context, double minimum_occupancy, Finding& finding) {
  if (auto theoretical = context.Metric("sm__maximum_warps_per_active_cycle_pct")) {
    finding.evidence.push_back(
        MakeEvidence("sm__maximum_warps_per_active_cycle_pct", *theoretical, "%", ">=", minimum_occupancy));
  }
  if (auto achieved = context.Metric("sm__warps_active.avg.pct_of_peak_sustained_active")) {
    finding.evidence.push_back(
        MakeEvidence("sm__warps_active.avg.pct_of_peak_sustained_active", *achieved, "%", "", 0));
  }
  if (auto issue = context.Metric("smsp__issue_active.avg.per_cycle_active")) {
    finding.evidence.push_back(
        MakeEvidence("smsp__issue_active.avg.per_cycle_active", *issue, "inst/cycle", "", 0));
  }
  int load_count = 0;
  double narrow_share = NarrowLoadShare(context, load_count);
  if (narrow_share >= 0) {
    finding.evidence.push_back(MakeEvidence("SASS global loads (static LDG)", load_count, "inst", "", 0));
    finding.evidence.push_back(
        MakeEvidence("SASS global loads of at most 32 bits", narrow_share * 100, "%", "", 0));
  }
}

std::optional<Finding> AnalyzeMemoryLatency(const ToolContext& context) {
  double long_scoreboard = context.StallShare("long_scoreboard");
  double minimum_stall = context.Threshold("min_long_scoreboard_share");
  double memory_percent = MemoryThroughputPercent(context);
  double maximum_memory = context.Threshold("max_memory_throughput");
  double minimum_occupancy = context.Threshold("min_theoretical_occupancy");
  double theoretical = MetricOr(context, "sm__maximum_warps_per_active_cycle_pct", 100);
  if (long_scoreboard < minimum_stall || memory_percent >= maximum_memory ||
      theoretical < minimum_occupancy) {
    return std::nullopt;
  }
  double active = SmActiveFraction(context);
  Finding finding = NewFinding("", context.sass ? 0.75 : 0.65);
  finding.estimated_gain = long_scoreboard * (1 - memory_percent / 100) * active;
  finding.gain_method = fmt::format(
      "long_scoreboard stall share {:.1f}% × memory headroom (1 − memory throughput {:.1f}%) × SM active "
      "{:.1f}%",
      long_scoreboard * 100, memory_percent, active * 100);
  if (finding.estimated_gain < context.Threshold("min_gain")) return std::nullopt;

  finding.evidence.push_back(
      MakeEvidence("stall share: long_scoreboard", long_scoreboard * 100, "%", ">=", minimum_stall * 100));
  finding.evidence.push_back(MakeEvidence("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                                          memory_percent, "%", "<", maximum_memory));
  finding.evidence.push_back(MakeEvidence("SM active cycles / elapsed", active * 100, "%", "", 0));
  AddOccupancyAndLoadEvidence(context, minimum_occupancy, finding);
  int load_count = 0;
  double narrow_share = NarrowLoadShare(context, load_count);

  finding.title = fmt::format(
      "Memory latency not hidden: {:.0f}% of stalls wait on L1TEX loads at {:.0f}% memory "
      "throughput",
      long_scoreboard * 100, memory_percent);
  finding.root_cause = fmt::format(
      "Warps spend {:.0f}% of their stall cycles waiting for global or local loads (long scoreboard) while "
      "the memory "
      "system runs at only {:.0f}% of its peak: too few independent loads are in flight to cover the "
      "latency{}.",
      long_scoreboard * 100, memory_percent,
      narrow_share >= 0.5 ? ", and the loads are narrow (32-bit or less), so each one carries little data"
                          : "");
  finding.recommendations = LatencyRecommendations(narrow_share, finding.estimated_gain);
  // Warps stall on the instruction that consumes a load; the source page's locations move those
  // long-scoreboard samples to the load that feeds it (profile/dependency_stalls.h).
  finding.locations = LocationsFor(context, {InstructionClass::kGlobalLoad, InstructionClass::kLocalLoad});
  return finding;
}

}  // namespace

ToolDefinition MemoryLatencyLowMlpTool() {
  ToolDefinition tool;
  tool.id = "memory_latency_low_mlp";
  tool.title = "Memory latency with too little in flight";
  tool.family = ToolFamily::kMemory;
  tool.side = ToolSide::kMemory;
  tool.relevant_classes = UnlessComputeBound();
  tool.ncu_rules = {NcuRule::kCpiStallL1tex};
  tool.required = {
      {InputSource::kNcuMetric, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
       false},
      {InputSource::kNcuMetric, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", false},
      {InputSource::kNcuMetric, "sm__maximum_warps_per_active_cycle_pct", true},
      {InputSource::kNcuMetric, "sm__warps_active.avg.pct_of_peak_sustained_active", true},
      {InputSource::kNcuMetric, "sm__cycles_active.avg", true},
      {InputSource::kNcuMetric, "smsp__issue_active.avg.per_cycle_active", true},
      {InputSource::kSass, "LDG access widths", true},
      {InputSource::kSourcePage, "long-scoreboard samples per instruction", true}};
  tool.thresholds = {{"min_long_scoreboard_share", 0.30, "fraction",
                      "long-scoreboard share of stall cycles at or above which latency is the issue (ncu's "
                      "CPIStall rule: a reason "
                      "above 30% of the cycles between issues)"},
                     {"max_memory_throughput", 60, "%",
                      "memory throughput below which the memory system still has headroom (ncu's "
                      "SpeedOfLight: under 60% is a "
                      "latency issue, not a bandwidth limit)"},
                     {"min_theoretical_occupancy", 50, "%",
                      "theoretical occupancy at or above which enough warps are resident and the missing "
                      "overlap is within each "
                      "warp; below it the occupancy tools own the cause"},
                     MemoryMinGainThreshold()};
  tool.trigger =
      "long_scoreboard share >= min_long_scoreboard_share, memory throughput < max_memory_throughput, "
      "theoretical occupancy >= min_theoretical_occupancy, and estimated gain >= min_gain";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"memory_latency_low_mlp",
       {{ParameterRole::kVectorWidth, MoveDirection::kIncrease},
        {ParameterRole::kItemsPerThread, MoveDirection::kIncrease},
        {ParameterRole::kStages, MoveDirection::kIncrease},
        {ParameterRole::kUnroll, MoveDirection::kIncrease},
        {ParameterRole::kRowsPerBlock, MoveDirection::kIncrease}},
       "too few loads in flight to hide DRAM latency: wider vectors, more independent items, more stages"},
  };
  tool.analyze = AnalyzeMemoryLatency;
  return tool;
}

}  // namespace kopt
