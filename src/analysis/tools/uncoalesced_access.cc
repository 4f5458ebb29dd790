// What uncoalesced_loads.cc and uncoalesced_stores.cc share: the analysis of
// one kind of global access (see uncoalesced_access.h).
#include "analysis/tools/uncoalesced_access.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analysis/energy_analysis.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

std::string SectorsMetric(const GlobalAccessKind& kind) {
  return "l1tex__t_sectors_pipe_lsu_mem_global_op_" + kind.op + ".sum";
}
std::string RequestsMetric(const GlobalAccessKind& kind) {
  return "l1tex__t_requests_pipe_lsu_mem_global_op_" + kind.op + ".sum";
}
std::string BytesPerSectorMetric(const GlobalAccessKind& kind) {
  return "smsp__sass_average_data_bytes_per_sector_mem_global_op_" + kind.op + ".ratio";
}

// This op's share of the sectors the SMs send to L2 (1 when unknown).
double L2ShareOf(const ToolContext& context, const std::string& op_sectors_metric, Finding& finding) {
  auto op_sectors = context.Metric(op_sectors_metric);
  auto all_sectors = context.Metric("lts__t_sectors_srcunit_tex.sum");
  if (!op_sectors || !all_sectors || *all_sectors <= 0) return 1;
  double share = Clamp01(*op_sectors / *all_sectors);
  finding.evidence.push_back(
      MakeEvidence(op_sectors_metric + " / lts__t_sectors_srcunit_tex.sum", share * 100, "%", "", 0));
  return share;
}

void AddWidthEvidence(const ToolContext& context, const GlobalAccessKind& kind, double sectors_per_request,
                      Finding& finding) {
  if (!context.sass) return;
  const auto& widths = kind.op == "ld" ? context.sass->global_load_widths : context.sass->global_store_widths;
  int width = DominantWidth(widths);
  if (width <= 0) return;
  // A warp of 32 threads accessing consecutive `width`-bit words touches width/8 sectors.
  double ideal = width / 8.0;
  finding.evidence.push_back(
      MakeEvidence(fmt::format("SASS dominant {} width ({})", kind.noun, kind.op == "ld" ? "LDG" : "STG"),
                   width, "bit", "", 0));
  finding.evidence.push_back(
      MakeEvidence(fmt::format("sectors per {} request vs ideal for {}-bit accesses", kind.noun, width),
                   sectors_per_request, "sector/request", ">", ideal));
}

std::vector<Recommendation> UncoalescedRecommendations(const GlobalAccessKind& kind, double bytes_per_sector,
                                                       double excess_share) {
  std::string effect = fmt::format("up to {:.0f}% fewer {} sectors ({:.1f} of 32 bytes per sector used now)",
                                   excess_share * 100, kind.noun, bytes_per_sector);
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {fmt::format("Index the {} so that threadIdx.x moves along the contiguous dimension (a[row * ld + "
                   "threadIdx.x], "
                   "not a[threadIdx.x * ld + col]); turn arrays of structs into structs of arrays",
                   kind.noun == "load" ? "loads" : "stores"),
       "Consecutive threads of a warp then touch consecutive 4-byte words, so a warp's access fills whole "
       "32-byte "
       "sectors",
       effect});
  recommendations.push_back(
      {std::string("When the strided order is inherent (a transpose, a column walk), stage a tile in shared "
                   "memory (padded by one word per row against bank conflicts): ") +
           (kind.noun == "load"
                ? "load the tile from global memory with coalesced loads, then read it in the "
                  "strided order from shared memory"
                : "write the results into the tile in the strided order, then copy the tile to "
                  "global memory with coalesced stores"),
       "Shared memory serves any access order at full speed; only the global side must be contiguous",
       effect});
  recommendations.push_back(
      {kind.noun == "load"
           ? "For gathers through an index array, sort or bucket the indices so neighbouring threads read "
             "neighbouring "
             "addresses; load whole structs with 128-bit vector loads (float4) instead of single fields"
           : "Write whole 32-byte sectors: partial-sector writes make L2 read the rest of the sector from "
             "DRAM; "
             "accumulate in registers or shared memory and write contiguous 128-bit vectors (float4)",
       "Fewer, fuller sectors per request", "fewer sectors and DRAM transactions per useful byte"});
  return recommendations;
}

// DRAM bytes up to this multiple of the bytes the global accesses use count as
// no more than they use (sector rounding at the edges, the odd evicted line).
constexpr double kDramBytesUsedSlack = 1.1;

// The bound when the excess sectors stop at L2: DRAM moves no more than the
// global loads and stores use (sectors × used bytes per sector, both kinds),
// so a coalescing fix leaves the DRAM bytes as they are and the kernel cannot
// run faster than the measured floor for them (a dequantization
// whose two half-sector 16-byte stores per thread L2 merges before DRAM, at
// 95% of the floor). nullopt without a measured floor or the metrics.
std::optional<double> DramFloorBound(const ToolContext& context, Finding& finding) {
  const RooflineAnalysis& roofline = context.roofline;
  if (!roofline.achievable_dram || roofline.duration_ns <= 0) return std::nullopt;
  double dram_bytes = 0;
  for (const MemoryTraffic& level : roofline.memory)
    if (level.level == "dram") dram_bytes = level.bytes;
  double used = 0;
  for (const char* op : {"ld", "st"}) {
    auto sectors = context.Metric(std::string("l1tex__t_sectors_pipe_lsu_mem_global_op_") + op + ".sum");
    auto bytes = context.Metric(std::string("smsp__sass_average_data_bytes_per_sector_mem_global_op_") + op +
                                ".ratio");
    if (!sectors || !bytes) return std::nullopt;
    used += *sectors * *bytes;
  }
  if (dram_bytes <= 0 || dram_bytes > kDramBytesUsedSlack * used) return std::nullopt;
  double bound = Clamp01(1 - roofline.achievable_dram->duration_ns / roofline.duration_ns);
  finding.evidence.push_back(MakeEvidence("DRAM bytes / bytes the global accesses use", dram_bytes / used,
                                          "x", "<=", kDramBytesUsedSlack));
  finding.gain_method += fmt::format(
      "; bounded by 1 − measured DRAM floor / duration = {:.1f}%: DRAM moves no more than the accesses use "
      "(the excess sectors stop at L2), so coalescing leaves the DRAM bytes and their floor ({})",
      Percent(bound), roofline.achievable_dram->basis);
  return bound;
}

std::optional<Finding> AnalyzeUncoalesced(const ToolContext& context, const GlobalAccessKind& kind) {
  double sectors = MetricOr(context, SectorsMetric(kind), 0);
  double requests = MetricOr(context, RequestsMetric(kind), 0);
  double bytes_per_sector = MetricOr(context, BytesPerSectorMetric(kind), kSectorBytes);
  if (sectors <= 0 || requests <= 0 || bytes_per_sector <= 0) return std::nullopt;
  double excess_share = Clamp01(1 - bytes_per_sector / kSectorBytes);
  double minimum_excess = context.Threshold("min_excess_sector_share");
  if (excess_share < minimum_excess) return std::nullopt;

  Finding finding = NewFinding("", context.sass ? 0.85 : 0.75);
  finding.evidence.push_back(MakeEvidence(BytesPerSectorMetric(kind), bytes_per_sector, "byte/sector", "<",
                                          kSectorBytes * (1 - minimum_excess)));
  finding.evidence.push_back(MakeEvidence("excess sector share: 1 − bytes per sector / 32",
                                          excess_share * 100, "%", ">=", minimum_excess * 100));
  finding.evidence.push_back(MakeEvidence(SectorsMetric(kind), sectors, "sector", "", 0));
  finding.evidence.push_back(MakeEvidence(RequestsMetric(kind), requests, "request", "", 0));
  AddWidthEvidence(context, kind, sectors / requests, finding);

  std::vector<GainTerm> terms;
  double l2_share = L2ShareOf(context, kind.l2_sectors_metric, finding);
  AddTrafficTerms(context, excess_share * l2_share, fmt::format("excess {} share of L2 traffic", kind.noun),
                  terms, finding);
  double local_sectors =
      kind.op == "ld" ? MetricOr(context, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0) : 0;
  AddLatencyTerm(context, kind.stall_reasons, excess_share * SafeRatio(sectors, sectors + local_sectors),
                 fmt::format("excess share of {} sectors", kind.noun), terms, finding);
  finding.estimated_gain = LargestTerm(terms, finding.gain_method);
  if (auto bound = DramFloorBound(context, finding))
    finding.estimated_gain = std::min(finding.estimated_gain, *bound);
  if (finding.estimated_gain < context.Threshold("min_gain")) return std::nullopt;

  finding.title =
      fmt::format("Uncoalesced global {}s: {:.1f} of 32 bytes used per sector, {:.1f} sectors per request",
                  kind.noun, bytes_per_sector, sectors / requests);
  finding.root_cause = fmt::format(
      "The threads of a warp {} addresses that are spread out, so each request moves {:.1f} 32-byte sectors "
      "of "
      "which only {:.1f} bytes each are used: {:.0f}% of the {} traffic is bytes nobody asked for, and it "
      "costs "
      "bandwidth in L2 and DRAM and latency for every warp waiting on it.",
      kind.noun == "load" ? "read" : "write", sectors / requests, bytes_per_sector, excess_share * 100,
      kind.noun);
  finding.recommendations = UncoalescedRecommendations(kind, bytes_per_sector, excess_share);
  finding.locations = LocationsFor(context, {kind.instruction_class}, [](const SourcePageRow& row) {
    return row.l2_sectors_global_excessive.value_or(0);
  });
  return finding;
}

}  // namespace

ToolDefinition UncoalescedAccessTool(const GlobalAccessKind& kind) {
  ToolDefinition tool;
  tool.family = ToolFamily::kMemory;
  tool.side = ToolSide::kMemory;
  tool.relevant_classes = UnlessComputeBound();
  tool.ncu_rules = {NcuRule::kUncoalescedGlobalAccess, NcuRule::kMemoryCacheAccessPattern};
  tool.required = {
      {InputSource::kNcuMetric, SectorsMetric(kind), false},
      {InputSource::kNcuMetric, RequestsMetric(kind), false},
      {InputSource::kNcuMetric, BytesPerSectorMetric(kind), false},
      {InputSource::kNcuMetric, kind.l2_sectors_metric, true},
      {InputSource::kNcuMetric, "lts__t_sectors_srcunit_tex.sum", true},
      {InputSource::kNcuMetric, "lts__throughput.avg.pct_of_peak_sustained_elapsed", true},
      {InputSource::kNcuMetric, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", true},
      {InputSource::kNcuMetric, "sm__cycles_active.avg", true},
      {InputSource::kNcuMetric, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", true},
      {InputSource::kNcuMetric, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", true},
      {InputSource::kNcuMetric, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", true},
      {InputSource::kNcuMetric, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", true},
      {InputSource::kSass, "LDG/STG access widths", true},
      {InputSource::kSourcePage, "L2 Theoretical Sectors Global Excessive per instruction", true}};
  tool.thresholds = {{"min_excess_sector_share", 0.25, "fraction",
                      "share of each fetched 32-byte sector left unused (1 − bytes per sector / 32) at or "
                      "above which the access "
                      "is uncoalesced; ncu's MemoryCacheAccessPattern fires at any waste, this leaves room "
                      "for misaligned starts "
                      "and ragged edges of otherwise contiguous accesses"},
                     MemoryMinGainThreshold()};
  tool.trigger =
      "1 − bytes per sector / 32 >= min_excess_sector_share and estimated gain >= min_gain; with a measured "
      "ceilings table, when DRAM moves at most 1.1x the bytes the global accesses use, the gain is at most "
      "1 − measured DRAM floor / duration";
  tool.subsumes = {"memory_latency_low_mlp"};
  tool.gain_bound = GainBound::kReducesTraffic;
  tool.analyze = [&kind](const ToolContext& context) { return AnalyzeUncoalesced(context, kind); };
  tool.energy_change = [&kind](const ToolContext& context, const EnergyCounts& before, std::string&) {
    return CoalescedAccess(before, context.launch, kind.op);  // the excess sectors removed
  };
  return tool;
}

}  // namespace kopt
