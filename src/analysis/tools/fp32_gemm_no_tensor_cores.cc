// fp32_gemm_no_tensor_cores: a matrix product on the SIMT FMA pipe (FFMAs, or
// packed HFMA2 on fp16 data, fed from shared memory, no HMMA/HGMMA): the time
// the tensor path (TF32 for float, fp16 for half data) would take.
//
// What makes an FMA loop a matrix product and not any other FMA-heavy loop
// (an all-pairs n-body force, a mixture likelihood): its inner loop is the
// multiply-add and the operand loads only. A product issues no special
// functions (MUFU on the XU pipe) per multiply-add; an all-pairs interaction
// computes a sqrt/division/exp per pair and keeps the XU pipe as busy as the
// FMA pipe. The XU load relative to the FMA load (max_xu_to_fma_pipe_ratio)
// separates them on both paths (SASS trace and metric signature).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/pipe_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

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

// A SIMT multiply-add of the product: FFMA, or HFMA2 on packed halves. HFMA2.MMA
// with a zero register multiplicand is the compiler's constant materialisation, not work.
bool IsSimtFma(const SassInstruction& instruction) {
  if (instruction.opcode == "FFMA") return true;
  if (instruction.opcode != "HFMA2") return false;
  std::vector<std::string_view> operands = Operands(instruction);
  for (size_t i = 1; i < operands.size() && i <= 2; ++i) {
    std::string_view operand = operands[i];
    while (!operand.empty() && operand.front() == '-') operand.remove_prefix(1);
    if (operand.rfind("RZ", 0) == 0) return false;
  }
  return true;
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
    if (IsSimtFma(*instruction)) TraceFfma(*instruction, shared, facts);
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
        {"Feed the fp16 inputs to the tensor cores directly instead of multiplying them with HFMA2 or "
         "converting them to float (HADD2.F32) before the FFMAs",
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
  // Packed-fp16 work runs at the fp16 dense tensor peak, twice TF32's (Hopper, Ampere: 989 vs 495 TFLOP/s).
  const ComputeWork* fp16 = FindWork(context.roofline, "fp16");
  double half_operations = fp16 ? fp16->operations : 0;
  double seconds_after = fp32.operations / (attainable * peak.flops_per_second) +
                         half_operations / (attainable * 2 * peak.flops_per_second);
  finding.estimated_gain = std::clamp(1 - seconds_after / duration_seconds, 0.0, 1.0);
  finding.gain_method = fmt::format(
      "time after the fix: the FP32 FLOPs at {:.0f}% of the dense TF32 tensor peak ({:.1f} TFLOP/s, {}){} "
      "take "
      "{:.1f} µs of the {:.1f} µs",
      attainable * 100, peak.flops_per_second * 1e-12, peak.source,
      half_operations > 0 ? " and the FP16 FLOPs at the same share of twice that peak (fp16 inputs)" : "",
      seconds_after * 1e6, duration_seconds * 1e6);
  finding.evidence.push_back(MakeEvidence("dense TF32 tensor peak", peak.flops_per_second, "FLOP/s", "", 0));
}

// The matrix-product signature in the raw page, for GEMMs the SASS trace does
// not see (operands straight from global memory, or no listing): FFMA is the
// floating-point work, the tensor pipes are idle, each DRAM byte feeds many
// FLOPs (operand reuse across the tile) and the FFMAs still load an operand
// every few instructions (register-resident arithmetic loads once per
// thousands).
std::string ProductTitle(bool half) {
  return half ? "Matrix multiply on the SIMT FMA pipe (HFMA2 on fp16 data), not on tensor cores"
              : "Matrix multiply on the FP32 FMA pipe, not on tensor cores";
}

struct GemmSignature {
  bool half = false;  // HFMA2 is most of the multiply-adds
  double ffma_share = 0, loads_per_ffma = 0, stores_per_ffma = 0, flop_per_dram_byte = 0, tensor_percent = 0;
  double ffma_instruction_share = 0;  // FFMA (+ HFMA2) warp instructions over all issued warp instructions
};

// The SIMT FP work a tensor core would take over: FP32 and packed-FP16 operations.
double SimtProductOperations(const ToolContext& context) {
  double operations = 0;
  for (std::string_view precision : {"fp32", "fp16"}) {
    if (const ComputeWork* work = FindWork(context.roofline, precision)) operations += work->operations;
  }
  return operations;
}

// HADD2.F32 Rd, -RZ, Rs.H0_H0: Hopper's fp16-to-fp32 conversion (what
// __half2float compiles to), counted by ncu as a half add.
bool IsHalfToFloatConversion(const SassInstruction& instruction) {
  if (instruction.opcode != "HADD2" || !HasModifier(instruction, ".F32")) return false;
  std::vector<std::string_view> operands = Operands(instruction);
  return operands.size() >= 2 && (operands[1] == "-RZ" || operands[1] == "RZ");
}

// The half adds that convert the FFMAs' fp16 operands to fp32, in warp
// instructions: with a listing, when every half add of the main body is such a
// conversion; without one, when the half adds are alone (no half multiply or
// multiply-add beside them: no half arithmetic) and at most
// max_conversions_per_ffma per FFMA (each FFMA converts at most its two
// multiplicands). Zero otherwise.
double HalfOperandConversions(const ToolContext& context, std::optional<double> ffma, double threads) {
  auto hadd = FpThreadInstructions(context, "hadd");
  if (!hadd || *hadd <= 0 || !ffma || *ffma <= 0) return 0;
  if (context.sass) {
    InstructionList body = MainBody(*context.sass);
    bool any = AnyOf(body, [](const SassInstruction& i) { return i.opcode == "HADD2"; });
    bool all_conversions = !AnyOf(
        body, [](const SassInstruction& i) { return i.opcode == "HADD2" && !IsHalfToFloatConversion(i); });
    if (!any || !all_conversions) return 0;
  } else {
    double half_arithmetic =
        FpThreadInstructions(context, "hmul").value_or(0) + FpThreadInstructions(context, "hfma").value_or(0);
    if (half_arithmetic > context.Threshold("max_half_arithmetic_per_conversion") * *hadd ||
        *hadd > context.Threshold("max_conversions_per_ffma") * *ffma)
      return 0;
  }
  return *hadd / (threads > 0 ? threads : kWarpSize);
}

std::optional<GemmSignature> MetricGemmSignature(const ToolContext& context) {
  InstructionMix mix = ReadInstructionMix(context);
  // FFMA, or HFMA2 (packed halves) when the half multiply-adds are the FP work of a half product.
  auto ffma = FpThreadInstructions(context, "ffma");
  auto hfma = FpThreadInstructions(context, "hfma");
  // With a listing whose only HFMA2 are constant moves (HFMA2.MMA R, -RZ, RZ, ...), they are no work.
  if (context.sass && !AnyOf(MainBody(*context.sass),
                             [](const SassInstruction& i) { return i.opcode == "HFMA2" && IsSimtFma(i); }))
    hfma.reset();
  const ComputeWork* fp32 = FindWork(context.roofline, "fp32");
  double fma_thread = ffma.value_or(0) + hfma.value_or(0);
  if (!mix.valid || fma_thread <= 0 || !fp32) return std::nullopt;
  double threads = MetricOr(context, kThreadsPerInstructionMetric, kWarpSize);
  double ffma_warp = fma_thread / (threads > 0 ? threads : kWarpSize);
  double loads = MetricOr(context, "smsp__sass_inst_executed_op_global_ld.sum", 0) +
                 MetricOr(context, "smsp__sass_inst_executed_op_shared_ld.sum", 0) +
                 MetricOr(context, "smsp__inst_executed_op_ldsm.sum", 0);
  double stores = MetricOr(context, "smsp__sass_inst_executed_op_global_st.sum", 0) +
                  MetricOr(context, "smsp__sass_inst_executed_op_shared_st.sum", 0);
  double dram = MetricOr(context, "dram__bytes_read.sum", 0) + MetricOr(context, "dram__bytes_write.sum", 0);
  GemmSignature signature;
  signature.half = hfma.value_or(0) > ffma.value_or(0);
  // fp16 operands converted to fp32 before each FFMA are no FP work of their own.
  double conversions = signature.half ? 0 : HalfOperandConversions(context, ffma, threads);
  signature.ffma_share = SafeRatio(ffma_warp, mix.fp - std::min(conversions, mix.fp - ffma_warp));
  signature.ffma_instruction_share = SafeRatio(ffma_warp, mix.total);
  signature.loads_per_ffma = SafeRatio(loads, ffma_warp);
  signature.stores_per_ffma = SafeRatio(stores, ffma_warp);
  signature.flop_per_dram_byte = dram > 0 ? SimtProductOperations(context) / dram : 0;
  for (std::string_view pipe : {"tensor_op_hmma", "tensor_op_gmma"})
    signature.tensor_percent = std::max(signature.tensor_percent, MetricOr(context, PipeMetric(pipe), 0));
  if (signature.ffma_share < context.Threshold("min_ffma_share") ||
      signature.ffma_instruction_share < context.Threshold("min_ffma_instruction_share") ||
      signature.loads_per_ffma < context.Threshold("min_loads_per_ffma") ||
      signature.stores_per_ffma > context.Threshold("max_stores_per_ffma") ||
      (signature.stores_per_ffma > 0 &&
       signature.loads_per_ffma / signature.stores_per_ffma < context.Threshold("min_loads_per_store")) ||
      signature.flop_per_dram_byte < context.Threshold("min_flop_per_dram_byte") ||
      signature.tensor_percent >= context.Threshold("max_tensor_pipe_percent"))
    return std::nullopt;  // (no FMA-pipe bound: a naive product is limited by its loads, not its FFMAs)
  return signature;
}

// The XU pipe's load over the FMA pipe's (both % of their own peaks); nullopt without the FMA pipe.
std::optional<double> XuToFmaRatio(const ToolContext& context) {
  auto fma = context.Metric(PipeMetric("fma"));
  if (!fma || *fma <= 0) return std::nullopt;
  return context.Metric(PipeMetric("xu")).value_or(0) / *fma;
}

// An inner loop that issues special functions next to its multiply-adds is no product (see the top).
bool IssuesSpecialFunctionsPerFma(const ToolContext& context) {
  auto ratio = XuToFmaRatio(context);
  return ratio && *ratio > context.Threshold("max_xu_to_fma_pipe_ratio");
}

std::optional<Finding> AnalyzeFromMetricSignature(const ToolContext& context) {
  if (context.sass && context.sass->Count(InstructionClass::kTensorHmma) +
                              context.sass->Count(InstructionClass::kTensorWarpgroup) >
                          0)
    return std::nullopt;
  auto signature = MetricGemmSignature(context);
  if (!signature) return std::nullopt;
  const ComputeWork* fp32 = FindWork(context.roofline, "fp32");
  Finding finding;
  finding.title = ProductTitle(signature->half);
  finding.evidence.push_back(MakeEvidence("FFMA share of the floating-point instructions",
                                          signature->ffma_share * 100, "%",
                                          ">=", context.Threshold("min_ffma_share") * 100));
  finding.evidence.push_back(MakeEvidence("FFMA share of all issued instructions",
                                          signature->ffma_instruction_share * 100, "%",
                                          ">=", context.Threshold("min_ffma_instruction_share") * 100));
  finding.evidence.push_back(MakeEvidence("global/shared load instructions per FFMA",
                                          signature->loads_per_ffma, "inst/inst",
                                          ">=", context.Threshold("min_loads_per_ffma")));
  finding.evidence.push_back(MakeEvidence("global/shared store instructions per FFMA",
                                          signature->stores_per_ffma, "inst/inst",
                                          "<=", context.Threshold("max_stores_per_ffma")));
  finding.evidence.push_back(MakeEvidence("FP32 FLOP per DRAM byte (operand reuse)",
                                          signature->flop_per_dram_byte, "FLOP/byte",
                                          ">=", context.Threshold("min_flop_per_dram_byte")));
  finding.evidence.push_back(MakeEvidence("tensor pipes (HMMA/GMMA)", signature->tensor_percent, "%", "<",
                                          context.Threshold("max_tensor_pipe_percent")));
  finding.evidence.push_back(MakeEvidence(PipeMetric("fma"), *context.Metric(PipeMetric("fma")), "%", "", 0));
  finding.evidence.push_back(MakeEvidence("FP32 FLOP rate", fp32->achieved_per_second, "FLOP/s", "", 0));
  AddTensorTimeGain(context, *fp32, finding);
  finding.root_cause = fmt::format(
      "The kernel's arithmetic is FFMA ({:.0f}% of its floating-point instructions) on operands it loads "
      "every "
      "{:.0f} FFMAs and reuses heavily ({:.0f} FLOP per DRAM byte), with the tensor pipes idle: the "
      "signature of "
      "a matrix product (GEMM, or a convolution as one) done with scalar FMAs. Tensor cores do this work "
      "several "
      "times faster.",
      signature->ffma_share * 100, 1 / std::max(signature->loads_per_ffma, 1e-9),
      signature->flop_per_dram_byte);
  finding.recommendations =
      TensorCoreRecommendations(finding.estimated_gain, context.Threshold("attainable_tensor_efficiency"),
                                IsHopper(context), signature->half);
  finding.confidence = 0.65;
  return finding;
}

std::optional<Finding> AnalyzeFp32GemmWithoutTensorCores(const ToolContext& context) {
  if (IssuesSpecialFunctionsPerFma(context)) return std::nullopt;
  if (!context.sass) return AnalyzeFromMetricSignature(context);
  SharedFedFfma facts = TraceSharedFedFfma(*context.sass);
  if (!LooksLikeMatrixProduct(context, facts)) return AnalyzeFromMetricSignature(context);
  const ComputeWork* fp32 = FindWork(context.roofline, "fp32");
  bool half_inputs = AnyOf(MainBody(*context.sass), [](const SassInstruction& i) {
    return (i.opcode == "HADD2" && HasModifier(i, ".F32")) || (i.opcode == "HFMA2" && IsSimtFma(i));
  });
  Finding finding;
  finding.title = ProductTitle(half_inputs);
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

}  // namespace

// Over 80 lines by design: the tool's declaration (inputs, thresholds, moves), one field per line.
ToolDefinition Fp32GemmNoTensorCoresTool() {
  ToolDefinition tool;
  tool.id = "fp32_gemm_no_tensor_cores";
  tool.title = "Matrix multiply without tensor cores (FFMA)";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.relevant_classes = EveryBottleneckClass();
  tool.required = {{InputSource::kSass, "FFMA operands traced to LDS; HMMA/HGMMA count", true},
                   {InputSource::kNcuMetric, PipeMetric("fma"), false},
                   {InputSource::kNcuMetric, PipeMetric("xu"), true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_hmma"), true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_gmma"), true},
                   {InputSource::kNcuMetric, std::string(kTf32DensePeakMetric), true},
                   {InputSource::kNcuMetric, std::string(kFfmaPeakMetric), true}};
  tool.thresholds = {
      MakeThreshold(
          "min_shared_fed_ffma_instructions", 16, "inst",
          "static FFMAs whose two multiplicands both come from shared-memory loads: one unrolled k-step of a "
          "16-wide tile"),
      MakeThreshold(
          "min_shared_fed_ffma_share", 0.5, "fraction",
          "share of the main body's FFMAs that multiply two shared-memory values; element-wise and "
          "stencil kernels multiply by constants or global data, a tiled GEMM does it in every FFMA"),
      MakeThreshold(
          "min_fma_pipe_percent", 20, "%",
          "FMA pipe utilisation below which the FFMAs do not limit the kernel (ncu HighPipeUtilization's "
          "'Low Utilization' boundary)"),
      AttainableTensorEfficiency(),
      MakeThreshold(
          "min_ffma_share", 0.5, "fraction",
          "metric signature: FFMA share of the floating-point instructions (a product's inner loop is "
          "FFMAs; its epilogue adds few others); half adds that only convert the FFMAs' fp16 operands to "
          "fp32 (HADD2.F32 Rd, -RZ, Rs: Hopper's __half2float) are not counted as FP instructions"),
      MakeThreshold(
          "min_ffma_instruction_share", 0.1, "fraction",
          "metric signature: FFMA (+ HFMA2) warp instructions over all issued warp instructions. A product's "
          "k-loop is its multiply-adds, their operand loads and a few address increments: a naive product "
          "issues about one FFMA per 3-4 instructions, 1 per 7.5 with fp16/bf16 operand conversions (the "
          "fixtures' products: 0.13-0.90); a loop that issues ten or more other instructions per FFMA (an "
          "integer RNG, table lookups and compares around an accumulate: MCMC at 0.077) is not a product"),
      MakeThreshold(
          "max_conversions_per_ffma", 2.1, "inst/inst",
          "metric signature without a listing: half adds per FFMA up to which they are read as the "
          "conversions of its fp16 operands (two multiplicands per FFMA, and a few epilogue conversions)"),
      MakeThreshold(
          "max_half_arithmetic_per_conversion", 0.01, "inst/inst",
          "metric signature without a listing: half multiplies and multiply-adds per half add up to which "
          "the half adds are conversions, not half arithmetic (the HFMA2.MMA constant moves stay far below)"),
      MakeThreshold(
          "min_loads_per_ffma", 0.02, "inst/inst",
          "metric signature: global/shared/ldmatrix load instructions per FFMA from which the FFMAs "
          "consume loaded operands (a naive GEMM loads 2 per FFMA, an 8x8 register tile with 128-bit "
          "shared loads 1 per 16; register-resident iterations load once per thousands)"),
      MakeThreshold(
          "max_stores_per_ffma", 0.15, "inst/inst",
          "metric signature: global/shared store instructions per FFMA up to which the FFMAs accumulate "
          "(a product stores each result after K >= 16 multiply-adds and stages its TWO operand tiles with "
          "one shared store each per thread per k-step of >= 16 FFMAs: 2/16 = 0.125 for the textbook "
          "16x16 tile with one output per thread); kernels that store or exchange values every few FFMAs "
          "are not products"),
      MakeThreshold(
          "min_loads_per_store", 3, "inst/inst",
          "metric signature: load over store instructions from which staged operands are reused: each value "
          "a product stages in shared memory (one store) is read by every thread of its output row or "
          "column (the fixtures' products: 5-11 loads per store, even with 128-bit reads); a kernel that "
          "loads about what it stores (a staged stencil, scan or element-wise pass) is not a product"),
      MakeThreshold("min_flop_per_dram_byte", 8, "FLOP/byte",
                    "metric signature: FP32 FLOP per DRAM byte from which loaded operands are reused across "
                    "many multiplies (element-wise and stencil kernels stay below ~2)"),
      MakeThreshold("max_tensor_pipe_percent", 1, "%",
                    "metric signature: tensor pipe utilisation below which no tensor-core code runs"),
      MakeThreshold(
          "max_xu_to_fma_pipe_ratio", 0.25, "ratio",
          "both paths: XU pipe % over FMA pipe % above which the FMA loop computes a special function per "
          "few multiply-adds (an all-pairs force with sqrt and division, a likelihood with exp): not a "
          "product. The XU pipe takes 1/8 of the FMA pipe's rate, so the ratio is 8 × MUFU per FMA; a "
          "product's epilogue activation (one MUFU per output, K >= 32 FMAs) stays <= 0.25")};
  for (std::string& name : InstructionMixMetrics()) tool.required.push_back(NcuMetric(name, true));
  tool.trigger =
      "XU pipe <= max_xu_to_fma_pipe_ratio × FMA pipe (no special function per few FMAs), and: "
      "SASS: no HMMA/HGMMA, >= min_shared_fed_ffma_instructions FFMAs (or HFMA2) multiplying two "
      "shared-memory values "
      "and >= min_shared_fed_ffma_share of all FFMAs; FMA pipe >= min_fma_pipe_percent. Otherwise (no SASS, "
      "or "
      "operands not from shared memory) the metric signature: FFMA + HFMA >= min_ffma_share of the FP "
      "instructions and >= min_ffma_instruction_share of all instructions, "
      ">= min_loads_per_ffma loads and <= max_stores_per_ffma stores per FFMA, >= min_loads_per_store loads "
      "per "
      "store, >= min_flop_per_dram_byte, "
      "tensor pipes < "
      "max_tensor_pipe_percent";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeFp32GemmWithoutTensorCores;
  return tool;
}

}  // namespace kopt
