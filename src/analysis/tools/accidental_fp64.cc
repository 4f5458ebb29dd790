// accidental_fp64: FP64 work in a float kernel (double literals, promotions,
// double math calls) on the slow FP64 pipe: the pipe model's gain without it.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/energy_analysis.h"
#include "analysis/pipe_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

bool IsFp64Arithmetic(const SassInstruction& instruction) {
  return instruction.opcode == "DFMA" || instruction.opcode == "DADD" || instruction.opcode == "DMUL";
}

bool IsFloatToDouble(const SassInstruction& instruction) {
  return instruction.opcode == "F2F" && HasModifier(instruction, ".F64.F32");
}

// FP64 work moves to the FMA pipe at the FP32 rate (DFMA→FFMA issue-rate
// ratio), the promotions' conversions leave the XU pipe.
// The FP64 rate over the FP32 rate (DFMA/FFMA peaks, else the GPU's FLOP rates; 1 when unknown).
double Fp64RateRatio(const ToolContext& context) {
  auto dfma = context.Metric(kDfmaPeakMetric);
  auto ffma = context.Metric(kFfmaPeakMetric);
  if (dfma && ffma && *dfma > 0 && *ffma > 0) return *dfma / *ffma;
  if (context.gpu && context.gpu->fp32_flops > 0 && context.gpu->fp64_flops > 0)
    return context.gpu->fp64_flops / context.gpu->fp32_flops;
  return 1;  // conservative when the peaks are unknown
}

PipeLoads LoadsWithoutFp64(const ToolContext& context, const PipeLoads& before, double conversion_share) {
  PipeLoads after = before;
  double fp64 = before.count("fp64") ? before.at("fp64") : 0;
  double rate_ratio = Fp64RateRatio(context);
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

// The FP64 pipe load from which the double work matters: min_fp64_pipe_percent,
// scaled to the issue rate in a latency-bound kernel (PipeBarScaleForIssueRate:
// at 30% issue active, 4.5% FP64 pipe is the same share of the issued work as
// 15% at full issue). No kernel without FP64 work runs the FP64 pipe: the
// captured non-FP64 kernels show under 0.1%, cuBLAS DGEMM's DMMA included.
double Fp64PipeFloor(const ToolContext& context) {
  return context.Threshold("min_fp64_pipe_percent") * PipeBarScaleForIssueRate(context);
}

void AddFp64Evidence(const ToolContext& context, const InstructionList& arithmetic,
                     const InstructionList& promotions, Finding& finding) {
  finding.evidence.push_back(MakeEvidence("DFMA/DADD/DMUL in the main body (SASS, static)",
                                          double(arithmetic.size()), "inst", ">=", 1));
  finding.evidence.push_back(MakeEvidence("F2F.F64.F32 float-to-double conversions (SASS, static)",
                                          double(promotions.size()), "inst",
                                          ">=", context.Threshold("min_float_to_double_conversions")));
  finding.evidence.push_back(MakeEvidence(PipeMetric("fp64"), *context.Metric(PipeMetric("fp64")), "%",
                                          ">=", Fp64PipeFloor(context)));
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

// Without a SASS listing: the FP64 pipe is busy and most of the floating-point
// instructions are double. Whether the data is float (promotion) or double
// (intended) the listing would tell; either way the FP64 pipe limits.
std::optional<Finding> AnalyzeFp64FromMetrics(const ToolContext& context) {
  double fp64_pipe = *context.Metric(PipeMetric("fp64"));
  if (fp64_pipe < Fp64PipeFloor(context)) return std::nullopt;
  InstructionMix mix = ReadInstructionMix(context);
  if (!mix.valid || mix.fp <= 0) return std::nullopt;
  double share = mix.fp64 / mix.fp;
  // Weighed by pipe time: a double instruction occupies its pipe 1 / rate_ratio times as long as a float
  // one (twice on H100/H200), so a kernel with as many float as double instructions spends two thirds of
  // its floating-point pipe time in double.
  double rate_ratio = Fp64RateRatio(context);
  double time_share = SafeRatio(mix.fp64 / rate_ratio, mix.fp64 / rate_ratio + (mix.fp - mix.fp64));
  if (time_share < context.Threshold("min_fp64_share_without_sass")) return std::nullopt;
  // Without the listing the XU work cannot be split; in code whose FP work is mostly double, the XU
  // pipe's F2F conversions are taken to be that share of it (they go with the promotion).
  PipeLoads before = ReadPipeLoads(context);
  PipeModel model = PipeGain(context, before, LoadsWithoutFp64(context, before, share));
  Finding finding;
  finding.title = fmt::format(
      "FP64 work on the slow FP64 pipe ({:.0f}% busy): float code promoted to double?", fp64_pipe);
  finding.estimated_gain = model.gain;
  finding.gain_method = PipeGainMethod(
      context, model,
      fmt::format("moving the FP64 work to the FMA pipe at the FP32 rate and, with it, {:.0f}% of the "
                  "XU work (the FP64 share of the FP instructions, taken as the share of XU work "
                  "that is F2F conversions: raw page only, no SASS to count them)",
                  share * 100));
  finding.evidence.push_back(MakeEvidence(PipeMetric("fp64"), fp64_pipe, "%", ">=", Fp64PipeFloor(context)));
  finding.evidence.push_back(
      MakeEvidence("FP64 share of the floating-point instructions", share * 100, "%", "", 0));
  finding.evidence.push_back(
      MakeEvidence("FP64 share of the floating-point pipe time (double at the FP64/FP32 "
                   "rate ratio)",
                   time_share * 100, "%", ">=", context.Threshold("min_fp64_share_without_sass") * 100));
  if (auto xu = context.Metric(PipeMetric("xu")))
    finding.evidence.push_back(
        MakeEvidence(PipeMetric("xu") + " (F2F conversions run there)", *xu, "%", "", 0));
  finding.root_cause = fmt::format(
      "{:.0f}% of the floating-point instructions are double precision and the FP64 pipe, at half the FP32 "
      "rate "
      "or less, is {:.0f}% busy. In float code this is accidental promotion (double literals such as 0.5, or "
      "double math functions such as exp() on a float expression); the SASS listing (cuobjdump -sass) shows "
      "it "
      "as F2F.F64.F32 conversions next to DFMA/DMUL. If the data is double by design, the FP64 pipe is the "
      "ceiling.",
      share * 100, fp64_pipe);
  finding.recommendations = Fp64Recommendations(finding.estimated_gain);
  finding.confidence = 0.55;
  return finding;
}

std::optional<Finding> AnalyzeAccidentalFp64(const ToolContext& context) {
  if (!context.sass) return AnalyzeFp64FromMetrics(context);
  InstructionList body = MainBody(*context.sass);
  InstructionList arithmetic = Select(body, IsFp64Arithmetic);
  InstructionList promotions = Select(body, IsFloatToDouble);
  double fp64_pipe = *context.Metric(PipeMetric("fp64"));
  if (arithmetic.empty() || promotions.size() < context.Threshold("min_float_to_double_conversions") ||
      fp64_pipe < Fp64PipeFloor(context))
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

}  // namespace

ToolDefinition AccidentalFp64Tool() {
  ToolDefinition tool;
  tool.id = "accidental_fp64";
  tool.title = "Accidental FP64 in float code";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.relevant_classes = UnlessMemoryBound();
  tool.ncu_rules = {NcuRule::kSolFpRoofline, NcuRule::kCpiStallMathPipe};
  tool.required = {{InputSource::kSass, "DFMA/DADD/DMUL and F2F.F64.F32 counts", true},
                   {InputSource::kNcuMetric, PipeMetric("fp64"), false},
                   {InputSource::kNcuMetric, PipeMetric("xu"), true},
                   {InputSource::kNcuMetric, PipeMetric("fma"), true},
                   {InputSource::kNcuMetric, std::string(kIssueActiveMetric), true},
                   {InputSource::kNcuMetric, std::string(kDfmaPeakMetric), true},
                   {InputSource::kPtxas, "stack frame", true}};
  tool.thresholds = {
      MakeThreshold(
          "min_fp64_pipe_percent", 15, "%",
          "FP64 pipe utilisation that makes the double work matter (ncu SOLFPRoofline flags FP64 above 15% "
          "of its peak); in a latency-bound kernel, scaled by the issue-active fraction: one issuing on 30% "
          "of its cycles is judged at 4.5% (every pipe of such a kernel is nearly idle, the FP64 pipe's "
          "share of the issued work is what matters)"),
      MakeThreshold(
          "min_float_to_double_conversions", 1, "inst",
          "static F2F.F64.F32 in the kernel body: float data promoted to double is the fingerprint of "
          "accidental FP64 (a double kernel loads doubles and needs no conversion)"),
      MakeThreshold(
          "min_fp64_share_without_sass", 0.5, "fraction",
          "without SASS: share of the floating-point pipe time in double instructions (each weighed by the "
          "FP32/FP64 rate ratio: twice a float one on H100/H200) from which the FP64 work is the kernel's "
          "arithmetic, not an occasional double")};
  for (std::string& name : InstructionMixMetrics()) tool.required.push_back(NcuMetric(name, true));
  tool.trigger =
      "SASS main body has DFMA/DADD/DMUL and >= min_float_to_double_conversions F2F.F64.F32; FP64 pipe >= "
      "min_fp64_pipe_percent (× issue active when latency-bound). Without SASS: the same FP64 pipe bound "
      "and FP64 >= "
      "min_fp64_share_without_sass of the FP pipe time";
  tool.subsumes = {"hidden_compute_energy"};  // its energy-only finding on the same work
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeAccidentalFp64;
  tool.energy_change = PriceFp64InFloatCode;  // FP64 issues → FMA issues at the lanes ratio
  return tool;
}

}  // namespace kopt
