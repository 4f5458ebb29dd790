// low_occupancy: theoretical occupancy below threshold, with its limiter
// (registers, shared memory, block size or blocks per SM) and the gain of
// lifting it (analysis/latency_model.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/latency_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

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
                   FormatBytes(per_block, QuantityStyle::kFixed), FormatBytes(budget, QuantityStyle::kFixed), FormatCount(next_blocks)),
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

}  // namespace

ToolDefinition LowOccupancyTool() {
  ToolDefinition tool;
  tool.id = "low_occupancy";
  tool.title = "Low theoretical occupancy (and its limiter)";
  tool.family = ToolFamily::kOccupancy;
  tool.side = ToolSide::kLatency;
  tool.relevant_classes = EveryBottleneckClass();
  tool.ncu_rules = {NcuRule::kTheoreticalOccupancy};
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
                     LatencyMinGainThreshold(),
                     ReachablePeakThreshold()};
  tool.trigger =
      "sm__maximum_warps_per_active_cycle_pct < max_theoretical_occupancy, and the gain of lifting the "
      "limiter (calibrated latency-hiding model × SM active fraction, capped by throughput headroom) >= "
      "min_gain";
  tool.finding_ids = {"low_occupancy_registers", "low_occupancy_shared_memory", "low_occupancy_block_size",
                      "low_occupancy_blocks"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"low_occupancy_block_size",
       {{ParameterRole::kBlockSize, MoveDirection::kIncrease}, {ParameterRole::kRowsPerBlock, MoveDirection::kIncrease}},
       "the warp limit leaves slots empty: a block size whose warps divide the SM's slots"},
      {"low_occupancy_blocks",
       {{ParameterRole::kBlockSize, MoveDirection::kIncrease}, {ParameterRole::kRowsPerBlock, MoveDirection::kIncrease}},
       "the blocks-per-SM limit binds: larger blocks fill the warp slots"},
      {"low_occupancy_registers",
       {{ParameterRole::kMinBlocksPerSm, MoveDirection::kIncrease}, {ParameterRole::kThreadTileX, MoveDirection::kDecrease}, {ParameterRole::kThreadTileY, MoveDirection::kDecrease}, {ParameterRole::kItemsPerThread, MoveDirection::kDecrease}, {ParameterRole::kUnroll, MoveDirection::kDecrease}, {ParameterRole::kMaxRegisters, MoveDirection::kDecrease}},
       "registers per thread limit residency: launch bounds, a smaller per-thread tile or a register cap"},
      {"low_occupancy_shared_memory",
       {{ParameterRole::kStages, MoveDirection::kDecrease}, {ParameterRole::kTileK, MoveDirection::kDecrease}, {ParameterRole::kTileX, MoveDirection::kDecrease}, {ParameterRole::kTileY, MoveDirection::kDecrease}, {ParameterRole::kPadding, MoveDirection::kDecrease}},
       "shared memory per block limits residency: smaller tiles or fewer stages"},
  };
  tool.analyze = AnalyzeLowOccupancy;
  return tool;
}

}  // namespace kopt
