// shared_bank_conflicts: shared-memory accesses that split into several wavefronts
// (bank conflicts): the n-way conflict per load and store, the replays' share
// of the shared-memory pipe, and the padding or swizzle that removes them.
//
// Barrier-phased kernels (tree scans, sorting networks, FFT butterflies) are
// told apart from conflict-bound ones by where their warps wait. Replays queue
// in the MIO unit: the stall they cause is mio_throttle, in proportion to the
// replays' share of the shared-pipe wavefronts. When the warps wait at barriers
// (barrier + membar share of the stall cycles) at least that much, and the
// barrier waits are a reportable cause (>= min_barrier_stall_share), the
// phases, each ending when the block's slowest warp arrives, set the time:
// padding shortens a phase only by the queueing its replays add, while the
// phase structure and its waits stay. The conflicts are then credited with the
// stall cycles their replays cause (replay share × mio_throttle share × SM
// active) rather than with the shared pipe's busy time, which ranks them below
// barrier_stalls as a secondary cause (still listed, with that gain). A
// conflict-bound kernel (16- to 32-way conflicts: most of its stalls are MIO
// queueing behind replays) keeps the pipe estimate.
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

// Every wavefront of the shared pipe: LSU loads, stores and atomics, LDGSTS
// and (Hopper) the wgmma operand reads from shared memory.
constexpr const char* kAllSharedWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";

struct SharedCounts {
  double conflicts = 0, wavefronts = 0, instructions = 0;
  double counter = 0;           // ncu's bank-conflict counter, before the width correction
  double ideal_per_access = 1;  // wavefronts a conflict-free access of this kernel's width takes
};

// Wavefronts a conflict-free shared access takes: a warp's 32-bit access is one
// 128-byte wavefront, a 64-bit one two, a 128-bit one (and ldmatrix .x4) four.
// With the listing: the dominant width of the kernel's LDS/STS. Without it:
// four when the kernel runs a tensor-core operand pipeline (wgmma, TMA,
// ldmatrix), whose staging accesses are 128-bit, else one.
double IdealWavefrontsPerAccess(const ToolContext& context, InstructionClass kind) {
  if (context.sass) {
    std::map<int, int> widths;
    for (const SassInstruction* instruction : MainBody(*context.sass)) {
      if (instruction->instruction_class != kind || instruction->access_bits <= 0) continue;
      bool matrix = instruction->opcode == "LDSM" || instruction->opcode == "STSM";
      ++widths[matrix ? 128 : instruction->access_bits];
    }
    if (int bits = DominantWidth(widths); bits > 0) return std::max(1, bits / 32);
  }
  double pipeline = MetricOr(context, "smsp__sass_inst_executed_op_shared_gmma.sum", 0) +
                    MetricOr(context, "smsp__inst_executed_op_tma_ld.sum", 0) +
                    MetricOr(context, "smsp__inst_executed_op_ldsm.sum", 0);
  return pipeline > 0 ? 4 : 1;
}

// Conflicts are the wavefronts beyond what the accesses need at their width:
// ncu's counter, but at most the excess over the ideal (the counter also
// counts the extra wavefronts of wide and ldmatrix accesses, which are no
// conflicts).
SharedCounts SharedCountsFor(const ToolContext& context, const std::string& op) {
  SharedCounts counts;
  counts.counter = MetricOr(context, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum", 0);
  counts.wavefronts = MetricOr(context, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum", 0);
  counts.instructions = MetricOr(context, "smsp__sass_inst_executed_op_shared_" + op + ".sum", 0);
  // ldmatrix is a shared load too (ncu's SharedMemoryConflicts counts it with the loads).
  if (op == "ld") counts.instructions += MetricOr(context, "smsp__inst_executed_op_ldsm.sum", 0);
  counts.ideal_per_access = IdealWavefrontsPerAccess(
      context, op == "ld" ? InstructionClass::kSharedLoad : InstructionClass::kSharedStore);
  counts.conflicts = counts.counter;
  if (counts.instructions > 0) {
    double excess = std::max(0.0, counts.wavefronts - counts.ideal_per_access * counts.instructions);
    counts.conflicts = std::min(counts.counter, excess);
  }
  return counts;
}

void AddSharedOpEvidence(const SharedCounts& counts, const std::string& op, double minimum,
                         Finding& finding) {
  if (counts.wavefronts <= 0) return;
  finding.evidence.push_back(MakeEvidence("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum",
                                          counts.counter, "wavefront", "", 0));
  finding.evidence.push_back(MakeEvidence(
      fmt::format("shared {} wavefronts beyond {:.0f} per access (conflicts)", op, counts.ideal_per_access),
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
  // The pipe's time the replays take: their share of every wavefront the
  // shared pipe serves, which on Hopper includes the wgmma operand reads,
  // LDGSTS and atomics beside the LSU loads and stores.
  double pipe_wavefronts = std::max(wavefronts, MetricOr(context, kAllSharedWavefronts, 0));
  double pipe_share = SafeRatio(conflicts, pipe_wavefronts);
  double instructions = loads.instructions + stores.instructions;
  double n_way = SafeRatio(wavefronts, instructions);

  Finding finding = NewFinding("", 0.85);
  AddSharedOpEvidence(loads, "ld", minimum, finding);
  AddSharedOpEvidence(stores, "st", minimum, finding);
  std::string pipe_metric;
  double pipe_percent = SharedPipePercent(context, pipe_metric);
  finding.evidence.push_back(MakeEvidence(pipe_metric, pipe_percent, "%", "", 0));
  if (pipe_wavefronts > wavefronts) {
    finding.evidence.push_back(MakeEvidence(kAllSharedWavefronts, pipe_wavefronts, "wavefront", "", 0));
    finding.evidence.push_back(MakeEvidence(
        "conflicts / all shared-pipe wavefronts (incl. wgmma operand reads)", pipe_share * 100, "%", "", 0));
  }
  double barrier_share = context.StallShare("barrier") + context.StallShare("membar");
  double replay_stall_share = pipe_share * context.StallShare("mio_throttle");
  bool barrier_phased =
      barrier_share >= context.Threshold("min_barrier_stall_share") && barrier_share >= replay_stall_share;
  std::vector<GainTerm> terms;
  if (barrier_phased) {  // see the top of the file
    finding.evidence.push_back(MakeEvidence("stall share: barrier + membar (warps wait at barriers)",
                                            barrier_share * 100, "%", ">=", replay_stall_share * 100));
    AddLatencyTerm(context, {"mio_throttle"}, pipe_share, "conflict share of shared-pipe wavefronts", terms,
                   finding);
  } else {
    terms.push_back({fmt::format("conflict share of all shared-pipe wavefronts {:.1f}% × shared pipe {:.1f}%",
                                 pipe_share * 100, pipe_percent),
                     pipe_share * pipe_percent / 100});
    AddLatencyTerm(context, {"mio_throttle", "short_scoreboard"}, pipe_share,
                   "conflict share of shared-pipe wavefronts", terms, finding);
  }
  finding.estimated_gain = LargestTerm(terms, finding.gain_method);
  if (barrier_phased) {
    finding.gain_method = fmt::format(
        "barrier-phased kernel: warps wait at barriers ({:.1f}% of stall cycles) at least as much as behind "
        "the replays ({:.1f}%), so the conflicts are credited with their replays' MIO-queue stalls only, "
        "not the shared pipe's busy time: {}",
        barrier_share * 100, replay_stall_share * 100, finding.gain_method);
  }
  if (finding.estimated_gain < context.Threshold("min_gain")) return std::nullopt;

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

}  // namespace

ToolDefinition SharedBankConflictsTool() {
  ToolDefinition tool;
  tool.id = "shared_bank_conflicts";
  tool.title = "Shared-memory bank conflicts";
  tool.family = ToolFamily::kMemory;
  tool.side = ToolSide::kSharedMemory;
  tool.relevant_classes = EveryBottleneckClass();
  tool.ncu_rules = {NcuRule::kSharedMemoryConflicts, NcuRule::kUncoalescedSharedAccess,
                    NcuRule::kCpiStallMio};
  tool.required = {
      {InputSource::kNcuMetric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", false},
      {InputSource::kNcuMetric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", false},
      {InputSource::kNcuMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", false},
      {InputSource::kNcuMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", false},
      {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_shared_ld.sum", true},
      {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_shared_st.sum", true},
      {InputSource::kNcuMetric, "smsp__inst_executed_op_ldsm.sum", true},
      {InputSource::kNcuMetric, "smsp__sass_inst_executed_op_shared_gmma.sum", true},
      {InputSource::kNcuMetric, "smsp__inst_executed_op_tma_ld.sum", true},
      {InputSource::kNcuMetric, kAllSharedWavefronts, true},
      {InputSource::kSass, "LDS/STS access widths", true},
      {InputSource::kNcuMetric,
       "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", true},
      {InputSource::kSourcePage, "L1 Wavefronts Shared Excessive per instruction", true}};
  tool.thresholds = {
      {"min_conflict_share", 0.10, "fraction",
       "bank-conflict wavefronts / shared wavefronts of loads or stores at or above which conflicts "
       "are reported (ncu's SharedMemoryConflicts rule: 10%); conflicts are ncu's counter capped by the "
       "wavefronts beyond the ideal of the access width (1 per 32-bit, 4 per 128-bit or ldmatrix.x4 access); "
       "the gain weighs them against every wavefront of the shared pipe (l1tex__data_pipe_lsu_wavefronts_"
       "mem_shared.sum, which on Hopper also counts the wgmma operand reads): replays of a few epilogue "
       "stores beside the operand traffic of a tensor-core GEMM take a small share of the pipe"},
      {"min_barrier_stall_share", 0.15, "fraction",
       "barrier + membar share of the stall cycles from which a kernel whose warps wait at barriers at least "
       "as much as behind the replays (conflict share × mio_throttle share) is barrier-phased: the conflicts "
       "are then credited with their replays' MIO stalls only, a secondary cause (barrier_stalls' own "
       "min_stall_share: the barrier waits are then a finding of their own)"},
      MemoryMinGainThreshold()};
  tool.trigger =
      "conflicts / wavefronts >= min_conflict_share for shared loads or stores, and estimated gain "
      "(conflicts / "
      "all shared-pipe wavefronts × shared pipe %, or × the MIO/short-scoreboard stall share) >= min_gain; "
      "in "
      "a barrier-phased kernel (barrier + membar stalls >= min_barrier_stall_share and >= conflict share × "
      "mio_throttle share) the gain is conflict share × mio_throttle share × SM active";
  tool.gain_bound = GainBound::kHidesLatency;
  tool.tuning_moves = {
      {"shared_bank_conflicts",
       {{ParameterRole::kPadding, MoveDirection::kIncrease},
        {ParameterRole::kVectorWidth, MoveDirection::kDecrease}},
       "threads of a warp hit the same bank: pad the shared tile"},
  };
  tool.analyze = AnalyzeBankConflicts;
  return tool;
}

}  // namespace kopt
