// The compute tool family: work the SM does that it need not do, or does on a
// slower path than the chip offers.
//
//   warp_divergence           few active threads per issued instruction
//   fp32_gemm_no_tensor_cores matrix products on the FFMA pipe instead of tensor cores
//   hmma_on_hopper            mma.sync (HMMA) on sm_90, where wgmma (HGMMA) applies
//   accidental_fp64           float data promoted to double (DFMA/DMUL, F2F.F64.F32)
//   mufu_division_pressure    the special-function (XU) pipe saturated by MUFU work
//   int64_index_arithmetic    integer division and modulo in index math (64-bit routines)
//
// Gains are fractions of kernel time, comparable with the other families:
// either a time-after-the-fix model (the tensor tools: the work at an
// attainable share of the tensor peak) or a pipe model (the time of a
// compute-side kernel follows its busiest pipe; the fix removes named pipe
// work), weighted like ncu's rules by how compute-limited the kernel is (SM
// throughput). The orchestrator caps every gain by the memory floor.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "analysis/tool_families.h"

namespace kopt {
namespace {

constexpr size_t kMaxLocations = 8;
constexpr std::string_view kSmThroughputMetric = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kThreadsPerInstructionMetric =
    "smsp__thread_inst_executed_per_inst_executed.ratio";
constexpr std::string_view kPredicatedThreadsPerInstructionMetric =
    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio";
constexpr std::string_view kFfmaPeakMetric =
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained";
constexpr std::string_view kDfmaPeakMetric =
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained";
constexpr std::string_view kTf32DensePeakMetric =
    "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained";
constexpr double kWarpSize = 32;

// ---------------------------------------------------------------------------
// Metrics and pipes.

std::string PipeMetric(std::string_view pipe) {
  return fmt::format("sm__inst_executed_pipe_{}.avg.pct_of_peak_sustained_active", pipe);
}

// The pipes whose load decides a compute-side kernel's time.
constexpr std::string_view kPipes[] = {
    "fma", "alu", "fp64", "xu", "lsu", "tensor_op_hmma", "tensor_op_gmma", "uniform", "cbu", "adu"};

using PipeLoads = std::map<std::string, double>;  // pipe → % of peak over active cycles

PipeLoads ReadPipeLoads(const ToolContext& context) {
  PipeLoads loads;
  for (std::string_view pipe : kPipes) {
    if (auto percent = context.Metric(PipeMetric(pipe))) loads[std::string(pipe)] = *percent;
  }
  return loads;
}

double BusiestLoad(const PipeLoads& loads) {
  double busiest = 0;
  for (const auto& [pipe, percent] : loads) busiest = std::max(busiest, percent);
  return busiest;
}

std::pair<std::string, double> BusiestPipeExcept(const PipeLoads& loads, std::string_view excluded) {
  std::pair<std::string, double> busiest{"", 0};
  for (const auto& [pipe, percent] : loads) {
    if (pipe != excluded && percent > busiest.second) busiest = {pipe, percent};
  }
  return busiest;
}

// How compute-limited the kernel is (0..1): ncu's SM throughput, the weight
// its compute rules (ThreadDivergence, SOLFPRoofline) give their local gains.
double ComputeLimitedFraction(const ToolContext& context) {
  double percent = context.roofline.sm_throughput_percent.value_or(context.roofline.compute_percent_of_peak);
  return std::clamp(percent / 100, 0.0, 1.0);
}

const ComputeWork* FindWork(const RooflineAnalysis& roofline, std::string_view precision) {
  for (const ComputeWork& work : roofline.compute) {
    if (work.precision == precision) return &work;
  }
  return nullptr;
}

bool IsHopper(const ToolContext& context) {
  if (!context.launch.compute_capability.empty())
    return context.launch.compute_capability.rfind("9.", 0) == 0;
  return context.sass && context.sass->architecture.rfind("sm_90", 0) == 0;
}

// ---------------------------------------------------------------------------
// SASS helpers.

using InstructionList = std::vector<const SassInstruction*>;

bool Executes(const SassInstruction& instruction) {
  return instruction.predicate != "@!PT" && instruction.predicate != "@!UPT";
}

bool HasModifier(const SassInstruction& instruction, std::string_view modifier) {
  return instruction.modifiers.find(modifier) != std::string::npos;
}

std::string SassText(const SassInstruction& instruction) {
  std::string text = instruction.predicate.empty() ? "" : instruction.predicate + " ";
  text += instruction.opcode + instruction.modifiers;
  if (!instruction.operands.empty()) text += " " + instruction.operands;
  return text;
}

std::optional<unsigned long long> LastHexNumber(std::string_view text) {
  size_t position = text.rfind("0x");
  if (position == std::string_view::npos) return std::nullopt;
  unsigned long long value = 0;
  const char* begin = text.data() + position + 2;
  auto [end, error] = std::from_chars(begin, text.data() + text.size(), value, 16);
  if (error != std::errc() || end == begin) return std::nullopt;
  return value;
}

// The target of a relative call ("CALL.REL.NOINC 0xef0"): a subroutine of the function.
std::optional<unsigned long long> CallTarget(const SassInstruction& instruction) {
  if (instruction.opcode != "CALL" || !HasModifier(instruction, ".REL")) return std::nullopt;
  return LastHexNumber(instruction.operands);
}

// The kernel's own code: everything before the first subroutine a CALL enters.
unsigned long long MainBodyEnd(const SassFunction& function) {
  unsigned long long end = ~0ULL;
  for (const SassInstruction& instruction : function.instructions) {
    if (auto target = CallTarget(instruction)) end = std::min(end, *target);
  }
  return end;
}

InstructionList MainBody(const SassFunction& function) {
  InstructionList body;
  unsigned long long end = MainBodyEnd(function);
  for (const SassInstruction& instruction : function.instructions) {
    if (instruction.offset < end && Executes(instruction)) body.push_back(&instruction);
  }
  return body;
}

// The subroutine starting at `start`, up to and including its first RET.
InstructionList Subroutine(const SassFunction& function, unsigned long long start) {
  InstructionList routine;
  for (const SassInstruction& instruction : function.instructions) {
    if (instruction.offset < start || !Executes(instruction)) continue;
    routine.push_back(&instruction);
    if (instruction.opcode == "RET") break;
  }
  return routine;
}

template <typename Predicate>
InstructionList Select(const InstructionList& instructions, Predicate predicate) {
  InstructionList selected;
  for (const SassInstruction* instruction : instructions) {
    if (predicate(*instruction)) selected.push_back(instruction);
  }
  return selected;
}

template <typename Predicate>
bool AnyOf(const InstructionList& instructions, Predicate predicate) {
  return std::any_of(instructions.begin(), instructions.end(),
                     [&](const SassInstruction* instruction) { return predicate(*instruction); });
}

std::vector<std::string_view> Operands(const SassInstruction& instruction) {
  std::vector<std::string_view> operands;
  std::string_view text = instruction.operands;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view operand = text.substr(0, comma);
    while (!operand.empty() && operand.front() == ' ') operand.remove_prefix(1);
    while (!operand.empty() && operand.back() == ' ') operand.remove_suffix(1);
    operands.push_back(operand);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return operands;
}

// The register an operand names ("R12", "-R12.reuse", "|R3|"); nullopt for RZ,
// predicates, immediates, constants and addresses.
std::optional<int> RegisterNumber(std::string_view operand) {
  while (!operand.empty() && (operand.front() == '-' || operand.front() == '|' || operand.front() == '!'))
    operand.remove_prefix(1);
  if (operand.size() < 2 || operand.front() != 'R' || operand[1] < '0' || operand[1] > '9')
    return std::nullopt;
  int number = 0;
  std::from_chars(operand.data() + 1, operand.data() + operand.size(), number);
  return number;
}

std::optional<int> DestinationRegister(const SassInstruction& instruction) {
  std::vector<std::string_view> operands = Operands(instruction);
  return operands.empty() ? std::nullopt : RegisterNumber(operands.front());
}

// Registers written: the destination, and its pair for 64-bit results.
std::vector<int> WrittenRegisters(const SassInstruction& instruction) {
  auto destination = DestinationRegister(instruction);
  if (!destination) return {};
  bool wide = HasModifier(instruction, ".WIDE") || HasModifier(instruction, ".64") ||
              instruction.instruction_class == InstructionClass::kFp64;
  if (wide) return {*destination, *destination + 1};
  return {*destination};
}

std::vector<int> SourceRegisters(const SassInstruction& instruction) {
  std::vector<int> sources;
  std::vector<std::string_view> operands = Operands(instruction);
  for (size_t i = 1; i < operands.size(); ++i) {
    if (auto number = RegisterNumber(operands[i])) sources.push_back(*number);
  }
  return sources;
}

// ---------------------------------------------------------------------------
// Locations, with the source page's stall shares when it was collected.

double StallShareAt(const ToolContext& context, unsigned long long offset) {
  if (!context.source_page) return 0;
  double total = context.source_page->TotalStallSamples();
  if (total <= 0) return 0;
  for (const SourcePageRow& row : context.source_page->rows) {
    if (row.offset == offset) return row.stall_samples.value_or(0) / total;
  }
  return 0;
}

// The offending instructions as locations: the most-stalled first when the
// source page is present, else in program order; at most kMaxLocations.
std::vector<Location> LocationsOf(const ToolContext& context, const InstructionList& instructions) {
  std::vector<Location> locations;
  for (const SassInstruction* instruction : instructions) {
    Location location;
    location.sass_offset = instruction->offset;
    location.sass_text = SassText(*instruction);
    location.stall_share = StallShareAt(context, instruction->offset);
    locations.push_back(std::move(location));
  }
  std::stable_sort(locations.begin(), locations.end(),
                   [](const Location& a, const Location& b) { return a.stall_share > b.stall_share; });
  if (locations.size() > kMaxLocations) locations.resize(kMaxLocations);
  return locations;
}

double TotalStallShare(const std::vector<Location>& locations) {
  double total = 0;
  for (const Location& location : locations) total += location.stall_share;
  return total;
}

void AddStallShareEvidence(const ToolContext& context, Finding& finding) {
  if (!context.source_page || finding.locations.empty()) return;
  finding.evidence.push_back(MakeEvidence("stall samples at the listed SASS offsets (ncu source page)",
                                          TotalStallShare(finding.locations) * 100, "%", "", 0));
}

ThresholdDefinition Threshold(std::string name, double value, std::string unit, std::string description) {
  return ThresholdDefinition{std::move(name), value, std::move(unit), std::move(description)};
}

// ===========================================================================
// warp_divergence

struct DivergentRow {
  const SourcePageRow* row;
  double active_threads;
  double weight;
};

// The instructions where warps split: the active-thread count drops from the
// previous instruction's (ncu's "derivative" of the per-PC thread count),
// weighted by the lanes lost times the executions. Rows without a drop but
// under the threshold rank after them, by idle lanes times executions.
std::vector<DivergentRow> DivergentRows(const SourcePage& page, double threshold) {
  std::vector<DivergentRow> splits, idle;
  double previous_active = kWarpSize;
  for (const SourcePageRow& row : page.rows) {
    double executed = row.instructions_executed.value_or(0);
    if (executed <= 0 || !row.thread_instructions_executed) continue;
    double active = *row.thread_instructions_executed / executed;
    if (active < threshold && active < previous_active - 0.5)
      splits.push_back({&row, active, (previous_active - active) * executed});
    else if (active < threshold)
      idle.push_back({&row, active, (kWarpSize - active) * executed});
    previous_active = active;
  }
  auto heavier = [](const DivergentRow& a, const DivergentRow& b) { return a.weight > b.weight; };
  std::stable_sort(splits.begin(), splits.end(), heavier);
  std::stable_sort(idle.begin(), idle.end(), heavier);
  splits.insert(splits.end(), idle.begin(), idle.end());
  return splits;
}

std::vector<Location> DivergenceLocationsFromSourcePage(const ToolContext& context, double threshold) {
  std::vector<DivergentRow> rows = DivergentRows(*context.source_page, threshold);
  std::vector<Location> locations;
  double total = context.source_page->TotalStallSamples();
  for (size_t i = 0; i < rows.size() && i < kMaxLocations; ++i) {
    Location location;
    location.sass_offset = rows[i].row->offset;
    location.sass_text =
        fmt::format("{} ({:.1f} of 32 threads active)", rows[i].row->source, rows[i].active_threads);
    location.stall_share = total > 0 ? rows[i].row->stall_samples.value_or(0) / total : 0;
    locations.push_back(std::move(location));
  }
  return locations;
}

// Without per-PC thread counts: the conditional branches on per-thread
// predicates, where a warp can split (uniform predicates @UP cannot).
InstructionList DivergentBranchCandidates(const SassFunction& function) {
  return Select(MainBody(function), [](const SassInstruction& instruction) {
    bool per_thread_predicate = !instruction.predicate.empty() &&
                                instruction.predicate.find("UP") == std::string::npos &&
                                instruction.predicate.find("PT") == std::string::npos;
    return instruction.opcode == "BRA" && per_thread_predicate;
  });
}

std::vector<Recommendation> DivergenceRecommendations(double gain) {
  std::string effect =
      fmt::format("up to {:.0f}% less kernel time when every lane of a warp takes the same path", gain * 100);
  return {
      {"Make the branch condition uniform per warp: assign work so that the 32 threads of a warp take the "
       "same path (choose the case from the warp index, threadIdx.x / 32, or sort/bin the items by path "
       "before the kernel)",
       "A warp executes every path any of its lanes takes, one after the other, with the other lanes masked "
       "off",
       effect},
      {"Where the paths are short, compute them branch-free (select with a ternary or fminf/fmaxf instead of "
       "if/switch) and hoist the work common to all paths out of the branches",
       "Predicated straight-line code keeps all lanes busy and avoids the reconvergence (BSSY/BSYNC) "
       "overhead",
       "fewer issued instructions per result"},
      {"Make loop trip counts uniform within a warp (pad or partition the work so that neighbouring threads "
       "loop the same number of times)",
       "A warp stays in a loop until its slowest lane leaves it", "idle lanes no longer hold the warp"},
  };
}

std::optional<Finding> AnalyzeWarpDivergence(const ToolContext& context) {
  double threshold = context.Threshold("max_active_threads_per_instruction");
  double active = *context.Metric(kThreadsPerInstructionMetric);
  auto predicated = context.Metric(kPredicatedThreadsPerInstructionMetric);
  double useful = std::min(active, predicated.value_or(active));
  if (useful >= threshold) return std::nullopt;
  double compute_fraction = ComputeLimitedFraction(context);
  Finding finding;
  finding.title = fmt::format("Warp divergence: {:.1f} of 32 threads active per instruction", useful);
  finding.estimated_gain = (1 - useful / kWarpSize) * compute_fraction;
  finding.gain_method = fmt::format(
      "ncu ThreadDivergence model: idle-lane share (1 − {:.2f}/32) × SM throughput {:.0f}% (how "
      "compute-limited the kernel is)",
      useful, compute_fraction * 100);
  finding.evidence.push_back(
      MakeEvidence(std::string(kThreadsPerInstructionMetric), active, "thread/inst", "<", threshold));
  if (predicated) {
    finding.evidence.push_back(MakeEvidence(std::string(kPredicatedThreadsPerInstructionMetric), *predicated,
                                            "thread/inst", "<", threshold));
  }
  finding.evidence.push_back(
      MakeEvidence(std::string(kSmThroughputMetric), compute_fraction * 100, "%", "", 0));
  finding.root_cause = fmt::format(
      "Threads of the same warp take different paths, so the warp runs each path in turn with the other "
      "lanes masked off: on average only {:.1f} of 32 lanes do useful work per issued instruction. The "
      "kernel is {:.0f}% compute-limited, so the idle lanes cost time in proportion.",
      useful, compute_fraction * 100);
  finding.recommendations = DivergenceRecommendations(finding.estimated_gain);
  if (context.source_page) finding.locations = DivergenceLocationsFromSourcePage(context, threshold);
  if (finding.locations.empty() && context.sass)
    finding.locations = LocationsOf(context, DivergentBranchCandidates(*context.sass));
  AddStallShareEvidence(context, finding);
  finding.confidence = 0.6 + 0.3 * compute_fraction;
  return finding;
}

ToolDefinition WarpDivergenceTool() {
  ToolDefinition tool;
  tool.id = "warp_divergence";
  tool.title = "Warp divergence (few active threads per instruction)";
  tool.family = "compute";
  tool.required = {{InputSource::kNcuMetric, std::string(kThreadsPerInstructionMetric), false},
                   {InputSource::kNcuMetric, std::string(kPredicatedThreadsPerInstructionMetric), true},
                   {InputSource::kNcuMetric, std::string(kSmThroughputMetric), true},
                   {InputSource::kSass, "conditional branches (locations)", true},
                   {InputSource::kSourcePage, "per-PC thread instructions (locations)", true}};
  tool.thresholds = {
      Threshold("max_active_threads_per_instruction", 24, "thread/inst",
                "fires below this many active (predicated-on) threads per warp instruction; ncu's "
                "ThreadDivergence rule uses 24 of 32 (75% of the warp)")};
  tool.trigger =
      "min(threads per instruction, predicated-on threads per instruction) < "
      "max_active_threads_per_instruction";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeWarpDivergence;
  return tool;
}

// ===========================================================================
// fp32_gemm_no_tensor_cores

// FFMAs of the main body, traced to shared-memory loads: a matrix product
// multiplies two values read from shared memory (an A and a B tile element)
// and reuses each across a register tile.
struct SharedFedFfma {
  int ffma = 0;
  int shared_values_loaded = 0;  // 32-bit values loaded by LDS
  int shared_operand_reads = 0;  // FFMA multiplicand reads of those values
  InstructionList both_operands_shared;
  double Reuse() const {
    return shared_values_loaded > 0 ? double(shared_operand_reads) / shared_values_loaded : 0;
  }
};

bool PropagatesValue(const SassInstruction& instruction) {
  return instruction.instruction_class == InstructionClass::kMove ||
         instruction.instruction_class == InstructionClass::kConversion ||
         (instruction.opcode == "HADD2" && HasModifier(instruction, ".F32"));
}

void TraceFfma(const SassInstruction& instruction, const std::set<int>& shared, SharedFedFfma& facts) {
  ++facts.ffma;
  std::vector<std::string_view> operands = Operands(instruction);
  int from_shared = 0;
  for (size_t i = 1; i < operands.size() && i <= 2; ++i) {
    auto number = RegisterNumber(operands[i]);
    if (number && shared.count(*number)) ++from_shared;
  }
  facts.shared_operand_reads += from_shared;
  if (from_shared == 2) facts.both_operands_shared.push_back(&instruction);
}

SharedFedFfma TraceSharedFedFfma(const SassFunction& function) {
  SharedFedFfma facts;
  std::set<int> shared;  // registers holding a value loaded from shared memory
  for (const SassInstruction* instruction : MainBody(function)) {
    auto destination = DestinationRegister(*instruction);
    if (instruction->opcode == "LDS" && destination) {
      int values = std::max(1, instruction->access_bits / 32);
      for (int k = 0; k < values; ++k) shared.insert(*destination + k);
      facts.shared_values_loaded += values;
      continue;
    }
    if (instruction->opcode == "FFMA") TraceFfma(*instruction, shared, facts);
    std::vector<int> sources = SourceRegisters(*instruction);
    bool derived = PropagatesValue(*instruction) &&
                   std::any_of(sources.begin(), sources.end(), [&](int r) { return shared.count(r) > 0; });
    for (int written : WrittenRegisters(*instruction)) {
      if (derived)
        shared.insert(written);
      else
        shared.erase(written);
    }
  }
  return facts;
}

struct TensorPeak {
  double flops_per_second = 0;
  std::string source;
};

// The dense TF32 tensor peak: the profile's wgmma peak per cycle scaled like
// its FFMA peak, else the spec table.
TensorPeak Tf32TensorPeak(const ToolContext& context, const ComputeWork& fp32) {
  auto tf32_per_cycle = context.Metric(kTf32DensePeakMetric);
  auto ffma_per_cycle = context.Metric(kFfmaPeakMetric);
  if (tf32_per_cycle && ffma_per_cycle && *ffma_per_cycle > 0 && fp32.peak_per_second > 0) {
    return {fp32.peak_per_second * *tf32_per_cycle / (2 * *ffma_per_cycle),
            fmt::format("profile: FP32 peak × {} / (2 × {})", kTf32DensePeakMetric, kFfmaPeakMetric)};
  }
  if (context.gpu && context.gpu->tf32_tensor_flops > 0)
    return {context.gpu->tf32_tensor_flops, "spec table: " + context.gpu->name};
  return {};
}

std::vector<Recommendation> TensorCoreRecommendations(double gain, double attainable, bool hopper,
                                                      bool half_inputs) {
  std::string effect =
      fmt::format("up to {:.0f}% less kernel time (the FP32 work at {:.0f}% of the TF32 tensor peak)",
                  gain * 100, attainable * 100);
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {"Call cuBLAS (cublasGemmEx / cublasLtMatmul with CUBLAS_COMPUTE_32F_FAST_TF32, or the fp16/bf16 "
       "inputs as they are) or a CUTLASS GEMM instead of the hand-written FFMA loop",
       "Tensor cores multiply matrices at 8x (TF32) to 16x (fp16/bf16) the FP32 FMA peak", effect});
  recommendations.push_back(
      {hopper
           ? "If it must stay hand-written: use wgmma (wgmma.mma_async, sm_90a) on 64xNx16 tiles fed by TMA "
             "(cp.async.bulk.tensor) into swizzled shared memory; mma.sync (HMMA) with ldmatrix is the "
             "simpler but slower path on Hopper"
           : "If it must stay hand-written: use mma.sync (nvcuda::wmma or PTX mma.sync.m16n8k16) with "
             "ldmatrix loads from shared memory",
       "The FFMA inner product is replaced by warp-level (or warpgroup-level) matrix instructions",
       "the multiply moves from the FMA pipe to the tensor pipe; keep FP32 accumulators"});
  if (half_inputs) {
    recommendations.push_back(
        {"Feed the fp16 inputs to the tensor cores directly instead of converting them to float (HADD2.F32) "
         "before the FFMAs",
         "fp16 tensor throughput is twice TF32's, and the conversions go away",
         "a further 2x on the multiply over TF32"});
  }
  recommendations.push_back(
      {"Validate accuracy: TF32 rounds the inputs to a 10-bit mantissa (accumulation stays FP32); keep FP32 "
       "FFMA only where that is not acceptable",
       "The speedup trades input precision", "no performance effect; a correctness check"});
  return recommendations;
}

bool LooksLikeMatrixProduct(const ToolContext& context, const SharedFedFfma& facts) {
  int tensor = context.sass->Count(InstructionClass::kTensorHmma) +
               context.sass->Count(InstructionClass::kTensorWarpgroup);
  double share = facts.ffma > 0 ? double(facts.both_operands_shared.size()) / facts.ffma : 0;
  return tensor == 0 &&
         facts.both_operands_shared.size() >= context.Threshold("min_shared_fed_ffma_instructions") &&
         share >= context.Threshold("min_shared_fed_ffma_share") &&
         *context.Metric(PipeMetric("fma")) >= context.Threshold("min_fma_pipe_percent");
}

void AddTensorTimeGain(const ToolContext& context, const ComputeWork& fp32, Finding& finding) {
  TensorPeak peak = Tf32TensorPeak(context, fp32);
  double attainable = context.Threshold("attainable_tensor_efficiency");
  double duration_seconds = context.roofline.duration_ns * 1e-9;
  if (peak.flops_per_second <= 0 || duration_seconds <= 0) {
    finding.gain_method = "not estimated: no TF32 tensor peak (profile or spec table) or no duration";
    return;
  }
  double seconds_after = fp32.operations / (attainable * peak.flops_per_second);
  finding.estimated_gain = std::clamp(1 - seconds_after / duration_seconds, 0.0, 1.0);
  finding.gain_method = fmt::format(
      "time after the fix: the FP32 FLOPs at {:.0f}% of the dense TF32 tensor peak ({:.1f} TFLOP/s, {}) take "
      "{:.1f} µs of the {:.1f} µs",
      attainable * 100, peak.flops_per_second * 1e-12, peak.source, seconds_after * 1e6,
      duration_seconds * 1e6);
  finding.evidence.push_back(MakeEvidence("dense TF32 tensor peak", peak.flops_per_second, "FLOP/s", "", 0));
}

std::optional<Finding> AnalyzeFp32GemmWithoutTensorCores(const ToolContext& context) {
  SharedFedFfma facts = TraceSharedFedFfma(*context.sass);
  if (!LooksLikeMatrixProduct(context, facts)) return std::nullopt;
  const ComputeWork* fp32 = FindWork(context.roofline, "fp32");
  Finding finding;
  finding.title = "Matrix multiply on the FP32 FMA pipe, not on tensor cores";
  finding.evidence.push_back(MakeEvidence("FFMAs multiplying two shared-memory values (SASS, static)",
                                          double(facts.both_operands_shared.size()), "inst",
                                          ">=", context.Threshold("min_shared_fed_ffma_instructions")));
  finding.evidence.push_back(MakeEvidence("share of the main body's FFMAs fed by shared memory",
                                          double(facts.both_operands_shared.size()) / facts.ffma, "fraction",
                                          ">=", context.Threshold("min_shared_fed_ffma_share")));
  finding.evidence.push_back(
      MakeEvidence("FFMA reads per value loaded from shared memory (register-tile reuse)", facts.Reuse(),
                   "read/value", "", 0));
  finding.evidence.push_back(MakeEvidence("tensor instructions in SASS (HMMA/HGMMA)", 0, "inst", "==", 0));
  finding.evidence.push_back(MakeEvidence(PipeMetric("fma"), *context.Metric(PipeMetric("fma")), "%",
                                          ">=", context.Threshold("min_fma_pipe_percent")));
  for (std::string_view pipe : {"tensor_op_hmma", "tensor_op_gmma"}) {
    if (auto percent = context.Metric(PipeMetric(pipe)))
      finding.evidence.push_back(MakeEvidence(PipeMetric(pipe), *percent, "%", "", 0));
  }
  if (fp32) {
    finding.evidence.push_back(MakeEvidence("FP32 FLOP rate", fp32->achieved_per_second, "FLOP/s", "", 0));
    AddTensorTimeGain(context, *fp32, finding);
  } else {
    finding.gain_method = "not estimated: FP32 FLOP counters missing";
  }
  bool half_inputs = context.sass->opcode_counts.count("HADD2") > 0 &&
                     AnyOf(MainBody(*context.sass), [](const SassInstruction& i) {
                       return i.opcode == "HADD2" && HasModifier(i, ".F32");
                     });
  finding.root_cause = fmt::format(
      "The kernel multiplies matrices with scalar FFMAs: {} FFMAs multiply two values loaded from shared "
      "memory (each loaded value feeds {:.1f} FFMAs, an outer-product register tile) and the SASS has no "
      "tensor instruction. The FMA pipe is {:.0f}% busy doing what the tensor cores do several times faster.",
      facts.both_operands_shared.size(), facts.Reuse(), *context.Metric(PipeMetric("fma")));
  finding.recommendations =
      TensorCoreRecommendations(finding.estimated_gain, context.Threshold("attainable_tensor_efficiency"),
                                IsHopper(context), half_inputs);
  finding.locations = LocationsOf(context, facts.both_operands_shared);
  AddStallShareEvidence(context, finding);
  finding.confidence = fp32 ? 0.8 : 0.6;
  return finding;
}

ThresholdDefinition AttainableTensorEfficiency() {
  return Threshold(
      "attainable_tensor_efficiency", 0.8, "fraction",
      "share of the dense tensor peak a tuned GEMM reaches, for the time after the fix: cuBLAS bf16 GEMM "
      "measured 770-800 TFLOP/s on the H200, 78-81% of 989 (ncu_sass_gpus.md §5)");
}

ToolDefinition Fp32GemmTool() {
  ToolDefinition tool;
  tool.id = "fp32_gemm_no_tensor_cores";
  tool.title = "Matrix multiply without tensor cores (FFMA)";
  tool.family = "compute";
  tool.required = {{InputSource::kSass, "FFMA operands traced to LDS; HMMA/HGMMA count", false},
                   {InputSource::kNcuMetric, PipeMetric("fma"), false},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_hmma"), true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_gmma"), true},
                   {InputSource::kNcuMetric, std::string(kTf32DensePeakMetric), true},
                   {InputSource::kNcuMetric, std::string(kFfmaPeakMetric), true}};
  tool.thresholds = {
      Threshold(
          "min_shared_fed_ffma_instructions", 16, "inst",
          "static FFMAs whose two multiplicands both come from shared-memory loads: one unrolled k-step of a "
          "16-wide tile"),
      Threshold("min_shared_fed_ffma_share", 0.5, "fraction",
                "share of the main body's FFMAs that multiply two shared-memory values; element-wise and "
                "stencil kernels multiply by constants or global data, a tiled GEMM does it in every FFMA"),
      Threshold(
          "min_fma_pipe_percent", 20, "%",
          "FMA pipe utilisation below which the FFMAs do not limit the kernel (ncu HighPipeUtilization's "
          "'Low Utilization' boundary)"),
      AttainableTensorEfficiency()};
  tool.trigger =
      "SASS: no HMMA/HGMMA, >= min_shared_fed_ffma_instructions FFMAs multiplying two shared-memory values "
      "and >= min_shared_fed_ffma_share of all FFMAs; FMA pipe >= min_fma_pipe_percent";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeFp32GemmWithoutTensorCores;
  return tool;
}

// ===========================================================================
// hmma_on_hopper

bool IsWarpgroupCapableMma(const SassInstruction& instruction) {
  // DMMA (fp64) has no warpgroup form; HMMA and IMMA map to HGMMA and IGMMA.
  return instruction.opcode == "HMMA" || instruction.opcode == "IMMA";
}

struct TensorTime {
  double operations = 0;
  double seconds_at_attainable = 0;
  double achieved_fraction = 0;  // of the dense (wgmma) peak
};

TensorTime WarpgroupTensorTime(const ToolContext& context, double attainable) {
  TensorTime time;
  double duration_seconds = context.roofline.duration_ns * 1e-9;
  for (const ComputeWork& work : context.roofline.compute) {
    if (work.precision.rfind("tensor_", 0) != 0 || work.precision == "tensor_fp64") continue;
    if (work.peak_per_second <= 0) continue;
    time.operations += work.operations;
    time.seconds_at_attainable += work.operations / (attainable * work.peak_per_second);
    time.achieved_fraction +=
        duration_seconds > 0 ? work.operations / duration_seconds / work.peak_per_second : 0;
  }
  return time;
}

std::vector<Recommendation> WarpgroupRecommendations(double gain, double attainable) {
  return {
      {"Rewrite the main loop with wgmma (wgmma.mma_async on 64xNx16 tiles, sm_90a: build with "
       "-gencode=arch=compute_90a,code=sm_90a), or use CUTLASS 3.x / cuBLAS, which do",
       "On Hopper mma.sync (HMMA) reaches only part of the tensor peak; wgmma (HGMMA) issues per warpgroup, "
       "reads B (and A) from shared memory without register staging and runs asynchronously",
       fmt::format("up to {:.0f}% less kernel time (the tensor work at {:.0f}% of the dense wgmma peak)",
                   gain * 100, attainable * 100)},
      {"Feed the tiles with TMA (cp.async.bulk.tensor into swizzled shared memory, completing on an "
       "mbarrier) in a 2-4 stage pipeline",
       "wgmma needs its operands in shared memory ahead of time; synchronous global-to-shared copies stall "
       "it",
       "the tensor pipe is kept busy while the next tiles load"},
      {"Keep accumulators in registers across the K loop and launch warpgroups of 4 consecutive warps (128 "
       "threads per consumer)",
       "wgmma operates on a warpgroup", "required for the wgmma path"},
  };
}

std::optional<Finding> AnalyzeHmmaOnHopper(const ToolContext& context) {
  if (!IsHopper(context)) return std::nullopt;
  InstructionList all;
  for (const SassInstruction& instruction : context.sass->instructions) {
    if (Executes(instruction)) all.push_back(&instruction);
  }
  InstructionList mma = Select(all, IsWarpgroupCapableMma);
  if (mma.size() < context.Threshold("min_mma_instructions")) return std::nullopt;
  if (context.sass->Count(InstructionClass::kTensorWarpgroup) > 0) return std::nullopt;
  double attainable = context.Threshold("attainable_tensor_efficiency");
  TensorTime time = WarpgroupTensorTime(context, attainable);
  if (time.operations > 0 && time.achieved_fraction >= attainable) return std::nullopt;
  Finding finding;
  finding.title = "Tensor work on mma.sync (HMMA) on Hopper, where wgmma (HGMMA) applies";
  finding.evidence.push_back(MakeEvidence("HMMA/IMMA instructions (SASS, static)", double(mma.size()), "inst",
                                          ">=", context.Threshold("min_mma_instructions")));
  finding.evidence.push_back(
      MakeEvidence("HGMMA/QGMMA/IGMMA instructions (SASS, static)", 0, "inst", "==", 0));
  for (std::string_view pipe : {"tensor_op_hmma", "tensor_op_gmma"}) {
    if (auto percent = context.Metric(PipeMetric(pipe)))
      finding.evidence.push_back(MakeEvidence(PipeMetric(pipe), *percent, "%", "", 0));
  }
  double duration_seconds = context.roofline.duration_ns * 1e-9;
  if (time.operations > 0 && duration_seconds > 0) {
    finding.evidence.push_back(
        MakeEvidence("tensor FLOP rate", time.operations / duration_seconds, "FLOP/s", "", 0));
    finding.evidence.push_back(MakeEvidence("tensor FLOP rate / dense wgmma peak",
                                            time.achieved_fraction * 100, "%", "<", attainable * 100));
    finding.estimated_gain = std::clamp(1 - time.seconds_at_attainable / duration_seconds, 0.0, 1.0);
    finding.gain_method = fmt::format(
        "time after the fix: the tensor FLOPs at {:.0f}% of the dense wgmma peak take {:.1f} µs of the "
        "{:.1f} µs",
        attainable * 100, time.seconds_at_attainable * 1e6, duration_seconds * 1e6);
  } else {
    finding.gain_method = "not estimated: tensor FLOP counters (sm__ops_path_tensor_src_*) missing";
  }
  finding.root_cause = fmt::format(
      "The kernel runs its matrix products as mma.sync ({} HMMA/IMMA in SASS, no HGMMA) on a compute "
      "capability 9.x GPU. That Ampere-style path issues per warp from registers and reaches {:.0f}% of the "
      "dense tensor peak here; Hopper's warpgroup MMA (wgmma) is the path that reaches the peak.",
      mma.size(), time.achieved_fraction * 100);
  finding.recommendations = WarpgroupRecommendations(finding.estimated_gain, attainable);
  finding.locations = LocationsOf(context, mma);
  AddStallShareEvidence(context, finding);
  finding.confidence = time.operations > 0 ? 0.85 : 0.5;
  return finding;
}

ToolDefinition HmmaOnHopperTool() {
  ToolDefinition tool;
  tool.id = "hmma_on_hopper";
  tool.title = "HMMA (mma.sync) on Hopper where wgmma applies";
  tool.family = "compute";
  tool.required = {{InputSource::kSass, "HMMA/IMMA and HGMMA/QGMMA/IGMMA counts", false},
                   {InputSource::kNcuMetric, "sm__ops_path_tensor_src_fp16.sum", true},
                   {InputSource::kNcuMetric, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_hmma"), true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_gmma"), true}};
  tool.thresholds = {Threshold("min_mma_instructions", 1, "inst",
                               "static HMMA/IMMA instructions that show the kernel uses the mma.sync path"),
                     AttainableTensorEfficiency()};
  tool.trigger =
      "compute capability 9.x; SASS has >= min_mma_instructions HMMA/IMMA and no HGMMA/QGMMA/IGMMA; tensor "
      "FLOP rate < attainable_tensor_efficiency of the dense wgmma peak";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeHmmaOnHopper;
  return tool;
}

// ===========================================================================
// XU-pipe composition (shared by accidental_fp64, mufu_division_pressure and
// int64_index_arithmetic: each owns one kind of XU work).

bool RunsOnXuPipe(const SassInstruction& instruction) {
  const std::string& opcode = instruction.opcode;
  return opcode == "MUFU" || opcode == "F2F" || opcode == "F2I" || opcode == "I2F" || opcode == "FRND";
}

bool IsIntegerDivisionStart(const SassInstruction& instruction) {
  return instruction.opcode == "I2F" && HasModifier(instruction, ".RP");
}

bool IsFp64Conversion(const SassInstruction& instruction) {
  return (instruction.opcode == "F2F" || instruction.opcode == "I2F" || instruction.opcode == "F2I") &&
         HasModifier(instruction, "64") && !IsIntegerDivisionStart(instruction) &&
         !HasModifier(instruction, ".U64") && !HasModifier(instruction, ".S64");
}

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
XuComposition ClassifyXuWork(const SassFunction& function) {
  XuComposition composition;
  std::set<int> division_registers;
  for (const SassInstruction* instruction : MainBody(function)) {
    std::vector<int> sources = SourceRegisters(*instruction);
    bool from_division =
        std::any_of(sources.begin(), sources.end(), [&](int r) { return division_registers.count(r) > 0; });
    bool division = IsIntegerDivisionStart(*instruction) || from_division;
    if (RunsOnXuPipe(*instruction)) {
      if (division)
        composition.integer_division.push_back(instruction);
      else if (IsFp64Conversion(*instruction))
        composition.fp64_conversions.push_back(instruction);
      else if (instruction->opcode == "MUFU")
        composition.special_functions.push_back(instruction);
      else
        composition.other.push_back(instruction);
    }
    for (int written : WrittenRegisters(*instruction)) {
      if (division && instruction->opcode != "F2I")
        division_registers.insert(written);
      else
        division_registers.erase(written);
    }
  }
  return composition;
}

double Share(size_t part, size_t total) {
  return total > 0 ? double(part) / total : 0;
}

// Pipe model: time follows the busiest pipe; the gain is the drop of the
// busiest load once the fix has moved or removed work, weighted by how
// compute-limited the kernel is.
struct PipeModel {
  double busiest_before = 0;
  double busiest_after = 0;
  double gain = 0;
};

PipeModel PipeGain(const ToolContext& context, const PipeLoads& before, const PipeLoads& after) {
  PipeModel model;
  model.busiest_before = BusiestLoad(before);
  model.busiest_after = BusiestLoad(after);
  if (model.busiest_before > 0) {
    double drop = std::clamp(1 - model.busiest_after / model.busiest_before, 0.0, 1.0);
    model.gain = drop * ComputeLimitedFraction(context);
  }
  return model;
}

std::string PipeGainMethod(const ToolContext& context, const PipeModel& model, std::string_view change) {
  return fmt::format(
      "pipe model: busiest pipe {:.1f}% → {:.1f}% after {}; gain (1 − after/before) × SM throughput {:.0f}%",
      model.busiest_before, model.busiest_after, change, ComputeLimitedFraction(context) * 100);
}

// ===========================================================================
// accidental_fp64

bool IsFp64Arithmetic(const SassInstruction& instruction) {
  return instruction.opcode == "DFMA" || instruction.opcode == "DADD" || instruction.opcode == "DMUL";
}

bool IsFloatToDouble(const SassInstruction& instruction) {
  return instruction.opcode == "F2F" && HasModifier(instruction, ".F64.F32");
}

// FP64 work moves to the FMA pipe at the FP32 rate (DFMA→FFMA issue-rate
// ratio), the promotions' conversions leave the XU pipe.
PipeLoads LoadsWithoutFp64(const ToolContext& context, const PipeLoads& before, double conversion_share) {
  PipeLoads after = before;
  double fp64 = before.count("fp64") ? before.at("fp64") : 0;
  auto dfma = context.Metric(kDfmaPeakMetric);
  auto ffma = context.Metric(kFfmaPeakMetric);
  double rate_ratio = 1;  // conservative when the peaks are unknown
  if (dfma && ffma && *ffma > 0)
    rate_ratio = *dfma / *ffma;
  else if (context.gpu && context.gpu->fp32_flops > 0)
    rate_ratio = context.gpu->fp64_flops / context.gpu->fp32_flops;
  after["fp64"] = 0;
  after["fma"] = (before.count("fma") ? before.at("fma") : 0) + fp64 * rate_ratio;
  if (after.count("xu")) after["xu"] *= 1 - conversion_share;
  return after;
}

std::vector<Recommendation> Fp64Recommendations(double gain) {
  return {
      {"Write float literals (0.5f, 1.1f, 0.25f) and float variables in float code",
       "One double literal promotes the whole expression to double: F2F.F64.F32 conversions, DMUL/DFMA on "
       "the FP64 pipe, and F2F.F32.F64 back",
       fmt::format("up to {:.0f}% less kernel time with the FP64 and conversion work gone", gain * 100)},
      {"Call the float math functions (sinf, expf, sqrtf, powf, or std:: overloads on float arguments); "
       "where the accuracy allows, the intrinsics __sinf/__expf",
       "sin(x * 0.5) on a float x calls the double sin(), a long DFMA polynomial with a slow path (the stack "
       "frame ptxas reports)",
       "float math runs on the FP32 FMA pipe at twice the FP64 rate"},
      {"Compile with -Xptxas -warn-double-usage (and check cuobjdump -sass for DFMA/DMUL/F2F.F64) so that "
       "new double arithmetic is reported at build time",
       "Accidental promotion is silent in C++", "prevents regressions"},
  };
}

void AddFp64Evidence(const ToolContext& context, const InstructionList& arithmetic,
                     const InstructionList& promotions, Finding& finding) {
  finding.evidence.push_back(MakeEvidence("DFMA/DADD/DMUL in the main body (SASS, static)",
                                          double(arithmetic.size()), "inst", ">=", 1));
  finding.evidence.push_back(MakeEvidence("F2F.F64.F32 float-to-double conversions (SASS, static)",
                                          double(promotions.size()), "inst",
                                          ">=", context.Threshold("min_float_to_double_conversions")));
  finding.evidence.push_back(MakeEvidence(PipeMetric("fp64"), *context.Metric(PipeMetric("fp64")), "%",
                                          ">=", context.Threshold("min_fp64_pipe_percent")));
  const ComputeWork* fp64 = FindWork(context.roofline, "fp64");
  const ComputeWork* fp32 = FindWork(context.roofline, "fp32");
  if (fp64 && fp32 && fp64->operations + fp32->operations > 0) {
    finding.evidence.push_back(MakeEvidence("FP64 share of scalar FLOPs",
                                            100 * fp64->operations / (fp64->operations + fp32->operations),
                                            "%", "", 0));
  }
  if (auto xu = context.Metric(PipeMetric("xu")))
    finding.evidence.push_back(MakeEvidence(PipeMetric("xu"), *xu, "%", "", 0));
  if (context.ptxas && context.ptxas->stack_frame_bytes > 0) {
    finding.evidence.push_back(MakeEvidence("ptxas stack frame (double math library slow path)",
                                            double(context.ptxas->stack_frame_bytes), "byte", "", 0));
  }
}

std::optional<Finding> AnalyzeAccidentalFp64(const ToolContext& context) {
  InstructionList body = MainBody(*context.sass);
  InstructionList arithmetic = Select(body, IsFp64Arithmetic);
  InstructionList promotions = Select(body, IsFloatToDouble);
  double fp64_pipe = *context.Metric(PipeMetric("fp64"));
  if (arithmetic.empty() || promotions.size() < context.Threshold("min_float_to_double_conversions") ||
      fp64_pipe < context.Threshold("min_fp64_pipe_percent"))
    return std::nullopt;
  XuComposition xu = ClassifyXuWork(*context.sass);
  double conversion_share = Share(xu.fp64_conversions.size(), xu.Total());
  PipeLoads before = ReadPipeLoads(context);
  PipeModel model = PipeGain(context, before, LoadsWithoutFp64(context, before, conversion_share));
  Finding finding;
  finding.title = fmt::format("Accidental FP64 in float code: FP64 pipe {:.0f}% busy", fp64_pipe);
  finding.estimated_gain = model.gain;
  finding.gain_method = PipeGainMethod(
      context, model,
      fmt::format(
          "moving the FP64 work to the FMA pipe at the FP32 rate and removing the FP64 conversions ({:.0f}% "
          "of the XU instructions)",
          conversion_share * 100));
  AddFp64Evidence(context, arithmetic, promotions, finding);
  finding.root_cause = fmt::format(
      "Float values are promoted to double: the SASS converts float to double {} times (F2F.F64.F32) and "
      "does {} double-precision operations (DFMA/DADD/DMUL) in the kernel body, typically from double "
      "literals (0.5 instead of 0.5f) or double math functions (sin instead of sinf). The FP64 pipe runs at "
      "half the FP32 rate on this GPU and every conversion occupies the XU pipe.",
      promotions.size(), arithmetic.size());
  finding.recommendations = Fp64Recommendations(finding.estimated_gain);
  InstructionList offending = promotions;
  offending.insert(offending.end(), arithmetic.begin(), arithmetic.end());
  finding.locations = LocationsOf(context, offending);
  AddStallShareEvidence(context, finding);
  finding.confidence = 0.9;
  return finding;
}

ToolDefinition AccidentalFp64Tool() {
  ToolDefinition tool;
  tool.id = "accidental_fp64";
  tool.title = "Accidental FP64 in float code";
  tool.family = "compute";
  tool.required = {{InputSource::kSass, "DFMA/DADD/DMUL and F2F.F64.F32 counts", false},
                   {InputSource::kNcuMetric, PipeMetric("fp64"), false},
                   {InputSource::kNcuMetric, PipeMetric("xu"), true},
                   {InputSource::kNcuMetric, PipeMetric("fma"), true},
                   {InputSource::kNcuMetric, std::string(kDfmaPeakMetric), true},
                   {InputSource::kPtxas, "stack frame", true}};
  tool.thresholds = {
      Threshold(
          "min_fp64_pipe_percent", 15, "%",
          "FP64 pipe utilisation that makes the double work matter (ncu SOLFPRoofline flags FP64 above 15% "
          "of its peak)"),
      Threshold("min_float_to_double_conversions", 1, "inst",
                "static F2F.F64.F32 in the kernel body: float data promoted to double is the fingerprint of "
                "accidental FP64 (a double kernel loads doubles and needs no conversion)")};
  tool.trigger =
      "SASS main body has DFMA/DADD/DMUL and >= min_float_to_double_conversions F2F.F64.F32; FP64 pipe >= "
      "min_fp64_pipe_percent";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeAccidentalFp64;
  return tool;
}

// ===========================================================================
// mufu_division_pressure

// A subroutine that a call enters: what kind of slow path it is.
enum class RoutineKind { kIntegerDivision, kFloatSlowPath, kOther };

RoutineKind ClassifyRoutine(const InstructionList& routine) {
  if (AnyOf(routine, IsIntegerDivisionStart)) return RoutineKind::kIntegerDivision;
  bool float_math = AnyOf(routine, [](const SassInstruction& i) {
    return i.opcode == "MUFU" ||
           (i.opcode == "FFMA" && (HasModifier(i, ".RZ") || HasModifier(i, ".RM") || HasModifier(i, ".RP")));
  });
  return float_math ? RoutineKind::kFloatSlowPath : RoutineKind::kOther;
}

InstructionList CallsTo(const SassFunction& function, RoutineKind kind) {
  return Select(MainBody(function), [&](const SassInstruction& instruction) {
    auto target = CallTarget(instruction);
    return target && ClassifyRoutine(Subroutine(function, *target)) == kind;
  });
}

std::vector<Recommendation> SpecialFunctionRecommendations(double gain, size_t divisions, size_t slow_calls,
                                                           const std::pair<std::string, double>& next_pipe) {
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {"Issue fewer MUFU per result: hoist reciprocals out of loops and multiply (r = 1.0f / d once), fold "
       "divisions (a / b / c → a / (b * c)), use rsqrtf(x) instead of 1.0f / sqrtf(x), exp(a) * exp(b) → "
       "exp(a + b)",
       "The XU pipe that runs MUFU has 1/8 of the FMA pipe's throughput and is the busiest pipe",
       fmt::format("up to {:.0f}% less kernel time, until the next pipe ({} at {:.0f}%) limits", gain * 100,
                   next_pipe.first, next_pipe.second)});
  recommendations.push_back(
      {"Where accuracy allows, use __fdividef / __expf / __sinf, or compile with -use_fast_math (-ftz=true "
       "-prec-div=false -prec-sqrt=false)",
       fmt::format(
           "IEEE division and sqrt add Newton fix-up FFMAs and a range check (FCHK) around each MUFU and "
           "branch to a slow-path subroutine: {} IEEE divisions and {} slow-path call sites here",
           divisions, slow_calls),
       "fewer FMA-pipe instructions and no slow-path branches per division"});
  recommendations.push_back(
      {"Move part of the transcendental work to the FMA pipe: a short polynomial (e.g. exp2 by Cody-Waite "
       "range reduction and a degree-3..5 polynomial, as FlashAttention-3/4 do) for a share of the elements",
       "The FMA pipe has headroom while the XU pipe is saturated", "balances the two pipes"});
  return recommendations;
}

void AddSpecialFunctionEvidence(const ToolContext& context, const XuComposition& xu, size_t divisions,
                                size_t slow_calls, Finding& finding) {
  finding.evidence.push_back(MakeEvidence(PipeMetric("xu"), *context.Metric(PipeMetric("xu")), "%",
                                          ">=", context.Threshold("min_xu_pipe_percent")));
  finding.evidence.push_back(MakeEvidence("MUFU share of the main body's XU instructions (SASS, static)",
                                          Share(xu.special_functions.size(), xu.Total()), "fraction",
                                          ">=", context.Threshold("min_special_function_share")));
  finding.evidence.push_back(MakeEvidence("MUFU instructions in the main body (SASS, static)",
                                          double(xu.special_functions.size()), "inst", "", 0));
  finding.evidence.push_back(
      MakeEvidence("IEEE float divisions (FCHK, SASS, static)", double(divisions), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("calls to division/sqrt slow-path subroutines (SASS, static)",
                                          double(slow_calls), "inst", "", 0));
  if (auto fma = context.Metric(PipeMetric("fma")))
    finding.evidence.push_back(MakeEvidence(PipeMetric("fma"), *fma, "%", "", 0));
  if (double share = context.StallShare("mio_throttle"); share > 0) {
    finding.evidence.push_back(MakeEvidence("mio_throttle share of stalls (MUFU results return through MIO)",
                                            share * 100, "%", "", 0));
  }
}

std::optional<Finding> AnalyzeMufuPressure(const ToolContext& context) {
  double xu_percent = *context.Metric(PipeMetric("xu"));
  if (xu_percent < context.Threshold("min_xu_pipe_percent")) return std::nullopt;
  XuComposition xu = ClassifyXuWork(*context.sass);
  if (Share(xu.special_functions.size(), xu.Total()) < context.Threshold("min_special_function_share"))
    return std::nullopt;
  InstructionList body = MainBody(*context.sass);
  size_t divisions = Select(body, [](const SassInstruction& i) { return i.opcode == "FCHK"; }).size();
  InstructionList slow_calls = CallsTo(*context.sass, RoutineKind::kFloatSlowPath);
  PipeLoads before = ReadPipeLoads(context);
  std::pair<std::string, double> next_pipe = BusiestPipeExcept(before, "xu");
  PipeLoads after = before;
  after["xu"] = next_pipe.second;  // the MUFU work cut until the next pipe limits
  PipeModel model = PipeGain(context, before, after);
  Finding finding;
  finding.title = fmt::format("Special-function (MUFU) pressure: XU pipe {:.0f}% busy", xu_percent);
  finding.estimated_gain = model.gain;
  finding.gain_method =
      PipeGainMethod(context, model, "cutting MUFU work until the next busiest pipe limits");
  AddSpecialFunctionEvidence(context, xu, divisions, slow_calls.size(), finding);
  finding.root_cause = fmt::format(
      "The XU pipe, which executes MUFU (reciprocal, sqrt, exp2, sin) at 1/8 the FMA pipe's rate, is {:.0f}% "
      "busy and the busiest pipe: {} MUFU in the kernel body. {} IEEE divisions add Newton fix-up FFMAs and "
      "a range check each, and {} call sites branch to division/sqrt slow paths. The next busiest pipe ({}) "
      "is at {:.0f}%.",
      xu_percent, xu.special_functions.size(), divisions, slow_calls.size(), next_pipe.first,
      next_pipe.second);
  finding.recommendations =
      SpecialFunctionRecommendations(finding.estimated_gain, divisions, slow_calls.size(), next_pipe);
  InstructionList offending = xu.special_functions;
  offending.insert(offending.end(), slow_calls.begin(), slow_calls.end());
  finding.locations = LocationsOf(context, offending);
  AddStallShareEvidence(context, finding);
  finding.confidence = 0.75;
  return finding;
}

ToolDefinition MufuPressureTool() {
  ToolDefinition tool;
  tool.id = "mufu_division_pressure";
  tool.title = "Special-function (MUFU) and IEEE-division pressure";
  tool.family = "compute";
  tool.required = {{InputSource::kSass, "MUFU, FCHK and slow-path CALL counts", false},
                   {InputSource::kNcuMetric, PipeMetric("xu"), false},
                   {InputSource::kNcuMetric, PipeMetric("fma"), true},
                   {InputSource::kNcuMetric, PipeMetric("alu"), true}};
  tool.thresholds = {
      Threshold(
          "min_xu_pipe_percent", 60, "%",
          "XU pipe utilisation from which the pipe limits issue (ncu HighPipeUtilization: 60-80% 'High', >= "
          "80% 'Very High')"),
      Threshold("min_special_function_share", 0.5, "fraction",
                "share of the main body's XU instructions that are float MUFU; conversions belong to "
                "accidental_fp64 and integer-division reciprocals to int64_index_arithmetic")};
  tool.trigger =
      "XU pipe >= min_xu_pipe_percent and float MUFU >= min_special_function_share of the XU instructions in "
      "SASS";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeMufuPressure;
  return tool;
}

// ===========================================================================
// int64_index_arithmetic

struct IntegerDivisionFacts {
  InstructionList inline_sites;                   // I2F.*.RP in the main body: a division by a run-time value
  InstructionList call_sites;                     // CALLs of an integer division/modulo subroutine
  bool uses_64_bit = false;                       // I2F.U64.RP / I2F.S64.RP anywhere
  size_t routine_instructions = 0;                // the longest division routine called
  std::set<unsigned long long> division_offsets;  // main-body instructions of the division code
  size_t main_body_instructions = 0;
};

// The innermost BSSY..reconvergence region holding `offset` (nvcc wraps each
// division's fast and slow paths in one), as [start, end); nullopt when none.
std::optional<std::pair<unsigned long long, unsigned long long>> EnclosingRegion(const InstructionList& body,
                                                                                 unsigned long long offset) {
  std::optional<std::pair<unsigned long long, unsigned long long>> best;
  for (const SassInstruction* instruction : body) {
    if (instruction->opcode != "BSSY") continue;
    auto end = LastHexNumber(instruction->operands);
    if (!end || instruction->offset > offset || *end <= offset) continue;
    if (!best || *end - instruction->offset < best->second - best->first)
      best = {{instruction->offset, *end}};
  }
  return best;
}

bool IsIntegerDivisionWork(InstructionClass kind) {
  return kind == InstructionClass::kInteger || kind == InstructionClass::kMove ||
         kind == InstructionClass::kConversion || kind == InstructionClass::kSpecialFunction;
}

// A region is the division's own when it holds nothing but integer, move,
// conversion, MUFU, constant-load and control work (no memory or FP math).
bool IsDivisionOnlyRegion(const InstructionList& body, unsigned long long start, unsigned long long end) {
  return std::all_of(body.begin(), body.end(), [&](const SassInstruction* instruction) {
    if (instruction->offset < start || instruction->offset >= end) return true;
    InstructionClass kind = instruction->instruction_class;
    return IsIntegerDivisionWork(kind) || kind == InstructionClass::kBranch ||
           kind == InstructionClass::kConstantLoad || kind == InstructionClass::kOther;
  });
}

// Without a region: the division sequence is the integer and conversion work
// that follows the reciprocal's start.
void MarkDivisionSequence(const InstructionList& body, size_t start, std::set<unsigned long long>& offsets) {
  for (size_t i = start; i < body.size(); ++i) {
    if (!IsIntegerDivisionWork(body[i]->instruction_class) && i > start) break;
    offsets.insert(body[i]->offset);
  }
}

void MarkDivisionCode(const InstructionList& body, IntegerDivisionFacts& facts) {
  InstructionList sites = facts.inline_sites;
  sites.insert(sites.end(), facts.call_sites.begin(), facts.call_sites.end());
  for (const SassInstruction* site : sites) {
    auto region = EnclosingRegion(body, site->offset);
    if (region && IsDivisionOnlyRegion(body, region->first, region->second)) {
      for (const SassInstruction* instruction : body) {
        if (instruction->offset >= region->first && instruction->offset < region->second)
          facts.division_offsets.insert(instruction->offset);
      }
      continue;
    }
    size_t index = std::find(body.begin(), body.end(), site) - body.begin();
    MarkDivisionSequence(body, index, facts.division_offsets);
  }
}

IntegerDivisionFacts FindIntegerDivisions(const SassFunction& function) {
  IntegerDivisionFacts facts;
  InstructionList body = MainBody(function);
  facts.main_body_instructions = body.size();
  facts.inline_sites = Select(body, IsIntegerDivisionStart);
  facts.call_sites = CallsTo(function, RoutineKind::kIntegerDivision);
  for (const SassInstruction* call : facts.call_sites) {
    size_t length = Subroutine(function, *CallTarget(*call)).size();
    facts.routine_instructions = std::max(facts.routine_instructions, length);
  }
  facts.uses_64_bit =
      std::any_of(function.instructions.begin(), function.instructions.end(), [](const SassInstruction& i) {
        return IsIntegerDivisionStart(i) && (HasModifier(i, ".U64") || HasModifier(i, ".S64"));
      });
  MarkDivisionCode(body, facts);
  return facts;
}

// The division code's share of the work: of executed instructions when the
// source page has per-PC counts, else of the main body's static instructions.
std::pair<double, std::string> DivisionShare(const ToolContext& context, const IntegerDivisionFacts& facts) {
  if (context.source_page) {
    double division = 0, total = 0;
    for (const SourcePageRow& row : context.source_page->rows) {
      double executed = row.instructions_executed.value_or(0);
      total += executed;
      if (facts.division_offsets.count(row.offset)) division += executed;
    }
    if (total > 0) return {division / total, "executed instructions (ncu source page)"};
  }
  return {Share(facts.division_offsets.size(), facts.main_body_instructions),
          "static main-body instructions (SASS)"};
}

std::vector<Recommendation> IndexArithmeticRecommendations(double gain, const IntegerDivisionFacts& facts) {
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {"Take the division out of the index math: launch a multi-dimensional grid (blockIdx.y/z carry the "
       "outer indices) or loop over the outer dimensions, and for run-time divisors precompute magic-number "
       "multipliers on the host (multiply-high and shift, e.g. cutlass::FastDivmod)",
       "Each division by a run-time value costs I2F, MUFU.RCP, F2I and a dozen IMAD/ISETP fix-ups on the XU "
       "and integer pipes; a magic-number division is two or three IMADs",
       fmt::format("up to {:.0f}% less kernel time with the division code gone", gain * 100)});
  if (facts.uses_64_bit) {
    recommendations.push_back(
        {"Index with 32-bit integers (int/unsigned) when the extents fit, checked once on the host (N*C*H*W "
         "< 2^31)",
         facts.call_sites.empty()
             ? std::string("A 64-bit division works on register pairs: twice the IMADs of a 32-bit one, plus "
                           "carries")
             : fmt::format("A 64-bit division or modulo is a run-time operand check, an inline 32-bit path "
                           "and a call of a {}-instruction subroutine ({} call sites here)",
                           facts.routine_instructions, facts.call_sites.size()),
         "removes the checks, the call setup and the 64-bit routine; fewer registers"});
  }
  recommendations.push_back(
      {"Avoid % and / in inner loops: carry the coordinates incrementally (++w; if (w == W) { w = 0; ++h; })",
       "Increments and compares replace a division per iteration", "removes the division from the loop"});
  return recommendations;
}

std::string IndexArithmeticCause(const IntegerDivisionFacts& facts, double share, double compute_fraction) {
  std::string sites =
      facts.uses_64_bit && !facts.call_sites.empty()
          ? fmt::format(
                "{} divisions or modulos of 64-bit values, each compiled as a run-time check that takes an "
                "inline 32-bit sequence (I2F.RP → MUFU.RCP → F2I plus IMAD/ISETP fix-ups; {} in SASS) when "
                "both operands fit in 32 bits and else calls a 64-bit routine ({} call sites)",
                std::max(facts.inline_sites.size(), facts.call_sites.size()), facts.inline_sites.size(),
                facts.call_sites.size())
          : fmt::format(
                "{} inline division sequences (I2F.RP → MUFU.RCP → F2I plus IMAD/ISETP fix-ups) and {} calls "
                "of a division routine",
                facts.inline_sites.size(), facts.call_sites.size());
  return fmt::format(
      "Index math divides by run-time values: {}. The division code is {:.0f}% of the kernel's instructions, "
      "in a kernel that is {:.0f}% compute-limited while doing almost no floating-point work: the SM spends "
      "its issue slots computing addresses.",
      sites, share * 100, compute_fraction * 100);
}

void AddIndexArithmeticEvidence(const ToolContext& context, const IntegerDivisionFacts& facts, double share,
                                const std::string& share_basis, Finding& finding) {
  finding.evidence.push_back(MakeEvidence("integer divisions by run-time values (I2F.RP sequences, SASS)",
                                          double(facts.inline_sites.size()), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("calls of integer division/modulo subroutines (SASS)",
                                          double(facts.call_sites.size()), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("division code share of " + share_basis, share * 100, "%",
                                          ">=", context.Threshold("min_division_share") * 100));
  finding.evidence.push_back(MakeEvidence(std::string(kSmThroughputMetric),
                                          ComputeLimitedFraction(context) * 100, "%",
                                          ">=", context.Threshold("min_sm_throughput_percent")));
  for (std::string_view pipe : {"xu", "alu", "fma"}) {
    if (auto percent = context.Metric(PipeMetric(pipe)))
      finding.evidence.push_back(MakeEvidence(PipeMetric(pipe), *percent, "%", "", 0));
  }
  if (const ComputeWork* fp32 = FindWork(context.roofline, "fp32"))
    finding.evidence.push_back(MakeEvidence("FP32 FLOP rate / peak", fp32->percent_of_peak, "%", "", 0));
}

// The division sites; with the source page, every instruction of the division
// code, so that the most-stalled ones come first.
InstructionList DivisionLocations(const ToolContext& context, const IntegerDivisionFacts& facts) {
  if (context.source_page) {
    return Select(MainBody(*context.sass), [&](const SassInstruction& instruction) {
      return facts.division_offsets.count(instruction.offset) > 0;
    });
  }
  InstructionList sites = facts.call_sites;
  sites.insert(sites.end(), facts.inline_sites.begin(), facts.inline_sites.end());
  return sites;
}

void AddDivisionStallEvidence(const ToolContext& context, const IntegerDivisionFacts& facts,
                              Finding& finding) {
  if (!context.source_page) return;
  double total = context.source_page->TotalStallSamples();
  double division = 0;
  for (const SourcePageRow& row : context.source_page->rows) {
    if (facts.division_offsets.count(row.offset)) division += row.stall_samples.value_or(0);
  }
  if (total > 0) {
    finding.evidence.push_back(MakeEvidence("stall samples in the division code (ncu source page)",
                                            100 * division / total, "%", "", 0));
  }
}

std::optional<Finding> AnalyzeIndexArithmetic(const ToolContext& context) {
  IntegerDivisionFacts facts = FindIntegerDivisions(*context.sass);
  size_t sites = facts.inline_sites.size() + facts.call_sites.size();
  if (sites < context.Threshold("min_integer_divisions")) return std::nullopt;
  double compute_fraction = ComputeLimitedFraction(context);
  if (compute_fraction * 100 < context.Threshold("min_sm_throughput_percent")) return std::nullopt;
  auto [share, share_basis] = DivisionShare(context, facts);
  if (share < context.Threshold("min_division_share")) return std::nullopt;
  Finding finding;
  finding.title =
      fmt::format("{}integer division and modulo in index arithmetic ({:.0f}% of the instructions)",
                  facts.uses_64_bit ? "64-bit " : "", share * 100);
  finding.estimated_gain = share * compute_fraction;
  finding.gain_method = fmt::format("division code share of {} {:.0f}% × SM throughput {:.0f}%", share_basis,
                                    share * 100, compute_fraction * 100);
  AddIndexArithmeticEvidence(context, facts, share, share_basis, finding);
  finding.root_cause = IndexArithmeticCause(facts, share, compute_fraction);
  finding.recommendations = IndexArithmeticRecommendations(finding.estimated_gain, facts);
  finding.locations = LocationsOf(context, DivisionLocations(context, facts));
  AddDivisionStallEvidence(context, facts, finding);
  finding.confidence = facts.uses_64_bit ? 0.8 : 0.7;
  return finding;
}

ToolDefinition IndexArithmeticTool() {
  ToolDefinition tool;
  tool.id = "int64_index_arithmetic";
  tool.title = "Integer (64-bit) division and modulo in index arithmetic";
  tool.family = "compute";
  tool.required = {{InputSource::kSass, "I2F.RP sequences, integer-division subroutine calls", false},
                   {InputSource::kNcuMetric, std::string(kSmThroughputMetric), false},
                   {InputSource::kNcuMetric, PipeMetric("xu"), true},
                   {InputSource::kNcuMetric, PipeMetric("alu"), true},
                   {InputSource::kSourcePage, "instructions executed per PC", true}};
  tool.thresholds = {
      Threshold(
          "min_integer_divisions", 1, "inst",
          "division sites (inline I2F.RP reciprocal sequences or calls of a division routine) in the body"),
      Threshold("min_sm_throughput_percent", 60, "%",
                "SM throughput from which compute-side work bounds the kernel (ncu SpeedOfLight's 60% bound, "
                "RooflineOptions::bound_percent)"),
      Threshold("min_division_share", 0.1, "fraction",
                "share of the instructions in division code below which the division is not worth a rewrite "
                "(under 10% of the issue slots, the gain would be at most 'minor')")};
  tool.trigger =
      ">= min_integer_divisions division sites in SASS; SM throughput >= min_sm_throughput_percent; division "
      "code >= min_division_share of the instructions";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeIndexArithmetic;
  return tool;
}

}  // namespace

std::vector<ToolDefinition> ComputeTools() {
  return {WarpDivergenceTool(), Fp32GemmTool(),     HmmaOnHopperTool(),
          AccidentalFp64Tool(), MufuPressureTool(), IndexArithmeticTool()};
}

}  // namespace kopt
