// local_memory_spills: local memory traffic (register spills and per-thread arrays):
// the local share of L1 sectors, the ptxas spill and stack-frame facts, and the
// traffic and latency the fix removes. A stack frame without local traffic never fires.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/energy_analysis.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

void AddPtxasEvidence(const ToolContext& context, Finding& finding) {
  if (!context.ptxas) return;
  finding.evidence.push_back(MakeEvidence(
      "ptxas stack frame", static_cast<double>(context.ptxas->stack_frame_bytes), "byte", "", 0));
  finding.evidence.push_back(MakeEvidence(
      "ptxas spill stores", static_cast<double>(context.ptxas->spill_store_bytes), "byte", "", 0));
  finding.evidence.push_back(
      MakeEvidence("ptxas spill loads", static_cast<double>(context.ptxas->spill_load_bytes), "byte", "", 0));
  finding.evidence.push_back(MakeEvidence("ptxas registers per thread",
                                          static_cast<double>(context.ptxas->registers), "register", "", 0));
}

std::string LocalMemoryCause(const ToolContext& context) {
  if (context.ptxas && context.ptxas->HasSpills()) {
    return fmt::format(
        "ptxas spills registers to local memory ({} bytes stored, {} loaded per thread at {} registers)",
        context.ptxas->spill_store_bytes, context.ptxas->spill_load_bytes, context.ptxas->registers);
  }
  if (context.ptxas && context.ptxas->stack_frame_bytes > 0) {
    return fmt::format(
        "a {}-byte per-thread stack frame without spills: an array or struct the compiler cannot keep "
        "in registers (indexed with a run-time value), placed in local memory",
        context.ptxas->stack_frame_bytes);
  }
  return "per-thread data that lives in local memory (register spills or a dynamically indexed array)";
}

std::vector<Recommendation> LocalMemoryRecommendations(const ToolContext& context, double removable) {
  std::string effect =
      fmt::format("removes the local traffic: up to {:.0f}% of kernel time", removable * 100);
  bool spills = context.ptxas && context.ptxas->HasSpills();
  Recommendation array{
      "Index per-thread arrays only with compile-time constants: fully unroll the loops over them "
      "(#pragma unroll with constant trip counts), or replace a[i] with a switch or select chain",
      "Only constant-indexed arrays are promoted to registers; a run-time index forces the whole "
      "array into local memory",
      effect};
  Recommendation registers{
      "Lower register pressure: fewer live values (recompute cheap ones), smaller tiles per "
      "thread, or loosen __launch_bounds__/-maxrregcount so ptxas may use more registers",
      "Spills happen when live values exceed the register budget", effect};
  Recommendation shared{
      "If the per-thread data must be indexed dynamically, keep it in shared memory "
      "(smem[index * blockDim.x + threadIdx.x]) instead of local memory",
      "Shared memory has no L1-miss path to L2/DRAM and conflict-free with this layout",
      "local loads become shared loads at tens of cycles"};
  if (spills) return {registers, array, shared};
  return {array, shared, registers};
}

// Local-memory evidence beyond the sector counts: instructions, SASS and ptxas facts.
void AddLocalMemoryEvidence(const ToolContext& context, double hit_rate, Finding& finding) {
  if (context.Metric("l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct")) {
    finding.evidence.push_back(
        MakeEvidence("l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct", hit_rate, "%", "", 0));
  }
  for (const char* metric :
       {"smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum"}) {
    if (auto value = context.Metric(metric))
      finding.evidence.push_back(MakeEvidence(metric, *value, "inst", "", 0));
  }
  if (context.sass) {
    finding.evidence.push_back(MakeEvidence(
        "SASS LDL/STL instructions (static)",
        StaticCount(context, {InstructionClass::kLocalLoad, InstructionClass::kLocalStore}), "inst", "", 0));
  }
  AddPtxasEvidence(context, finding);
}

std::optional<Finding> AnalyzeLocalMemory(const ToolContext& context) {
  double load_sectors = MetricOr(context, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0);
  double store_sectors = MetricOr(context, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 0);
  double global_sectors = MetricOr(context, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0) +
                          MetricOr(context, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0);
  double local_share = SafeRatio(load_sectors + store_sectors, load_sectors + store_sectors + global_sectors);
  double minimum = context.Threshold("min_local_sector_share");
  // A stack frame alone (e.g. the never-taken slow path of double sin()) moves no local sectors: no finding.
  if (load_sectors + store_sectors <= 0 || local_share < minimum) return std::nullopt;

  Finding finding = NewFinding("", context.ptxas || context.sass ? 0.9 : 0.8);
  finding.evidence.push_back(
      MakeEvidence("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", load_sectors, "sector", "", 0));
  finding.evidence.push_back(
      MakeEvidence("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", store_sectors, "sector", "", 0));
  finding.evidence.push_back(
      MakeEvidence("local share of L1 global+local sectors", local_share * 100, "%", ">=", minimum * 100));
  double hit_rate = MetricOr(context, "l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct", 0);
  AddLocalMemoryEvidence(context, hit_rate, finding);

  // Local loads that miss L1 and every local store (write-through) reach L2.
  double local_l2_sectors = load_sectors * (1 - hit_rate / 100) + store_sectors;
  double l2_share =
      context.Metric("lts__t_sectors_srcunit_tex.sum")
          ? Clamp01(SafeRatio(local_l2_sectors, MetricOr(context, "lts__t_sectors_srcunit_tex.sum", 0)))
          : 1;
  std::vector<GainTerm> terms;
  AddTrafficTerms(context, l2_share, "local share of L2 traffic", terms, finding);
  double global_load_sectors = MetricOr(context, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0);
  AddLatencyTerm(context, {"long_scoreboard", "lg_throttle"},
                 SafeRatio(load_sectors, load_sectors + global_load_sectors), "local share of load sectors",
                 terms, finding);
  finding.estimated_gain = LargestTerm(terms, finding.gain_method);
  if (finding.estimated_gain < context.Threshold("min_gain")) return std::nullopt;

  std::string cause = LocalMemoryCause(context);
  finding.title =
      fmt::format("Local memory traffic: {:.0f}% of L1 sectors are local ({})", local_share * 100,
                  context.ptxas && context.ptxas->HasSpills() ? "register spills" : "per-thread data");
  finding.root_cause = fmt::format(
      "The kernel keeps {} — every access goes through L1 (local-load hit rate {:.0f}%) and, on a miss, to "
      "L2 and "
      "DRAM, and warps wait hundreds of cycles for values that would be in registers.",
      cause, hit_rate);
  finding.recommendations = LocalMemoryRecommendations(context, finding.estimated_gain);
  finding.locations = LocationsFor(context, {InstructionClass::kLocalLoad, InstructionClass::kLocalStore});
  return finding;
}

}  // namespace

ToolDefinition LocalMemorySpillsTool() {
  ToolDefinition tool;
  tool.id = "local_memory_spills";
  tool.title = "Local memory: register spills and per-thread arrays";
  tool.family = ToolFamily::kMemory;
  tool.side = ToolSide::kMemory;
  tool.relevant_classes = EveryBottleneckClass();
  tool.ncu_rules = {NcuRule::kLocalMemoryUsage};
  tool.required = {{InputSource::kNcuMetric, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", false},
                   {InputSource::kNcuMetric, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", false},
                   {InputSource::kNcuMetric, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", true},
                   {InputSource::kNcuMetric, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", true},
                   {InputSource::kNcuMetric, "l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct", true},
                   {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_local_ld.sum", true},
                   {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_local_st.sum", true},
                   {InputSource::kNcuMetric, "lts__t_sectors_srcunit_tex.sum", true},
                   {InputSource::kSass, "LDL/STL count", true},
                   {InputSource::kPtxas, "spill bytes and stack frame", true}};
  tool.thresholds = {
      {"min_local_sector_share", 0.05, "fraction",
       "local sectors / (local + global) L1 sectors at or above which local memory is reported; a "
       "stack frame without local traffic never fires"},
      MemoryMinGainThreshold()};
  tool.trigger =
      "local sectors > 0, local share of L1 sectors >= min_local_sector_share, and estimated gain >= "
      "min_gain";
  tool.subsumes = {"memory_latency_low_mlp"};
  tool.gain_bound = GainBound::kReducesTraffic;
  tool.tuning_moves = {
      {"local_memory_spills",
       {{ParameterRole::kThreadTileX, MoveDirection::kDecrease},
        {ParameterRole::kThreadTileY, MoveDirection::kDecrease},
        {ParameterRole::kUnroll, MoveDirection::kDecrease},
        {ParameterRole::kItemsPerThread, MoveDirection::kDecrease},
        {ParameterRole::kMinBlocksPerSm, MoveDirection::kDecrease},
        {ParameterRole::kMaxRegisters, MoveDirection::kIncrease}},
       "registers spill to local memory: a smaller per-thread footprint, or a looser register cap"},
  };
  tool.analyze = AnalyzeLocalMemory;
  tool.energy_change = [](const ToolContext& context, const EnergyCounts& before, std::string&) {
    return NoLocalMemory(before, context.launch);  // the local traffic removed
  };
  return tool;
}

}  // namespace kopt
