// mufu_division_pressure: special functions and float division (MUFU on the XU
// pipe) dominating: the share of XU work and the gain of fast intrinsics.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/energy_analysis.h"
#include "analysis/pipe_model.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

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

// Without a SASS listing: the XU pipe is busy, not with FP64 conversions (the
// FP64 pipe is quiet) and not with integer-division reciprocals (the kernel
// does floating-point work): float special functions and divisions.
std::optional<Finding> AnalyzeMufuFromMetrics(const ToolContext& context, double xu_percent) {
  double fp64 = context.Metric(PipeMetric("fp64")).value_or(0);
  if (fp64 >= context.Threshold("max_fp64_pipe_percent_without_sass")) return std::nullopt;
  InstructionMix mix = ReadInstructionMix(context);
  if (!mix.valid || mix.fp / mix.total < context.Threshold("min_fp_share_without_sass")) return std::nullopt;
  PipeLoads before = ReadPipeLoads(context);
  std::pair<std::string, double> next_pipe = BusiestPipeExcept(before, "xu");
  PipeLoads after = before;
  after["xu"] = next_pipe.second;
  PipeModel model = PipeGain(context, before, after);
  Finding finding;
  finding.title = fmt::format("Special-function (MUFU) pressure: XU pipe {:.0f}% busy", xu_percent);
  finding.estimated_gain = model.gain;
  finding.gain_method =
      PipeGainMethod(context, model, "cutting MUFU work until the next busiest pipe limits") +
      " (raw page only: no SASS given)";
  finding.evidence.push_back(
      MakeEvidence(PipeMetric("xu"), xu_percent, "%", ">=", context.Threshold("min_xu_pipe_percent")));
  finding.evidence.push_back(MakeEvidence(PipeMetric("fp64"), fp64, "%", "<",
                                          context.Threshold("max_fp64_pipe_percent_without_sass")));
  finding.evidence.push_back(MakeEvidence("floating-point share of executed instructions",
                                          100 * mix.fp / mix.total, "%",
                                          ">=", context.Threshold("min_fp_share_without_sass") * 100));
  if (auto fma = context.Metric(PipeMetric("fma")))
    finding.evidence.push_back(MakeEvidence(PipeMetric("fma"), *fma, "%", "", 0));
  finding.root_cause = fmt::format(
      "The XU pipe, which executes MUFU (reciprocal, sqrt, exp2, log2, sin) at 1/8 the FMA pipe's rate, is "
      "{:.0f}% busy and the busiest pipe's rival; the FP64 pipe is quiet (so these are not double "
      "conversions) "
      "and the kernel does floating-point work (so not integer-division reciprocals): float transcendentals "
      "and IEEE divisions. The next busiest pipe ({}) is at {:.0f}%. The SASS listing would name the "
      "instructions (MUFU.EX2/LG2/RCP, FCHK and slow-path CALLs).",
      xu_percent, next_pipe.first, next_pipe.second);
  finding.recommendations = SpecialFunctionRecommendations(finding.estimated_gain, 0, 0, next_pipe);
  finding.confidence = 0.6;
  return finding;
}

std::optional<Finding> AnalyzeMufuPressure(const ToolContext& context) {
  double xu_percent = *context.Metric(PipeMetric("xu"));
  if (xu_percent < context.Threshold("min_xu_pipe_percent")) return std::nullopt;
  if (!context.sass) return AnalyzeMufuFromMetrics(context, xu_percent);
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

}  // namespace

ToolDefinition MufuDivisionPressureTool() {
  ToolDefinition tool;
  tool.id = "mufu_division_pressure";
  tool.title = "Special-function (MUFU) and IEEE-division pressure";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.ncu_rules = {NcuRule::kCpiStallMio, NcuRule::kCpiStallMathPipe};
  tool.required = {{InputSource::kSass, "MUFU, FCHK and slow-path CALL counts", true},
                   {InputSource::kNcuMetric, PipeMetric("xu"), false},
                   {InputSource::kNcuMetric, PipeMetric("fma"), true},
                   {InputSource::kNcuMetric, PipeMetric("alu"), true}};
  tool.thresholds = {
      MakeThreshold(
          "min_xu_pipe_percent", 60, "%",
          "XU pipe utilisation from which the pipe limits issue (ncu HighPipeUtilization: 60-80% 'High', >= "
          "80% 'Very High')"),
      MakeThreshold("min_special_function_share", 0.5, "fraction",
                    "share of the main body's XU instructions that are float MUFU; conversions belong to "
                    "accidental_fp64 and integer-division reciprocals to int64_index_arithmetic"),
      MakeThreshold("max_fp64_pipe_percent_without_sass", 15, "%",
                    "without SASS: FP64 pipe utilisation below which the XU work is not the conversions of "
                    "promoted doubles (accidental_fp64's 15%)"),
      MakeThreshold(
          "min_fp_share_without_sass", 0.1, "fraction",
          "without SASS: floating-point share of the executed instructions from which the XU work serves "
          "float math (integer-division reciprocals come with almost no FP instructions)")};
  for (std::string& name : InstructionMixMetrics()) tool.required.push_back(NcuMetric(name, true));
  tool.trigger =
      "XU pipe >= min_xu_pipe_percent and float MUFU >= min_special_function_share of the XU instructions in "
      "SASS; without SASS: FP64 pipe < max_fp64_pipe_percent_without_sass and FP share >= "
      "min_fp_share_without_sass";
  tool.subsumes = {"hidden_compute_energy"};  // its energy-only finding on the same work
  tool.gain_bound = GainBound::kReducesCompute;
  tool.tuning_moves = {
      {"mufu_division_pressure",
       {{ParameterRole::kFastMath, MoveDirection::kIncrease}},
       "IEEE division and accurate transcendentals are long MUFU sequences: approximate math where the "
       "tolerance allows (verified by the check)"},
  };
  tool.analyze = AnalyzeMufuPressure;
  tool.energy_change = PriceFastIntrinsics;  // the division and expf fix-up FMAs removed
  return tool;
}

}  // namespace kopt
