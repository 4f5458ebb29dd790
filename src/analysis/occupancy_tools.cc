// The occupancy and launch-configuration tool family: low theoretical
// occupancy and its limiter, the gap between theoretical and achieved
// occupancy, the tail effect (too few blocks, a partial last wave), launch
// overhead, load imbalance across SMs, and barrier stalls.
//
// Every fix here hides latency or fills idle SMs; none removes work. So each
// gain is bounded twice: by the idle issue slots the fix can fill (the issue
// rate ncu measured), and by the headroom left before the busiest unit reaches
// the share of its peak that is reachable in practice. Estimates are upper
// bounds and, like ncu's, not additive across findings.
//
// Rationale of the models (see ../shared/reference/ncu_sass_gpus.md §1, §3):
//  - More warps: GPA's PARALLEL_LAT estimator, issue = 1 − (1 − p)^warps, but
//    calibrated so that it reproduces the measured issue rate u: more warps by
//    a factor r give u' = 1 − (1 − u)^r. (Uncalibrated, GPA predicts gains on
//    a kernel whose issue slots are already full.)
//  - SM balance: ncu's WorkloadImbalance weights (1 − avg/max) by
//    avg active/elapsed, which shrinks the estimate exactly when the imbalance
//    is worst; the time that goes away when the SMs are balanced is
//    (max − avg)/elapsed.
//  - Tail: ncu's 1/(1 + full waves) claims 50% for 1.94 waves; the waste of
//    uniform blocks is (⌈w⌉ − w)/⌈w⌉, and the measured SM spread bounds it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/tool_families.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

double Percent(double fraction) {
  return fraction * 100;
}

// ---------------------------------------------------------------------------
// Shared inputs and thresholds.

ThresholdDefinition MinGainThreshold() {
  return {"min_gain", 0.05, "fraction",
          "smallest estimated gain reported: below 5% of kernel time a launch-configuration change is within "
          "run-to-run timing noise (ncu's WorkloadImbalance reports from 5%)"};
}

ThresholdDefinition ReachablePeakThreshold() {
  return {"reachable_peak_percent", 90, "%",
          "share of a unit's peak reachable in practice; a latency fix cannot push the busiest unit past it "
          "(an H200 device-to-device copy tops out near 90% of the datasheet DRAM bandwidth)"};
}

// Issue-slot use per active cycle of a scheduler, 0..1, and where it came from.
struct IssueRate {
  double value = 0;
  std::string metric;
};

std::optional<IssueRate> IssueActive(const ToolContext& context) {
  if (auto percent = context.Metric("smsp__issue_active.avg.pct_of_peak_sustained_active")) {
    return IssueRate{Clamp01(*percent / 100), "smsp__issue_active.avg.pct_of_peak_sustained_active"};
  }
  if (auto rate = context.Metric("smsp__issue_active.avg.per_cycle_active")) {
    return IssueRate{Clamp01(*rate), "smsp__issue_active.avg.per_cycle_active"};
  }
  auto elapsed_percent = context.Metric("sm__issue_active.avg.pct_of_peak_sustained_elapsed");
  auto active = context.Metric("sm__cycles_active.avg");
  auto elapsed = context.Metric("sm__cycles_elapsed.avg");
  if (elapsed_percent && active && elapsed && *active > 0) {
    return IssueRate{Clamp01(*elapsed_percent / 100 * *elapsed / *active),
                     "sm__issue_active.avg.pct_of_peak_sustained_elapsed × sm__cycles_elapsed.avg / "
                     "sm__cycles_active.avg"};
  }
  return std::nullopt;
}

// Active cycles of the SMs (avg, max over SMs) against the elapsed cycles.
struct SmActivity {
  double average = 0, maximum = 0, minimum = 0, elapsed = 0;
  bool has_minimum = false;
  double Balance() const { return maximum > 0 ? average / maximum : 1; }
  // Time that goes away when every SM is as busy as the average one.
  double IdleFraction() const { return elapsed > 0 ? Clamp01((maximum - average) / elapsed) : 0; }
  double AverageActiveFraction() const { return elapsed > 0 ? Clamp01(average / elapsed) : 1; }
};

std::optional<SmActivity> MeasuredSmActivity(const ToolContext& context) {
  auto average = context.Metric("sm__cycles_active.avg");
  auto maximum = context.Metric("sm__cycles_active.max");
  auto elapsed = context.Metric("sm__cycles_elapsed.max");
  if (!elapsed) elapsed = context.Metric("sm__cycles_elapsed.avg");
  if (!average || !maximum || !elapsed || *elapsed <= 0 || *maximum <= 0) return std::nullopt;
  SmActivity activity{*average, *maximum, 0, *elapsed, false};
  if (auto minimum = context.Metric("sm__cycles_active.min")) {
    activity.minimum = *minimum;
    activity.has_minimum = true;
  }
  return activity;
}

void AddSmActivityEvidence(const SmActivity& activity, std::vector<Evidence>& evidence) {
  evidence.push_back(MakeEvidence("sm__cycles_active.avg", activity.average, "cycle", "", 0));
  evidence.push_back(MakeEvidence("sm__cycles_active.max", activity.maximum, "cycle", "", 0));
  if (activity.has_minimum) {
    evidence.push_back(MakeEvidence("sm__cycles_active.min", activity.minimum, "cycle", "", 0));
  }
  evidence.push_back(MakeEvidence("sm__cycles_elapsed", activity.elapsed, "cycle", "", 0));
}

// The fraction of time a latency fix may remove before the busiest unit
// reaches what it can reach.
double ThroughputHeadroom(const ToolContext& context) {
  double reachable = context.Threshold("reachable_peak_percent");
  return reachable > 0 ? Clamp01(1 - context.roofline.speed_of_light_percent / reachable) : 0;
}

Evidence HeadroomEvidence(const ToolContext& context) {
  return MakeEvidence("speed of light (busiest unit, % of peak)", context.roofline.speed_of_light_percent,
                      "%", "<", context.Threshold("reachable_peak_percent"));
}

// Calibrated latency-hiding model: the measured issue rate u with r times the
// resident warps becomes u' = 1 − (1 − u)^r; the time that goes away is 1 − u/u'.
double MoreWarpsGain(double issue_active, double warp_ratio) {
  if (warp_ratio <= 1 || issue_active >= 1) return 0;
  if (issue_active <= 1e-9) return 1 - 1 / warp_ratio;  // the model's limit as u → 0
  double issue_after = 1 - std::pow(1 - issue_active, warp_ratio);
  return issue_after > 0 ? Clamp01(1 - issue_active / issue_after) : 0;
}

struct LatencyHidingEstimate {
  double gain = 0;
  std::string method;
  std::vector<Evidence> evidence;
  double confidence = 0.5;
};

// The gain of running `warp_ratio` times the resident warps.
LatencyHidingEstimate EstimateMoreWarps(const ToolContext& context, double warp_ratio) {
  LatencyHidingEstimate estimate;
  double model = 1 - 1 / std::max(warp_ratio, 1.0);
  if (auto issue = IssueActive(context)) {
    model = MoreWarpsGain(issue->value, warp_ratio);
    double issue_after = 1 - std::pow(1 - issue->value, std::max(warp_ratio, 1.0));
    estimate.method = fmt::format(
        "latency-hiding model (GPA's PARALLEL_LAT, calibrated to the measured issue rate): u = {:.1f}% of "
        "issue slots used per active cycle ({}); with {:.2f}x the resident warps u' = 1 − (1 − u)^{:.2f} = "
        "{:.1f}%; model gain 1 − u/u' = {:.1f}%",
        Percent(issue->value), issue->metric, warp_ratio, warp_ratio, Percent(issue_after), Percent(model));
    estimate.evidence.push_back(MakeEvidence(issue->metric, Percent(issue->value), "%", "", 0));
    estimate.confidence = 0.8;
  } else {
    estimate.method = fmt::format(
        "no issue-rate metric: upper bound 1 − 1/{:.2f} = {:.1f}% (ncu's occupancy estimate, as if nothing "
        "hid the latency now)",
        warp_ratio, Percent(model));
  }
  double active = 1;
  if (auto activity = MeasuredSmActivity(context)) {
    active = activity->AverageActiveFraction();
    estimate.evidence.push_back(MakeEvidence(
        "SM active fraction (sm__cycles_active.avg / sm__cycles_elapsed)", Percent(active), "%", "", 0));
  }
  double headroom = ThroughputHeadroom(context);
  estimate.evidence.push_back(HeadroomEvidence(context));
  estimate.gain = std::min(model * active, headroom);
  estimate.method += fmt::format(
      "; × SM active fraction {:.1f}% (warps only speed up the cycles an SM is active); capped at the "
      "throughput headroom 1 − speed of light / reachable peak = {:.1f}%",
      Percent(active), Percent(headroom));
  return estimate;
}

std::string FormatCount(double value) {
  return fmt::format("{:.0f}", value);
}

// ---------------------------------------------------------------------------
// low_occupancy: theoretical occupancy below threshold, with its limiter.

struct OccupancyLimit {
  const char* resource;    // "registers"
  const char* metric;      // launch__occupancy_limit_registers
  const char* finding_id;  // low_occupancy_registers
  bool block_shape;        // the limit follows from the block size, not from a per-thread/per-block resource
};

constexpr OccupancyLimit kOccupancyLimits[] = {
    {"registers", "launch__occupancy_limit_registers", "low_occupancy_registers", false},
    {"shared memory", "launch__occupancy_limit_shared_mem", "low_occupancy_shared_memory", false},
    {"warps per SM", "launch__occupancy_limit_warps", "low_occupancy_block_size", true},
    {"blocks per SM", "launch__occupancy_limit_blocks", "low_occupancy_blocks", true},
};

struct OccupancyLimiter {
  const OccupancyLimit* limit = nullptr;    // the first of the smallest limits, in kOccupancyLimits order
  std::vector<const OccupancyLimit*> tied;  // every limit equal to the smallest
  double blocks = 0;                        // blocks per SM the limiter allows
  double warps_per_block = 0;
  double max_warps = 0;     // warps an SM can hold
  double target_warps = 0;  // resident warps once the limiter is lifted (the next limit binds)
  double WarpRatio() const { return target_warps / std::max(blocks * warps_per_block, 1.0); }
};

double MaxWarpsPerSm(const ToolContext& context, double theoretical_percent, double theoretical_warps) {
  if (auto warps = context.Metric("device__attribute_max_warps_per_multiprocessor")) return *warps;
  if (context.gpu && context.gpu->max_warps_per_sm > 0) return context.gpu->max_warps_per_sm;
  return theoretical_percent > 0 ? theoretical_warps * 100 / theoretical_percent : theoretical_warps;
}

bool IsTied(const OccupancyLimiter& limiter, const OccupancyLimit* limit) {
  return std::find(limiter.tied.begin(), limiter.tied.end(), limit) != limiter.tied.end();
}

// The warps resident once the limiter is lifted: the smallest of the other
// limits (for a block-shape limiter, of the register and shared-memory ones).
double TargetWarps(const ToolContext& context, const OccupancyLimiter& limiter) {
  double target = limiter.max_warps;
  for (const OccupancyLimit& limit : kOccupancyLimits) {
    if (IsTied(limiter, &limit) || (limiter.limit->block_shape && limit.block_shape)) continue;
    if (auto blocks = context.Metric(limit.metric))
      target = std::min(target, *blocks * limiter.warps_per_block);
  }
  return target;
}

std::optional<OccupancyLimiter> FindLimiter(const ToolContext& context, double theoretical_percent) {
  OccupancyLimiter limiter;
  for (const OccupancyLimit& limit : kOccupancyLimits) {
    auto blocks = context.Metric(limit.metric);
    if (!blocks) return std::nullopt;
    if (!limiter.limit || *blocks < limiter.blocks) {
      limiter.limit = &limit;
      limiter.blocks = *blocks;
      limiter.tied = {&limit};
    } else if (*blocks == limiter.blocks) {
      limiter.tied.push_back(&limit);
    }
  }
  double threads = static_cast<double>(context.launch.block.Count());
  if (auto size = context.Metric("launch__block_size")) threads = *size;
  limiter.warps_per_block = std::ceil(threads / 32);
  limiter.max_warps = MaxWarpsPerSm(context, theoretical_percent, limiter.blocks * limiter.warps_per_block);
  limiter.target_warps = TargetWarps(context, limiter);
  return limiter;
}

std::string TiedResources(const OccupancyLimiter& limiter) {
  std::string text;
  for (size_t i = 0; i < limiter.tied.size(); ++i) {
    text += (i == 0                         ? ""
             : i + 1 == limiter.tied.size() ? " and "
                                            : ", ") +
            std::string(limiter.tied[i]->resource);
  }
  return text;
}

void AddLimitEvidence(const ToolContext& context, std::vector<Evidence>& evidence) {
  for (const OccupancyLimit& limit : kOccupancyLimits) {
    if (auto blocks = context.Metric(limit.metric))
      evidence.push_back(MakeEvidence(limit.metric, *blocks, "block", "", 0));
  }
  for (const char* name :
       {"launch__registers_per_thread", "launch__shared_mem_per_block", "launch__block_size"}) {
    if (auto value = context.Metric(name))
      evidence.push_back(MakeEvidence(name, *value, context.launch.MetricUnit(name), "", 0));
  }
}

// Registers per thread that let `blocks` blocks of `threads` threads share an
// SM (allocation granularity: 8 registers per thread, 256 per warp).
double RegisterCapFor(double registers_per_sm, double blocks, double threads) {
  double cap = std::floor(registers_per_sm / (blocks * threads) / 8) * 8;
  return std::min(cap, 255.0);
}

std::vector<Recommendation> RegisterRecommendations(const ToolContext& context,
                                                    const OccupancyLimiter& limiter) {
  double threads = limiter.warps_per_block * 32;
  double registers =
      context.Metric("launch__registers_per_thread").value_or(context.ptxas ? context.ptxas->registers : 0);
  double per_sm = context.Metric("device__attribute_max_registers_per_multiprocessor")
                      .value_or(context.gpu ? context.gpu->registers_per_sm : 65536);
  double next_blocks = std::min(limiter.blocks * 2, limiter.target_warps / limiter.warps_per_block);
  double cap = RegisterCapFor(per_sm, next_blocks, threads);
  double next_percent = 100 * next_blocks * limiter.warps_per_block / limiter.max_warps;
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {fmt::format("Add __launch_bounds__({}, {}) to the kernel (or compile with -maxrregcount={}) so that "
                   "ptxas keeps each thread at {} registers or fewer instead of {}",
                   FormatCount(threads), FormatCount(next_blocks), FormatCount(cap), FormatCount(cap),
                   FormatCount(registers)),
       fmt::format("{} registers × {} threads leave room for only {} block(s) per SM", FormatCount(registers),
                   FormatCount(threads), FormatCount(limiter.blocks)),
       fmt::format("theoretical occupancy rises to {:.0f}%, more warps hide the stalls; check the ptxas "
                   "report (-Xptxas -v) for spills, which would trade the gain for local-memory traffic",
                   next_percent)});
  recommendations.push_back(
      {"Shrink per-thread state: fewer values live at once (a smaller per-thread tile, less unrolling, fewer "
       "independent accumulators), recompute cheap values instead of keeping them, move per-thread arrays to "
       "shared memory",
       "registers are allocated for the peak number of live values anywhere in the kernel",
       "fewer registers per thread without spills; occupancy follows the register count"});
  recommendations.push_back(
      {"If the registers buy instruction-level parallelism, keep them and interleave more independent work "
       "per warp instead (several independent dependency chains per thread)",
       "idle issue slots can be filled by more warps or by more independent instructions per warp",
       "the same latency hiding without raising occupancy"});
  return recommendations;
}

std::vector<Recommendation> SharedMemoryRecommendations(const ToolContext& context,
                                                        const OccupancyLimiter& limiter) {
  double threads = limiter.warps_per_block * 32;
  double per_block = context.Metric("launch__shared_mem_per_block").value_or(0);
  double per_sm = context.Metric("device__attribute_max_shared_memory_per_multiprocessor")
                      .value_or(context.gpu ? context.gpu->shared_memory_per_sm_bytes : 0);
  double reserved = context.Metric("launch__shared_mem_per_block_driver").value_or(0);
  double next_blocks = std::min(limiter.blocks * 2, limiter.target_warps / limiter.warps_per_block);
  double budget = per_sm > 0 ? per_sm / next_blocks - reserved : 0;
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {fmt::format("Cut shared memory per block from {} to at most {} (smaller tiles, fewer pipeline stages, "
                   "or only the hot part of a table in shared memory) so that {} blocks fit per SM",
                   FormatBytes(per_block, QuantityStyle::kFixed), FormatBytes(budget, QuantityStyle::kFixed),
                   FormatCount(next_blocks)),
       fmt::format("{} of shared memory per block leaves room for only {} block(s) per SM",
                   FormatBytes(per_block, QuantityStyle::kFixed), FormatCount(limiter.blocks)),
       fmt::format("theoretical occupancy rises to {:.0f}%; more warps keep more memory requests in flight",
                   100 * next_blocks * limiter.warps_per_block / limiter.max_warps)});
  recommendations.push_back(
      {"Leave read-only data that every block copies (lookup tables, coefficients) in global memory and read "
       "it through the L1 cache (const __restrict__ / __ldg), or in __constant__ memory when a warp reads "
       "one value",
       "staging data every block reads anyway costs shared memory that limits residency",
       "the shared-memory limit disappears; occupancy is then set by registers or warps"});
  recommendations.push_back(
      {fmt::format("Give the same shared memory to more threads: larger blocks (e.g. 1024 instead of {} "
                   "threads) sharing one staged copy",
                   FormatCount(threads)),
       "resident warps per SM grow with block size when shared memory per block stays the same",
       "more warps per SM at the same shared-memory footprint"});
  return recommendations;
}

std::vector<Recommendation> BlockShapeRecommendations(const ToolContext& context,
                                                      const OccupancyLimiter& limiter) {
  double threads = limiter.warps_per_block * 32;
  double max_blocks = context.Metric("device__attribute_max_blocks_per_multiprocessor").value_or(32);
  if (limiter.limit->finding_id == std::string("low_occupancy_blocks")) {
    double minimum_threads = std::ceil(limiter.max_warps / max_blocks) * 32;
    return {
        {fmt::format(
             "Use blocks of at least {} threads (now {}), e.g. 128 or 256, each thread doing the same work",
             FormatCount(minimum_threads), FormatCount(threads)),
         fmt::format("an SM holds at most {} blocks, so {}-thread blocks fill only {} of its {} warp slots",
                     FormatCount(max_blocks), FormatCount(threads),
                     FormatCount(max_blocks * limiter.warps_per_block), FormatCount(limiter.max_warps)),
         "every warp slot of the SM can be filled"}};
  }
  return {{fmt::format("Use a block size whose warp count divides the SM's {} warp slots (128, 256 or 512 "
                       "threads; now {})",
                       FormatCount(limiter.max_warps), FormatCount(threads)),
           fmt::format("{} blocks of {} warps leave {} of {} warp slots empty", FormatCount(limiter.blocks),
                       FormatCount(limiter.warps_per_block),
                       FormatCount(limiter.max_warps - limiter.blocks * limiter.warps_per_block),
                       FormatCount(limiter.max_warps)),
           "every warp slot of the SM can be filled"}};
}

std::vector<Recommendation> OccupancyRecommendations(const ToolContext& context,
                                                     const OccupancyLimiter& limiter) {
  std::string id = limiter.limit->finding_id;
  if (id == "low_occupancy_registers") return RegisterRecommendations(context, limiter);
  if (id == "low_occupancy_shared_memory") return SharedMemoryRecommendations(context, limiter);
  return BlockShapeRecommendations(context, limiter);
}

std::optional<Finding> AnalyzeLowOccupancy(const ToolContext& context) {
  double theoretical = *context.Metric("sm__maximum_warps_per_active_cycle_pct");
  double maximum = context.Threshold("max_theoretical_occupancy");
  if (theoretical >= maximum) return std::nullopt;
  auto limiter = FindLimiter(context, theoretical);
  if (!limiter) return std::nullopt;
  LatencyHidingEstimate estimate = EstimateMoreWarps(context, limiter->WarpRatio());
  if (estimate.gain < context.Threshold("min_gain")) return std::nullopt;
  double target_percent = 100 * limiter->target_warps / limiter->max_warps;
  Finding finding;
  finding.tool = limiter->limit->finding_id;
  finding.title =
      fmt::format("Low occupancy: {:.1f}% theoretical, limited by {}", theoretical, TiedResources(*limiter));
  finding.estimated_gain = estimate.gain;
  finding.gain_method = fmt::format(
                            "lifting the {} limit raises resident warps from {} to {} per SM ({:.0f}%, where "
                            "the next limit binds); ",
                            limiter->limit->resource, FormatCount(limiter->blocks * limiter->warps_per_block),
                            FormatCount(limiter->target_warps), target_percent) +
                        estimate.method;
  finding.evidence.push_back(
      MakeEvidence("sm__maximum_warps_per_active_cycle_pct", theoretical, "%", "<", maximum));
  if (auto achieved = context.Metric("sm__warps_active.avg.pct_of_peak_sustained_active")) {
    finding.evidence.push_back(
        MakeEvidence("sm__warps_active.avg.pct_of_peak_sustained_active", *achieved, "%", "", 0));
  }
  AddLimitEvidence(context, finding.evidence);
  finding.evidence.insert(finding.evidence.end(), estimate.evidence.begin(), estimate.evidence.end());
  finding.root_cause = fmt::format(
      "Each SM can hold only {} block(s) of {} warps ({} of {} warp slots) because of {}. With so few warps, "
      "when they stall nothing else is ready to issue: the issue slots sit idle while they wait.",
      FormatCount(limiter->blocks), FormatCount(limiter->warps_per_block),
      FormatCount(limiter->blocks * limiter->warps_per_block), FormatCount(limiter->max_warps),
      TiedResources(*limiter));
  finding.recommendations = OccupancyRecommendations(context, *limiter);
  finding.confidence = estimate.confidence;
  return finding;
}

// ---------------------------------------------------------------------------
// achieved_occupancy_gap: theoretical − achieved occupancy.

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

// ---------------------------------------------------------------------------
// Wave model shared by tail_effect and sm_load_imbalance.

// How evenly uniform blocks would spread over the SMs: the expected
// avg/max of SM active time. Below one wave it is the block count per SM that
// quantizes (q = grid/SMs, balance q/⌈q⌉; below one block per SM, grid/SMs),
// from one wave on the wave count (w/⌈w⌉).
struct WaveModel {
  double grid = 0, sm_count = 0, waves = 0;
  bool below_one_wave = false;
  double Units() const { return below_one_wave ? grid / sm_count : waves; }
  double Balance() const {
    double units = Units();
    return units > 0 ? units / std::ceil(units - 1e-9) : 1;
  }
  double Waste() const { return 1 - Balance(); }
};

std::optional<WaveModel> PredictWaves(const ToolContext& context) {
  auto waves = context.Metric("launch__waves_per_multiprocessor");
  auto grid = context.Metric("launch__grid_size");
  auto sm_count = context.Metric("launch__sm_count");
  if (!sm_count) sm_count = context.Metric("device__attribute_multiprocessor_count");
  if (!waves || !grid || !sm_count || *sm_count <= 0 || *grid <= 0) return std::nullopt;
  WaveModel model{*grid, *sm_count, *waves, *waves < 1};
  return model;
}

void AddWaveEvidence(const WaveModel& model, std::vector<Evidence>& evidence) {
  evidence.push_back(MakeEvidence("launch__grid_size", model.grid, "block", "", 0));
  evidence.push_back(MakeEvidence("launch__sm_count", model.sm_count, "SM", "", 0));
  evidence.push_back(MakeEvidence("launch__waves_per_multiprocessor", model.waves, "wave", "", 0));
  evidence.push_back(MakeEvidence("SM balance expected from the waves (uniform blocks)",
                                  Percent(model.Balance()), "%", "", 0));
}

// ---------------------------------------------------------------------------
// tail_effect: too few blocks for the SMs, or a partial last wave.

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

// ---------------------------------------------------------------------------
// sm_load_imbalance: SMs busy for very different times, beyond what the wave
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

// ---------------------------------------------------------------------------
// barrier_stalls: warps waiting at __syncthreads (and memory barriers).

// Source lines with the most barrier stall samples. ncu charges the wait to
// the instruction after the barrier; when that follows a BAR, the BAR is named.
std::vector<Location> BarrierLocations(const SourcePage& page, size_t count) {
  double total = page.TotalStallSamples();
  std::vector<std::pair<double, size_t>> ranked;
  for (size_t i = 0; i < page.rows.size(); ++i) {
    const auto& samples = page.rows[i].stall_reason_samples;
    double barrier = 0;
    for (const char* reason : {"barrier", "membar"}) {
      if (auto it = samples.find(reason); it != samples.end()) barrier += it->second;
    }
    if (barrier > 0) ranked.emplace_back(barrier, i);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Location> locations;
  for (size_t k = 0; k < std::min(count, ranked.size()); ++k) {
    size_t index = ranked[k].second;
    bool after_barrier = index > 0 && page.rows[index - 1].source.find("BAR") != std::string::npos;
    const SourcePageRow& row = page.rows[after_barrier ? index - 1 : index];
    Location location;
    location.sass_offset = row.offset;
    location.sass_text = row.source;
    location.stall_share = total > 0 ? ranked[k].first / total : 0;
    locations.push_back(location);
  }
  return locations;
}

std::vector<Recommendation> BarrierRecommendations(double block_threads) {
  return {
      {"Balance the work between barriers: split the long part of a phase across all warps of the block "
       "instead of giving it to one or a few warps",
       "at __syncthreads every warp waits for the slowest one",
       "the phase takes the average warp's time instead of the slowest warp's"},
      {"Synchronize less: exchange data within a warp with __shfl_sync / __syncwarp or cooperative-groups "
       "tiles where it never leaves the warp, and merge consecutive __syncthreads phases",
       "a block-wide barrier is needed only when data crosses warps",
       "fewer barriers, each waited on by fewer warps"},
      {fmt::format("Use smaller blocks (now {} threads) so that more blocks share an SM: while one block "
                   "waits at its barrier, the others issue",
                   FormatCount(block_threads)),
       "a barrier stalls one block; other resident blocks are not affected",
       "barrier waits overlap with other blocks' work"},
      {"Overlap independent work with the wait: split arrive/wait barriers (cuda::barrier arrive()/wait(), "
       "Hopper mbarrier) with double buffering; avoid __threadfence() where not needed (membar stalls)",
       "work that does not depend on the exchanged data need not wait",
       "part of the wait is hidden behind useful work"}};
}

std::optional<Finding> AnalyzeBarrierStalls(const ToolContext& context) {
  double barrier = context.StallShare("barrier");
  double membar = context.StallShare("membar");
  double share = barrier + membar;
  double minimum_share = context.Threshold("min_stall_share");
  if (share < minimum_share) return std::nullopt;
  auto issue = IssueActive(context);
  double maximum_issue = context.Threshold("max_issue_active");
  if (issue && issue->value >= maximum_issue) return std::nullopt;
  double idle = issue ? 1 - issue->value : 1;
  double headroom = ThroughputHeadroom(context);
  double gain = std::min({share, idle, headroom});
  if (gain < context.Threshold("min_gain")) return std::nullopt;
  Finding finding;
  finding.title =
      fmt::format("Barrier stalls: {:.0f}% of warp stall cycles wait at a barrier", Percent(share));
  finding.estimated_gain = gain;
  finding.gain_method = fmt::format(
      "GPA's SEQ_LAT bound with ncu's cap: the barrier share of stall cycles {:.1f}%, capped by the idle "
      "issue slots 1 − u = {:.1f}% (a stall costs time only when no other warp issues) and by the throughput "
      "headroom {:.1f}%",
      Percent(share), Percent(idle), Percent(headroom));
  finding.evidence.push_back(
      MakeEvidence("stall share: barrier", Percent(barrier), "%", ">=", Percent(minimum_share)));
  if (membar > 0)
    finding.evidence.push_back(MakeEvidence("stall share: membar", Percent(membar), "%", "", 0));
  if (issue) {
    finding.evidence.push_back(
        MakeEvidence(issue->metric, Percent(issue->value), "%", "<", Percent(maximum_issue)));
  }
  finding.evidence.push_back(HeadroomEvidence(context));
  double threads = static_cast<double>(context.launch.block.Count());
  finding.evidence.push_back(MakeEvidence("threads per block", threads, "thread", "", 0));
  if (context.sass) {
    auto bars = context.sass->opcode_counts.find("BAR");
    double count = bars == context.sass->opcode_counts.end() ? 0 : bars->second;
    finding.evidence.push_back(MakeEvidence("BAR instructions in the SASS (static)", count, "inst", "", 0));
  }
  if (context.source_page) finding.locations = BarrierLocations(*context.source_page, 5);
  finding.root_cause = fmt::format(
      "Warps reach __syncthreads at different times and wait there for the slowest warp of their block of {} "
      "threads: the work between barriers is uneven, or the barriers are too frequent for the work they "
      "separate.",
      FormatCount(threads));
  finding.recommendations = BarrierRecommendations(threads);
  finding.confidence = context.source_page ? 0.85 : 0.75;
  return finding;
}

// ---------------------------------------------------------------------------
// launch_overhead: many short launches of one kernel.

struct LaunchStatistics {
  int count = 0;
  double mean_ns = 0, minimum_ns = 0, maximum_ns = 0;
};

LaunchStatistics SameKernelLaunches(const ToolContext& context) {
  LaunchStatistics statistics;
  std::string function_name = context.launch.FunctionName();
  double total = 0;
  for (const KernelLaunch* launch : *context.launches) {
    if (!launch || launch->FunctionName() != function_name) continue;
    auto duration = launch->Metric("gpu__time_duration.sum");
    if (!duration) continue;
    statistics.minimum_ns = statistics.count == 0 ? *duration : std::min(statistics.minimum_ns, *duration);
    statistics.maximum_ns = std::max(statistics.maximum_ns, *duration);
    total += *duration;
    ++statistics.count;
  }
  if (statistics.count > 0) statistics.mean_ns = total / statistics.count;
  return statistics;
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
  if (!context.launches) return std::nullopt;
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
  finding.evidence.push_back(MakeEvidence("launches of this kernel in the profile", statistics.count,
                                          "launch", ">=", minimum_launches));
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

// ---------------------------------------------------------------------------
// The tool definitions.

RequiredInput NcuMetric(std::string name, bool optional = false) {
  return {InputSource::kNcuMetric, std::move(name), optional};
}

// The inputs of EstimateMoreWarps: the issue rate (any of three forms) and the SM activity.
std::vector<RequiredInput> LatencyModelInputs() {
  std::vector<RequiredInput> inputs;
  for (const char* name :
       {"smsp__issue_active.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.per_cycle_active",
        "sm__issue_active.avg.pct_of_peak_sustained_elapsed", "sm__cycles_active.avg",
        "sm__cycles_active.max", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.max"}) {
    inputs.push_back(NcuMetric(name, true));
  }
  return inputs;
}

ToolDefinition LowOccupancyTool() {
  ToolDefinition tool;
  tool.id = "low_occupancy";
  tool.title = "Low theoretical occupancy (and its limiter)";
  tool.family = "occupancy";
  tool.required = {NcuMetric("sm__maximum_warps_per_active_cycle_pct"),
                   NcuMetric("launch__occupancy_limit_registers"),
                   NcuMetric("launch__occupancy_limit_shared_mem"),
                   NcuMetric("launch__occupancy_limit_warps"), NcuMetric("launch__occupancy_limit_blocks")};
  for (const char* name : {"sm__warps_active.avg.pct_of_peak_sustained_active",
                           "launch__registers_per_thread", "launch__shared_mem_per_block",
                           "launch__block_size", "device__attribute_max_warps_per_multiprocessor",
                           "device__attribute_max_registers_per_multiprocessor",
                           "device__attribute_max_shared_memory_per_multiprocessor"}) {
    tool.required.push_back(NcuMetric(name, true));
  }
  for (RequiredInput& input : LatencyModelInputs()) tool.required.push_back(input);
  tool.required.push_back({InputSource::kPtxas, "registers per thread", true});
  tool.thresholds = {{"max_theoretical_occupancy", 80, "%",
                      "theoretical occupancy below which the limiter is examined (ncu's TheoreticalOccupancy "
                      "rule: below 80% of the SM's warps)"},
                     MinGainThreshold(),
                     ReachablePeakThreshold()};
  tool.trigger =
      "sm__maximum_warps_per_active_cycle_pct < max_theoretical_occupancy, and the gain of lifting the "
      "limiter (calibrated latency-hiding model × SM active fraction, capped by throughput headroom) >= "
      "min_gain";
  tool.finding_ids = {"low_occupancy_registers", "low_occupancy_shared_memory", "low_occupancy_block_size",
                      "low_occupancy_blocks"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeLowOccupancy;
  return tool;
}

ToolDefinition AchievedOccupancyGapTool() {
  ToolDefinition tool;
  tool.id = "achieved_occupancy_gap";
  tool.title = "Achieved occupancy far below theoretical";
  tool.family = "occupancy";
  tool.required = {NcuMetric("sm__maximum_warps_per_active_cycle_pct"),
                   NcuMetric("sm__warps_active.avg.pct_of_peak_sustained_active"),
                   NcuMetric("smsp__cycles_active.avg", true)};
  for (RequiredInput& input : LatencyModelInputs()) tool.required.push_back(input);
  tool.thresholds = {{"min_gap_points", 10, "%",
                      "theoretical − achieved occupancy, in points, from which the gap is examined (ncu's "
                      "AchievedOccupancy rule)"},
                     MinGainThreshold(),
                     ReachablePeakThreshold()};
  tool.trigger =
      "theoretical − achieved occupancy >= min_gap_points, and the gain of reaching the theoretical "
      "occupancy (calibrated latency-hiding model) >= min_gain";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeAchievedOccupancyGap;
  return tool;
}

ToolDefinition TailEffectTool() {
  ToolDefinition tool;
  tool.id = "tail_effect";
  tool.title = "Too few blocks or a partial last wave (tail effect)";
  tool.family = "occupancy";
  tool.required = {NcuMetric("launch__waves_per_multiprocessor"),
                   NcuMetric("launch__grid_size"),
                   NcuMetric("launch__sm_count"),
                   NcuMetric("sm__cycles_active.avg", true),
                   NcuMetric("sm__cycles_active.max", true),
                   NcuMetric("sm__cycles_elapsed.max", true)};
  tool.thresholds = {MinGainThreshold()};
  tool.trigger =
      "idle SM time of uniform blocks, 1 − w/⌈w⌉ (w: waves, or blocks per SM below one wave), bounded by the "
      "measured (max − avg) SM active cycles / elapsed, >= min_gain";
  tool.subsumes = {"achieved_occupancy_gap"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeTailEffect;
  return tool;
}

ToolDefinition LaunchOverheadTool() {
  ToolDefinition tool;
  tool.id = "launch_overhead";
  tool.title = "Launch overhead (many short launches)";
  tool.family = "launch";
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
                     MinGainThreshold()};
  tool.trigger =
      "launches of this kernel >= min_launches and mean gpu__time_duration.sum <= max_mean_duration_us, and "
      "the overhead share 1 − SM-busy time / (duration + launch_cost_us) >= min_gain";
  tool.subsumes = {"tail_effect", "achieved_occupancy_gap", "sm_load_imbalance"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeLaunchOverhead;
  return tool;
}

ToolDefinition SmLoadImbalanceTool() {
  ToolDefinition tool;
  tool.id = "sm_load_imbalance";
  tool.title = "Load imbalance across SMs";
  tool.family = "occupancy";
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
                     MinGainThreshold()};
  tool.trigger =
      "(max − avg) SM active cycles / elapsed >= min_idle_fraction, and the part the wave quantization does "
      "not explain, (1 − measured avg/max ÷ expected avg/max) × max/elapsed, >= min_gain";
  tool.subsumes = {"achieved_occupancy_gap", "tail_effect"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeSmLoadImbalance;
  return tool;
}

ToolDefinition BarrierStallsTool() {
  ToolDefinition tool;
  tool.id = "barrier_stalls";
  tool.title = "Barrier stalls (__syncthreads with uneven work)";
  tool.family = "occupancy";
  tool.required = {NcuMetric("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"),
                   NcuMetric("smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", true),
                   {InputSource::kSass, "BAR instruction count", true},
                   {InputSource::kSourcePage, "barrier stall samples per SASS offset", true}};
  for (RequiredInput& input : LatencyModelInputs()) tool.required.push_back(input);
  tool.thresholds = {{"min_stall_share", 0.3, "fraction",
                      "share of stall cycles at barriers (barrier + membar) from which they are examined "
                      "(ncu's CPIStall rule: a reason above 30% of the cycles between issues)"},
                     {"max_issue_active", 0.8, "fraction",
                      "issue-slot use below which stalls can cost time (ncu's CPIStall rule runs below 80%)"},
                     MinGainThreshold(),
                     ReachablePeakThreshold()};
  tool.trigger =
      "barrier + membar share of stalls >= min_stall_share and issue active < max_issue_active; gain "
      "min(share, 1 − issue active, headroom) >= min_gain";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeBarrierStalls;
  return tool;
}

}  // namespace

std::vector<ToolDefinition> OccupancyTools() {
  return {LowOccupancyTool(),   AchievedOccupancyGapTool(), TailEffectTool(),
          LaunchOverheadTool(), SmLoadImbalanceTool(),      BarrierStallsTool()};
}

}  // namespace kopt
