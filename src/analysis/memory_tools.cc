// The memory tool family: how the kernel uses the memory system, beyond how
// much it moves. Uncoalesced global loads and stores, shared-memory bank
// conflicts, local memory (spills and per-thread arrays), memory latency with
// too little in flight, and contended global atomics.
//
// Gains are comparable across tools: each is a fraction of kernel time, the
// largest of
//  - a traffic term: the share of a memory level's traffic the fix removes ×
//    how busy that level is (its throughput against peak), per level (L2,
//    DRAM, the shared-memory pipe), as ncu's MemoryCacheAccessPattern and
//    SharedMemoryConflicts rules weigh theirs;
//  - a latency term: the share of warp stall cycles the removed work causes ×
//    the share of elapsed time the SMs had warps (stall shares only describe
//    active cycles), as ncu's CPIStall rule weighs stalls.
// Every number comes from the launch's metrics, the SASS listing, the ptxas
// report or ncu's source page, and is listed as evidence.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/tool_families.h"

namespace kopt {
namespace {

constexpr double kSectorBytes = 32;
constexpr size_t kMaxLocations = 3;

// ---------------------------------------------------------------- helpers

double MetricOr(const ToolContext& context, std::string_view name, double fallback) {
  return context.Metric(name).value_or(fallback);
}

// The share of elapsed time the SMs had resident warps; stall shares only
// describe those cycles. 1 when the cycle counters are missing.
double SmActiveFraction(const ToolContext& context) {
  auto active = context.Metric("sm__cycles_active.avg");
  auto elapsed = context.Metric("sm__cycles_elapsed.avg");
  if (!active || !elapsed || *elapsed <= 0) return 1;
  return Clamp01(*active / *elapsed);
}

// ncu's memory speed-of-light percentage, or stage 1's busiest level.
double MemoryThroughputPercent(const ToolContext& context) {
  return MetricOr(context, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                  context.roofline.memory_percent_of_peak);
}

std::string InstructionText(const SassInstruction& instruction) {
  std::string text = instruction.predicate.empty() ? "" : instruction.predicate + " ";
  text += instruction.opcode + instruction.modifiers;
  if (!instruction.operands.empty()) text += " " + instruction.operands;
  return text;
}

bool HasClass(std::initializer_list<InstructionClass> classes, InstructionClass instruction_class) {
  return std::find(classes.begin(), classes.end(), instruction_class) != classes.end();
}

// Excess-traffic column of a source-page row for ranking (0 when absent).
using RowWeight = std::function<double(const SourcePageRow&)>;

// Locations from ncu's source page: the instructions of `classes`, ranked by
// `weight` (excess sectors or wavefronts) and then by stall samples.
std::vector<Location> SourcePageLocations(const SourcePage& page,
                                          std::initializer_list<InstructionClass> classes,
                                          const RowWeight& weight) {
  double total_samples = page.TotalStallSamples();
  std::vector<std::pair<const SourcePageRow*, InstructionClass>> rows;
  for (const SourcePageRow& row : page.rows) {
    Result<SassInstruction> parsed = ParseSassInstruction(row.source);
    bool any_class = classes.size() == 0;
    if (parsed.ok() && (any_class || HasClass(classes, parsed.value().instruction_class))) {
      rows.emplace_back(&row, parsed.value().instruction_class);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [&weight](const auto& a, const auto& b) {
    double weight_a = weight ? weight(*a.first) : 0, weight_b = weight ? weight(*b.first) : 0;
    if (weight_a != weight_b) return weight_a > weight_b;
    return a.first->stall_samples.value_or(0) > b.first->stall_samples.value_or(0);
  });
  std::vector<Location> locations;
  for (const auto& [row, instruction_class] : rows) {
    if (locations.size() == kMaxLocations) break;
    Location location;
    location.sass_offset = row->offset;
    location.sass_text = row->source;
    location.stall_share = SafeRatio(row->stall_samples.value_or(0), total_samples);
    locations.push_back(std::move(location));
  }
  return locations;
}

// Locations from the SASS listing (no stall shares): the first instructions of `classes`.
std::vector<Location> SassLocations(const SassFunction& function,
                                    std::initializer_list<InstructionClass> classes) {
  std::vector<Location> locations;
  for (const SassInstruction& instruction : function.instructions) {
    if (locations.size() == kMaxLocations) break;
    if (instruction.predicate == "@!PT" || !HasClass(classes, instruction.instruction_class)) continue;
    Location location;
    location.sass_offset = instruction.offset;
    location.sass_text = InstructionText(instruction);
    locations.push_back(std::move(location));
  }
  return locations;
}

std::vector<Location> LocationsFor(const ToolContext& context,
                                   std::initializer_list<InstructionClass> classes,
                                   const RowWeight& weight = nullptr) {
  if (context.source_page) {
    std::vector<Location> locations = SourcePageLocations(*context.source_page, classes, weight);
    if (!locations.empty()) return locations;
  }
  if (context.sass) return SassLocations(*context.sass, classes);
  return {};
}

int StaticCount(const ToolContext& context, std::initializer_list<InstructionClass> classes) {
  if (!context.sass) return 0;
  int count = 0;
  for (InstructionClass instruction_class : classes) count += context.sass->Count(instruction_class);
  return count;
}

// The most common access width (bits) in a width map, 0 when empty.
int DominantWidth(const std::map<int, int>& widths) {
  int width = 0, most = 0;
  for (const auto& [bits, count] : widths) {
    if (count > most) width = bits, most = count;
  }
  return width;
}

// One term of a gain estimate: its name, its inputs in words, and its value.
struct GainTerm {
  std::string description;
  double value = 0;
};

// The largest term, with every term written into `method`.
double LargestTerm(const std::vector<GainTerm>& terms, std::string& method) {
  double best = 0;
  std::string text;
  for (const GainTerm& term : terms) {
    best = std::max(best, term.value);
    text += fmt::format("{}{} = {:.1f}%", text.empty() ? "" : "; ", term.description, term.value * 100);
  }
  method = "largest of: " + text;
  return best;
}

ThresholdDefinition MinimumGainThreshold() {
  return {"min_estimated_gain", 0.02, "fraction",
          "smallest estimated gain worth reporting (the orchestrator's lower bound of \"minor\")"};
}

Finding NewFinding(std::string title, double confidence) {
  Finding finding;
  finding.title = std::move(title);
  finding.confidence = confidence;
  return finding;
}

}  // namespace

namespace {

// ------------------------------------------------- uncoalesced global access

// What differs between the load and the store tool.
struct GlobalAccessKind {
  std::string op;    // "ld" or "st"
  std::string noun;  // "load" or "store"
  InstructionClass instruction_class;
  std::string l2_sectors_metric;           // this op's share of the L2 traffic from the SMs
  std::vector<std::string> stall_reasons;  // stalls the excess sectors lengthen
};

const GlobalAccessKind& LoadKind() {
  static const GlobalAccessKind kind{"ld",
                                     "load",
                                     InstructionClass::kGlobalLoad,
                                     "lts__t_sectors_srcunit_tex_op_read.sum",
                                     {"long_scoreboard", "lg_throttle"}};
  return kind;
}

const GlobalAccessKind& StoreKind() {
  static const GlobalAccessKind kind{"st",
                                     "store",
                                     InstructionClass::kGlobalStore,
                                     "lts__t_sectors_srcunit_tex_op_write.sum",
                                     {"drain", "lg_throttle"}};
  return kind;
}

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

// Traffic terms: the removed share of L2 and DRAM traffic × how busy each is.
void AddTrafficTerms(const ToolContext& context, double removed_share, const std::string& what,
                     std::vector<GainTerm>& terms, Finding& finding) {
  const std::pair<const char*, const char*> levels[] = {
      {"L2", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"DRAM", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}};
  for (const auto& [level, metric] : levels) {
    auto percent = context.Metric(metric);
    if (!percent) continue;
    finding.evidence.push_back(MakeEvidence(metric, *percent, "%", "", 0));
    terms.push_back(
        {fmt::format("{} {:.1f}% × {} throughput {:.1f}%", what, removed_share * 100, level, *percent),
         removed_share * *percent / 100});
  }
}

// Latency term: the share of stall cycles of `reasons` × `attributed` × SM-active time.
void AddLatencyTerm(const ToolContext& context, const std::vector<std::string>& reasons, double attributed,
                    const std::string& what, std::vector<GainTerm>& terms, Finding& finding) {
  double stall_share = 0;
  std::string names;
  for (const std::string& reason : reasons) {
    stall_share += context.StallShare(reason);
    names += (names.empty() ? "" : "+") + reason;
  }
  if (stall_share <= 0) return;
  double active = SmActiveFraction(context);
  finding.evidence.push_back(MakeEvidence("stall share: " + names, stall_share * 100, "%", "", 0));
  finding.evidence.push_back(MakeEvidence("SM active cycles / elapsed", active * 100, "%", "", 0));
  terms.push_back({fmt::format("{} stalls {:.1f}% × {} {:.1f}% × SM active {:.1f}%", names, stall_share * 100,
                               what, attributed * 100, active * 100),
                   stall_share * attributed * active});
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
  if (finding.estimated_gain < context.Threshold("min_estimated_gain")) return std::nullopt;

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

ToolDefinition UncoalescedTool(const GlobalAccessKind& kind) {
  ToolDefinition tool;
  tool.id = kind.op == "ld" ? "uncoalesced_loads" : "uncoalesced_stores";
  tool.title = kind.op == "ld" ? "Uncoalesced global loads" : "Uncoalesced global stores";
  tool.family = "memory";
  tool.required = {
      {InputSource::kNcuMetric, SectorsMetric(kind), false},
      {InputSource::kNcuMetric, RequestsMetric(kind), false},
      {InputSource::kNcuMetric, BytesPerSectorMetric(kind), false},
      {InputSource::kNcuMetric, kind.l2_sectors_metric, true},
      {InputSource::kNcuMetric, "lts__t_sectors_srcunit_tex.sum", true},
      {InputSource::kNcuMetric, "lts__throughput.avg.pct_of_peak_sustained_elapsed", true},
      {InputSource::kNcuMetric, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", true},
      {InputSource::kNcuMetric, "sm__cycles_active.avg", true},
      {InputSource::kSass, "LDG/STG access widths", true},
      {InputSource::kSourcePage, "L2 Theoretical Sectors Global Excessive per instruction", true}};
  tool.thresholds = {{"min_excess_sector_share", 0.25, "fraction",
                      "share of each fetched 32-byte sector left unused (1 − bytes per sector / 32) at or "
                      "above which the access "
                      "is uncoalesced; ncu's MemoryCacheAccessPattern fires at any waste, this leaves room "
                      "for misaligned starts "
                      "and ragged edges of otherwise contiguous accesses"},
                     MinimumGainThreshold()};
  tool.trigger =
      "1 − bytes per sector / 32 >= min_excess_sector_share and estimated gain >= min_estimated_gain";
  tool.subsumes = {"memory_latency_low_mlp"};
  tool.gain_bound = GainBound::kReducesTraffic;
  tool.analyze = [&kind](const ToolContext& context) { return AnalyzeUncoalesced(context, kind); };
  return tool;
}

}  // namespace

namespace {

// ------------------------------------------------------- shared bank conflicts

struct SharedCounts {
  double conflicts = 0, wavefronts = 0, instructions = 0;
};

SharedCounts SharedCountsFor(const ToolContext& context, const std::string& op) {
  SharedCounts counts;
  counts.conflicts = MetricOr(context, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum", 0);
  counts.wavefronts = MetricOr(context, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum", 0);
  counts.instructions = MetricOr(context, "smsp__sass_inst_executed_op_shared_" + op + ".sum", 0);
  // ldmatrix is a shared load too (ncu's SharedMemoryConflicts counts it with the loads).
  if (op == "ld") counts.instructions += MetricOr(context, "smsp__inst_executed_op_ldsm.sum", 0);
  return counts;
}

void AddSharedOpEvidence(const SharedCounts& counts, const std::string& op, double minimum,
                         Finding& finding) {
  if (counts.wavefronts <= 0) return;
  finding.evidence.push_back(MakeEvidence("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum",
                                          counts.conflicts, "wavefront", "", 0));
  finding.evidence.push_back(MakeEvidence("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum",
                                          counts.wavefronts, "wavefront", "", 0));
  finding.evidence.push_back(MakeEvidence(fmt::format("shared {} conflict share: conflicts / wavefronts", op),
                                          SafeRatio(counts.conflicts, counts.wavefronts) * 100, "%",
                                          ">=", minimum * 100));
  if (counts.instructions > 0) {
    finding.evidence.push_back(MakeEvidence(fmt::format("shared {} n-way: wavefronts / instructions", op),
                                            counts.wavefronts / counts.instructions, "way", "", 0));
  }
}

double SharedPipePercent(const ToolContext& context, std::string& metric) {
  metric = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed";
  if (auto percent = context.Metric(metric)) return *percent;
  metric = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
  return MetricOr(context, metric, 0);
}

std::vector<Recommendation> BankConflictRecommendations(double n_way, double conflict_share) {
  std::string effect =
      fmt::format("shared-memory wavefronts fall by up to {:.0f}% (now {:.1f} per instruction)",
                  conflict_share * 100, n_way);
  return {{"Pad shared arrays indexed by column: declare tile[N][32 + 1] instead of tile[N][32]",
           "With 32 banks of 4 bytes, threads reading one column of a 32-wide row-major tile all hit the "
           "same bank; "
           "one extra word per row shifts each row to the next bank",
           effect},
          {"Or swizzle the index (column ^ row) % 32, or transpose the access so threadIdx.x walks the "
           "contiguous "
           "dimension of the shared array",
           "Same effect without padding, when the layout must stay dense (e.g. for ldmatrix/TMA)", effect},
          {"For 8- or 16-byte elements, make each quarter-warp (16-byte) or half-warp (8-byte) access a "
           "contiguous "
           "128-byte span",
           "Wide accesses are served in 128-byte wavefronts; scattered wide accesses multiply them",
           "one wavefront per 128 bytes"}};
}

std::optional<Finding> AnalyzeBankConflicts(const ToolContext& context) {
  SharedCounts loads = SharedCountsFor(context, "ld"), stores = SharedCountsFor(context, "st");
  double minimum = context.Threshold("min_conflict_share");
  double worst =
      std::max(SafeRatio(loads.conflicts, loads.wavefronts), SafeRatio(stores.conflicts, stores.wavefronts));
  if (worst < minimum) return std::nullopt;
  double conflicts = loads.conflicts + stores.conflicts, wavefronts = loads.wavefronts + stores.wavefronts;
  double conflict_share = SafeRatio(conflicts, wavefronts);
  double instructions = loads.instructions + stores.instructions;
  double n_way = SafeRatio(wavefronts, instructions);

  Finding finding = NewFinding("", 0.85);
  AddSharedOpEvidence(loads, "ld", minimum, finding);
  AddSharedOpEvidence(stores, "st", minimum, finding);
  std::string pipe_metric;
  double pipe_percent = SharedPipePercent(context, pipe_metric);
  finding.evidence.push_back(MakeEvidence(pipe_metric, pipe_percent, "%", "", 0));
  std::vector<GainTerm> terms{
      {fmt::format("conflict share of shared wavefronts {:.1f}% × shared pipe {:.1f}%", conflict_share * 100,
                   pipe_percent),
       conflict_share * pipe_percent / 100}};
  AddLatencyTerm(context, {"mio_throttle", "short_scoreboard"}, conflict_share,
                 "conflict share of wavefronts", terms, finding);
  finding.estimated_gain = LargestTerm(terms, finding.gain_method);
  if (finding.estimated_gain < context.Threshold("min_estimated_gain")) return std::nullopt;

  finding.title =
      instructions > 0
          ? fmt::format("Shared-memory bank conflicts: {:.1f} wavefronts per access, {:.0f}% of them extra",
                        n_way, conflict_share * 100)
          : fmt::format("Shared-memory bank conflicts: {:.0f}% of wavefronts extra", conflict_share * 100);
  finding.root_cause = fmt::format(
      "Threads of a warp access different 4-byte words in the same shared-memory bank, so the access is "
      "split "
      "into serialized wavefronts: {:.0f}% of all shared-memory wavefronts exist only because of conflicts, "
      "and "
      "the shared pipe (and the warps waiting on it) spend that time replaying.",
      conflict_share * 100);
  finding.recommendations = BankConflictRecommendations(n_way, conflict_share);
  finding.locations =
      LocationsFor(context, {InstructionClass::kSharedLoad, InstructionClass::kSharedStore},
                   [](const SourcePageRow& row) { return row.l1_wavefronts_shared_excessive.value_or(0); });
  return finding;
}

ToolDefinition BankConflictTool() {
  ToolDefinition tool;
  tool.id = "shared_bank_conflicts";
  tool.title = "Shared-memory bank conflicts";
  tool.family = "memory";
  tool.required = {
      {InputSource::kNcuMetric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", false},
      {InputSource::kNcuMetric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", false},
      {InputSource::kNcuMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", false},
      {InputSource::kNcuMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", false},
      {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_shared_ld.sum", true},
      {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_shared_st.sum", true},
      {InputSource::kNcuMetric, "smsp__inst_executed_op_ldsm.sum", true},
      {InputSource::kNcuMetric,
       "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", true},
      {InputSource::kSourcePage, "L1 Wavefronts Shared Excessive per instruction", true}};
  tool.thresholds = {
      {"min_conflict_share", 0.10, "fraction",
       "bank-conflict wavefronts / shared wavefronts of loads or stores at or above which conflicts "
       "are reported (ncu's SharedMemoryConflicts rule: 10%)"},
      MinimumGainThreshold()};
  tool.trigger =
      "conflicts / wavefronts >= min_conflict_share for shared loads or stores, and estimated gain >= "
      "min_estimated_gain";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeBankConflicts;
  return tool;
}

}  // namespace

namespace {

// ------------------------------------------------------------- local memory

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
  if (finding.estimated_gain < context.Threshold("min_estimated_gain")) return std::nullopt;

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

ToolDefinition LocalMemoryTool() {
  ToolDefinition tool;
  tool.id = "local_memory_spills";
  tool.title = "Local memory: register spills and per-thread arrays";
  tool.family = "memory";
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
      MinimumGainThreshold()};
  tool.trigger =
      "local sectors > 0, local share of L1 sectors >= min_local_sector_share, and estimated gain >= "
      "min_estimated_gain";
  tool.subsumes = {"memory_latency_low_mlp"};
  tool.gain_bound = GainBound::kReducesTraffic;
  tool.analyze = AnalyzeLocalMemory;
  return tool;
}

}  // namespace

namespace {

// ----------------------------------------------- memory latency, too little in flight

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
  if (finding.estimated_gain < context.Threshold("min_estimated_gain")) return std::nullopt;

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
  // Warps stall on the instruction that consumes a load, so with a source page
  // every instruction is ranked by its long-scoreboard samples.
  auto long_scoreboard_samples = [](const SourcePageRow& row) {
    auto it = row.stall_reason_samples.find("long_sb");
    return it == row.stall_reason_samples.end() ? 0.0 : it->second;
  };
  if (context.source_page)
    finding.locations = SourcePageLocations(*context.source_page, {}, long_scoreboard_samples);
  if (finding.locations.empty()) {
    finding.locations = LocationsFor(context, {InstructionClass::kGlobalLoad, InstructionClass::kLocalLoad});
  }
  return finding;
}

ToolDefinition MemoryLatencyTool() {
  ToolDefinition tool;
  tool.id = "memory_latency_low_mlp";
  tool.title = "Memory latency with too little in flight";
  tool.family = "memory";
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
                     MinimumGainThreshold()};
  tool.trigger =
      "long_scoreboard share >= min_long_scoreboard_share, memory throughput < max_memory_throughput, "
      "theoretical occupancy >= min_theoretical_occupancy, and estimated gain >= min_estimated_gain";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeMemoryLatency;
  return tool;
}

}  // namespace

namespace {

// ----------------------------------------------------------- atomic contention

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
  if (finding.estimated_gain < context.Threshold("min_estimated_gain")) return std::nullopt;

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

ToolDefinition AtomicTool() {
  ToolDefinition tool;
  tool.id = "atomic_contention";
  tool.title = "Contended global atomics";
  tool.family = "memory";
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
      MinimumGainThreshold()};
  tool.trigger =
      "global atomic or reduction requests > 0, hottest-slice atomic activity >= min_slice_concentration "
      "× average (when measured), and estimated gain >= min_estimated_gain";
  tool.subsumes = {"memory_latency_low_mlp"};
  tool.gain_bound = GainBound::kHidesLatency;
  tool.analyze = AnalyzeAtomics;
  return tool;
}

}  // namespace

std::vector<ToolDefinition> MemoryTools() {
  return {UncoalescedTool(LoadKind()), UncoalescedTool(StoreKind()), BankConflictTool(),
          LocalMemoryTool(),           MemoryLatencyTool(),          AtomicTool()};
}

}  // namespace kopt
