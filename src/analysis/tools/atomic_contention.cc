// atomic_contention: contended global atomics: atomic requests concentrated on
// few L2 slices or addresses, and the stalls they cause; the fix is
// privatization (shared-memory or warp-level reduction) before the global atomic.
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

// Share of the L2 traffic from the SMs that is atomics and reductions.
double AtomicL2Share(const ToolContext& context, double atomic_requests, Finding& finding) {
  auto atom = context.Metric("lts__t_sectors_srcunit_tex_op_atom.sum");
  auto red = context.Metric("lts__t_sectors_srcunit_tex_op_red.sum");
  auto all = context.Metric("lts__t_sectors_srcunit_tex.sum");
  if ((atom || red) && all && *all > 0) {
    double sectors = atom.value_or(0) + red.value_or(0);
    finding.evidence.push_back(MakeEvidence(
        "L2 atomic+reduction sectors (lts__t_sectors_srcunit_tex_op_{atom,red})", sectors, "sector", "", 0));
    return Clamp01(sectors / *all);
  }
  double all_requests = atomic_requests;
  for (const char* op : {"ld", "st"}) {
    all_requests += MetricOr(context, fmt::format("l1tex__t_requests_pipe_lsu_mem_global_op_{}.sum", op), 0);
  }
  return SafeRatio(atomic_requests, all_requests);
}

// How concentrated the atomic work is on the busiest L2 slice: 1 − avg/max (1 when unknown).
double SliceConcentration(const ToolContext& context, double& max_over_avg, Finding& finding) {
  auto average = context.Metric("lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed");
  auto maximum = context.Metric("lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed");
  max_over_avg = 0;
  if (!average || !maximum || *maximum <= 0 || *average <= 0) return 1;
  max_over_avg = *maximum / *average;
  finding.evidence.push_back(MakeEvidence(
      "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed", *maximum, "%", "", 0));
  finding.evidence.push_back(MakeEvidence(
      "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed", *average, "%", "", 0));
  return Clamp01(1 - *average / *maximum);
}

std::vector<Recommendation> AtomicRecommendations(double gain) {
  std::string effect = fmt::format("up to {:.0f}% of kernel time", gain * 100);
  return {
      {"Reduce within the warp first (__reduce_add_sync, or __shfl_down_sync in a loop) and let one lane per "
       "warp issue the atomic",
       "32 atomics to the same address become one; the L2 slice that owns the address serializes them",
       effect},
      {"Privatize: accumulate per block in shared memory (atomicAdd on shared is handled in the SM) and "
       "merge "
       "the block's result with one global atomic per bin at the end",
       "Moves the contended updates off the single L2 slice", effect},
      {"Spread hot addresses: give each warp or block its own copy of the counters (padded to separate "
       "32-byte "
       "sectors) and sum the copies in a second pass",
       "Different sectors land on different L2 slices, which work in parallel",
       "parallel atomic throughput"}};
}

void AddAtomicCountEvidence(const ToolContext& context, double atomic_requests, Finding& finding) {
  finding.evidence.push_back(MakeEvidence("l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red}.sum",
                                          atomic_requests, "request", "", 0));
  for (const char* metric :
       {"smsp__inst_executed_op_global_red.sum", "smsp__inst_executed_op_global_atom.sum"}) {
    if (auto value = context.Metric(metric); value && *value > 0) {
      finding.evidence.push_back(MakeEvidence(metric, *value, "inst", "", 0));
    }
  }
  if (auto issue = context.Metric("smsp__issue_active.avg.per_cycle_active")) {
    finding.evidence.push_back(
        MakeEvidence("smsp__issue_active.avg.per_cycle_active", *issue, "inst/cycle", "", 0));
  }
  if (context.sass) {
    finding.evidence.push_back(MakeEvidence("SASS global atomics/reductions (ATOMG/RED, static)",
                                            StaticCount(context, {InstructionClass::kGlobalAtomic}), "inst",
                                            "", 0));
  }
}

std::optional<Finding> AnalyzeAtomics(const ToolContext& context) {
  double atomic_requests = MetricOr(context, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0) +
                           MetricOr(context, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 0);
  if (atomic_requests <= 0) return std::nullopt;
  Finding finding = NewFinding("", 0.7);
  double max_over_avg = 0;
  double concentration = SliceConcentration(context, max_over_avg, finding);
  double minimum_concentration = context.Threshold("min_slice_concentration");
  if (max_over_avg > 0 && max_over_avg < minimum_concentration) return std::nullopt;
  if (max_over_avg > 0) {
    finding.evidence.push_back(MakeEvidence("hottest L2 slice's atomic activity / average (max / avg)",
                                            max_over_avg, "x", ">=", minimum_concentration));
    finding.confidence = 0.8;
  }
  double atomic_share = AtomicL2Share(context, atomic_requests, finding);
  finding.evidence.push_back(
      MakeEvidence("atomic share of L2 traffic from the SMs", atomic_share * 100, "%", "", 0));
  AddAtomicCountEvidence(context, atomic_requests, finding);

  std::vector<GainTerm> terms;
  AddLatencyTerm(context, {"long_scoreboard", "drain", "lg_throttle", "membar"}, atomic_share * concentration,
                 "atomic share × concentration (1 − avg/max)", terms, finding);
  finding.estimated_gain = LargestTerm(terms, finding.gain_method);
  if (finding.estimated_gain < context.Threshold("min_gain")) return std::nullopt;

  finding.title = max_over_avg > 0
                      ? fmt::format(
                            "Contended global atomics: the hottest L2 slice does {:.0f}x the average atomic "
                            "work",
                            max_over_avg)
                      : "Contended global atomics";
  finding.root_cause = fmt::format(
      "Many threads update the same few addresses with global atomics or reductions ({:.0f} requests). Each "
      "address "
      "lives in one L2 slice, which applies the updates one after another, so the warps wait on memory (and "
      "at exit, "
      "for their reductions to drain) while the rest of the GPU idles.",
      atomic_requests);
  finding.recommendations = AtomicRecommendations(finding.estimated_gain);
  finding.locations = LocationsFor(context, {InstructionClass::kGlobalAtomic});
  return finding;
}

}  // namespace

ToolDefinition AtomicContentionTool() {
  ToolDefinition tool;
  tool.id = "atomic_contention";
  tool.title = "Contended global atomics";
  tool.family = ToolFamily::kMemory;
  tool.side = ToolSide::kMemory;
  tool.relevant_classes = UnlessComputeBound();
  tool.required = {
      {InputSource::kNcuMetric, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", false},
      {InputSource::kNcuMetric, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", false},
      {InputSource::kNcuMetric, "lts__t_sectors_srcunit_tex_op_atom.sum", true},
      {InputSource::kNcuMetric, "lts__t_sectors_srcunit_tex_op_red.sum", true},
      {InputSource::kNcuMetric, "lts__t_sectors_srcunit_tex.sum", true},
      {InputSource::kNcuMetric, "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed", true},
      {InputSource::kNcuMetric, "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed", true},
      {InputSource::kNcuMetric, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
       true},
      {InputSource::kNcuMetric, "smsp__issue_active.avg.per_cycle_active", true},
      {InputSource::kSass, "ATOMG/RED count", true}};
  tool.thresholds = {
      {"min_slice_concentration", 4, "x",
       "hottest L2 slice's atomic activity over the average at or above which the atomics are contended "
       "(evenly "
       "spread atomics give about 1x; ncu's WorkloadImbalance compares max and average the same way)"},
      MemoryMinGainThreshold()};
  tool.trigger =
      "global atomic or reduction requests > 0, hottest-slice atomic activity >= min_slice_concentration "
      "× average (when measured), and estimated gain >= min_gain";
  tool.subsumes = {"memory_latency_low_mlp"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"atomic_contention",
       {{ParameterRole::kItemsPerThread, MoveDirection::kIncrease}, {ParameterRole::kRowsPerBlock, MoveDirection::kIncrease}, {ParameterRole::kBlockSize, MoveDirection::kIncrease}},
       "fewer atomics on the same address: more work reduced locally before each atomic"},
  };
  tool.analyze = AnalyzeAtomics;
  return tool;
}

}  // namespace kopt
