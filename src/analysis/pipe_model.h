// The model the compute tools share (analysis/tools/warp_divergence.cc,
// fp32_gemm_no_tensor_cores.cc, hmma_on_hopper.cc, accidental_fp64.cc,
// mufu_division_pressure.cc, int64_index_arithmetic.cc): the metrics they
// read, the load of each SM pipe, and what runs on the XU pipe.
//
// Pipe model: time follows the busiest pipe; the gain is the drop of the
// busiest load once the fix has moved or removed work, weighted by how
// compute-limited the kernel is. The XU composition splits the main body's XU
// work into special functions, integer-division sequences, FP64 conversions
// and other conversions, so that each kind is owned by one tool.
//
// Thread safety: pure functions over values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/tool_support.h"

namespace kopt {

inline constexpr std::string_view kSmThroughputMetric = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr std::string_view kThreadsPerInstructionMetric =
    "smsp__thread_inst_executed_per_inst_executed.ratio";
inline constexpr std::string_view kPredicatedThreadsPerInstructionMetric =
    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio";
inline constexpr std::string_view kFfmaPeakMetric =
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained";
inline constexpr std::string_view kDfmaPeakMetric =
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained";
inline constexpr std::string_view kTf32DensePeakMetric =
    "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained";
// Share of active cycles a scheduler issued an instruction (the issue-slot load).
inline constexpr std::string_view kIssueActiveMetric = "smsp__issue_active.avg.pct_of_peak_sustained_active";
inline constexpr double kWarpSize = 32;

// ---------------------------------------------------------------- pipes

std::string PipeMetric(
    std::string_view pipe);  // sm__inst_executed_pipe_<pipe>.avg.pct_of_peak_sustained_active

// The pipes whose load decides a compute-side kernel's time.
inline constexpr std::string_view kPipes[] = {
    "fma", "alu", "fp64", "xu", "lsu", "tensor_op_hmma", "tensor_op_gmma", "uniform", "cbu", "adu"};

using PipeLoads = std::map<std::string, double>;  // pipe → % of peak over active cycles

PipeLoads ReadPipeLoads(const ToolContext& context);
double BusiestLoad(const PipeLoads& loads);
std::pair<std::string, double> BusiestPipeExcept(const PipeLoads& loads, std::string_view excluded);

// How compute-limited the kernel is (0..1): ncu's SM throughput, the weight
// its compute rules (ThreadDivergence, SOLFPRoofline) give their local gains;
// when the ADU pipe alone sets that throughput (its load >= 90% of it), the
// issue rate and the other pipes instead (see pipe_model.cc).
double ComputeLimitedFraction(const ToolContext& context);
// The scale of a pipe-utilisation bar (a threshold in % of a pipe's peak): in a
// latency-bound kernel (neither side of stage 1 near a ceiling) whose compute
// side is ahead of its memory side (SM throughput >= memory throughput: its
// warps wait on instruction latencies, too few of them to hide those), the
// schedulers issue on only u of the active cycles and every pipe stays below
// about u busy, so a pipe's load is judged against the issue rate: u, the
// issue-active fraction. 1 otherwise (a kernel whose low issue rate is its
// memory's doing keeps the fixed bar: its pipes' work is no larger a share)
// and when the metric is missing.
double PipeBarScaleForIssueRate(const ToolContext& context);
const ComputeWork* FindWork(const RooflineAnalysis& roofline, std::string_view precision);
bool IsHopper(const ToolContext& context);

// `attainable_tensor_efficiency`: the share of the dense tensor peak a tuned GEMM reaches.
ThresholdDefinition AttainableTensorEfficiency();

struct PipeModel {
  double busiest_before = 0;
  double busiest_after = 0;
  double gain = 0;
};
PipeModel PipeGain(const ToolContext& context, const PipeLoads& before, const PipeLoads& after);
std::string PipeGainMethod(const ToolContext& context, const PipeModel& model, std::string_view change);

// ------------------------------------------------- instruction mix (no SASS)

// The executed instruction mix from the raw page alone (for the compute tools
// when no SASS listing is given), in warp instructions over the launch:
//  - fp: FP64/FP32/FP16 add, mul and fma thread instructions
//    (smsp__sass_thread_inst_executed_op_*_pred_on) over the threads per
//    instruction (smsp__thread_inst_executed_per_inst_executed.ratio);
//  - memory: global, local and shared loads and stores
//    (smsp__sass_inst_executed_op_{global,local,shared}_{ld,st}.sum);
//  - branch: smsp__inst_executed_op_branch.sum;
//  - total: smsp__inst_executed.sum; the rest (integer, conversion, MUFU, moves)
//    is total − fp − memory − branch.
// `valid` is false when the total or the FP counts are missing.
struct InstructionMix {
  bool valid = false;
  double total = 0, fp = 0, fp64 = 0, memory = 0, branch = 0;
  double Other() const { return std::max(0.0, total - fp - memory - branch); }
};
InstructionMix ReadInstructionMix(const ToolContext& context);
// Thread instructions of one FP opcode ("ffma", "dadd", ...) over the launch:
// smsp__sass_thread_inst_executed_op_<op>_pred_on.sum, else its per-cycle rate
// times smsp__cycles_elapsed.avg; nullopt when neither is present.
std::optional<double> FpThreadInstructions(const ToolContext& context, std::string_view opcode);
// Metric names the mix reads (for the tools' `required` lists, all optional).
std::vector<std::string> InstructionMixMetrics();

// ---------------------------------------------------------------- XU work

bool RunsOnXuPipe(const SassInstruction& instruction);
bool IsIntegerDivisionStart(const SassInstruction& instruction);
bool IsFp64Conversion(const SassInstruction& instruction);

struct XuComposition {
  InstructionList special_functions;  // MUFU on float values
  InstructionList integer_division;   // I2F.RP → MUFU.RCP → F2I.TRUNC reciprocal sequences
  InstructionList fp64_conversions;   // F2F.F64.F32, F2F.F32.F64, I2F.F64, F2I.F64
  InstructionList other;              // other conversions
  size_t Total() const {
    return special_functions.size() + integer_division.size() + fp64_conversions.size() + other.size();
  }
};
// Classifies the main body's XU instructions, following the registers of an
// integer division's reciprocal (I2F.RP's result through MUFU.RCP to F2I).
XuComposition ClassifyXuWork(const SassFunction& function);

double Share(size_t part, size_t total);  // part / total, 0 when total is 0

// A subroutine that a call enters: what kind of slow path it is.
enum class RoutineKind { kIntegerDivision, kFloatSlowPath, kOther };
RoutineKind ClassifyRoutine(const InstructionList& routine);
// The main body's relative calls into subroutines of `kind`.
InstructionList CallsTo(const SassFunction& function, RoutineKind kind);

// What the launch executed inside the float slow-path subroutines (IEEE
// division/sqrt slow paths: the CALL targets ClassifyRoutine calls
// kFloatSlowPath and that hold no FP64 instruction (a double pow or division
// routine is FP64 math), from their first instruction to their RET), from the
// source page's per-PC counts: warp instructions and thread instructions
// there and in the whole kernel. nullopt without SASS, source page or counts.
struct SlowPathExecution {
  double warp_instructions = 0, thread_instructions = 0;  // inside the slow paths
  double total_warp_instructions = 0, total_thread_instructions = 0;
  double Share() const { return Share(warp_instructions, total_warp_instructions); }
  // Active threads per warp instruction outside the slow paths (32 when nothing else ran).
  double ThreadsPerInstructionOutside() const;

 private:
  static double Share(double part, double total) { return total > 0 ? part / total : 0; }
};
std::optional<SlowPathExecution> FloatSlowPathExecution(const ToolContext& context);

}  // namespace kopt
