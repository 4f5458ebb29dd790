// hidden_compute_energy: "same speed, less energy". A kernel whose time memory
// sets (bandwidth or latency; the instruction pipes have slack) spends a large share of its predicted dynamic
// energy on compute pipes, and the SASS shows work with a cheaper equivalent (IEEE division or an accurate
// expf where __fdividef / __expf would do, float data promoted to double). Removing it changes no time (the
// memory time hides the compute) but saves energy: the finding's gain is 0 and its energy saving is the
// energy model's (analysis/energy_analysis.h). Needs the GPU's energy coefficients
// (InputSource::kEnergyModel): without them it does not run and is not listed as skipped.
#include <fmt/format.h>

#include "analysis/energy_analysis.h"
#include "analysis/pipe_model.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

// The cheaper equivalents in the SASS main body, applied one after the other:
// float literals for promoted doubles, then fast intrinsics.
std::optional<EnergyChange> CheaperEquivalents(const ToolContext& context, const EnergyCounts& before,
                                               FastMathSites& sites, size_t& promotions) {
  EnergyChange combined{before, ""};
  InstructionList body = MainBody(*context.sass);
  promotions = Select(body, [](const SassInstruction& instruction) {
                 return instruction.opcode == "F2F" && HasModifier(instruction, ".F64.F32");
               }).size();
  if (promotions > 0) {
    if (auto ratio = Fp64ToFmaIssueRatio(context.launch, context.gpu)) {
      XuComposition xu = ClassifyXuWork(*context.sass);
      if (auto fp64 = MoveFp64ToFma(combined.after, *ratio, Share(xu.fp64_conversions.size(), xu.Total()))) {
        combined.after = fp64->after;
        combined.method = fp64->method;
      }
    }
  }
  sites = CountFastMathSites(*context.sass);
  if (auto intrinsics = FastIntrinsics(combined.after, *context.sass)) {
    combined.after = intrinsics->after;
    combined.method += (combined.method.empty() ? "" : "; then ") + intrinsics->method;
  }
  if (combined.method.empty()) return std::nullopt;
  return combined;
}

// "2 IEEE divisions and 1 accurate expf" / "3 float-to-double promotions": what the SASS shows.
std::string CheaperWork(const FastMathSites& sites, size_t promotions) {
  std::vector<std::string> parts;
  if (sites.ieee_divisions > 0) parts.push_back(fmt::format("{} IEEE divisions", sites.ieee_divisions));
  if (sites.accurate_expf > 0) parts.push_back(fmt::format("{} accurate expf", sites.accurate_expf));
  if (promotions > 0) parts.push_back(fmt::format("{} float-to-double promotions", promotions));
  std::string text;
  for (size_t index = 0; index < parts.size(); ++index)
    text += (index == 0 ? "" : index + 1 == parts.size() ? " and " : ", ") + parts[index];
  return text;
}

std::vector<Recommendation> CheaperRecommendations(const FastMathSites& sites, size_t promotions,
                                                   const std::string& effect) {
  std::vector<Recommendation> recommendations;
  if (sites.ieee_divisions > 0 || sites.accurate_expf > 0) {
    recommendations.push_back(
        {"Where the tolerance allows, use the intrinsics: __fdividef(a, b) for a / b, __expf(x) for expf(x); "
         "or "
         "compile with -prec-div=false, or -use_fast_math",
         "IEEE division is MUFU.RCP plus four Newton-step FFMAs and a range check, __fdividef the reciprocal "
         "and "
         "one multiply (2 ulp; 0 when 2^126 < |b| < 2^128); the accurate expf adds a range reduction of six "
         "FMA-pipe instructions around MUFU.EX2, __expf needs three",
         effect});
  }
  if (promotions > 0) {
    recommendations.push_back(
        {"Write float literals (0.5f) and float math calls (expf, not exp) in float code",
         "double literals promote the expression to the FP64 pipe, at half the FP32 lanes, with conversions "
         "on "
         "the XU pipe",
         effect});
  }
  recommendations.push_back(
      {"Verify against the task's tolerance, then keep the faster-or-equal candidate "
       "with the lower measured energy (kopt bench --energy)",
       "the saving is the model's prediction; NVML measures it", ""});
  return recommendations;
}

std::optional<Finding> AnalyzeHiddenComputeEnergy(const ToolContext& context) {
  if (!context.energy_coefficients || !context.sass) return std::nullopt;
  const RooflineAnalysis& roofline = context.roofline;
  // Memory sets the time (bandwidth or latency) and the instruction pipes have slack.
  auto memory = context.Metric("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  auto sm = context.Metric(kSmThroughputMetric);
  if (!memory || !sm || *memory < *sm) return std::nullopt;
  PipeLoads loads = ReadPipeLoads(context);
  double busiest = 0;
  for (const char* pipe : {"fma", "alu", "fp64", "xu"})
    if (loads.count(pipe)) busiest = std::max(busiest, loads.at(pipe));
  if (busiest > context.Threshold("max_pipe_percent")) return std::nullopt;
  EnergyCounts counts = CountEnergyActivity(context.launch);
  EnergyPrediction prediction = PredictEnergy(counts, *context.energy_coefficients);
  double compute_share = ComputePipeEnergyShare(prediction);
  if (prediction.dynamic_joules <= 0 || compute_share < context.Threshold("min_compute_energy_share"))
    return std::nullopt;
  FastMathSites sites;
  size_t promotions = 0;
  std::optional<EnergyChange> change = CheaperEquivalents(context, counts, sites, promotions);
  if (!change) return std::nullopt;
  std::optional<EnergySaving> saving = SavingOf(counts, *change, *context.energy_coefficients);
  if (!saving || saving->fraction < context.Threshold("min_energy_saving")) return std::nullopt;

  Finding finding = NewFinding("", 0.7);
  bool intrinsics = sites.ieee_divisions > 0 || sites.accurate_expf > 0;
  finding.title = fmt::format(
      "Same speed, less energy: {:.0f}% of the predicted energy goes to compute that the memory time hides; "
      "{} "
      "would save {:.0f}%",
      compute_share * 100,
      intrinsics && promotions > 0 ? "fast intrinsics and float literals"
      : intrinsics                 ? "fast intrinsics"
                                   : "float literals",
      saving->fraction * 100);
  finding.estimated_gain = 0;
  finding.gain_method = fmt::format(
      "none in time: memory sets it ({:.0f}% memory throughput against {:.0f}% SM, {}) and the busiest "
      "instruction pipe is at {:.0f}%, so the fix removes work the memory time hides; the saving is energy "
      "(its method is with the saving)",
      *memory, *sm, BottleneckClassName(roofline.bottleneck), busiest);
  finding.evidence.push_back(
      MakeEvidence("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed (against the SM's)",
                   *memory, "%", ">=", *sm));
  finding.evidence.push_back(MakeEvidence("busiest of the FMA, ALU, FP64 and XU pipes", busiest, "%",
                                          "<=", context.Threshold("max_pipe_percent")));
  finding.evidence.push_back(
      MakeEvidence("compute pipes' share of the predicted dynamic energy (FMA, ALU, FP64, XU)",
                   compute_share * 100, "%", ">=", context.Threshold("min_compute_energy_share") * 100));
  finding.evidence.push_back(
      MakeEvidence("predicted dynamic energy per launch", prediction.dynamic_joules, "J", "", 0));
  finding.evidence.push_back(MakeEvidence("IEEE float divisions (FCHK, SASS main body, static)",
                                          sites.ieee_divisions, "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("accurate expf range reductions (SASS main body, static)",
                                          sites.accurate_expf, "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("F2F.F64.F32 float-to-double conversions (SASS main body, static)",
                                          double(promotions), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("predicted energy saving per launch", saving->fraction * 100, "%",
                                          ">=", context.Threshold("min_energy_saving") * 100));
  finding.root_cause = fmt::format(
      "The kernel waits on memory, so its instruction pipes have slack: the extra work of {} costs no time, "
      "but "
      "every issued instruction costs energy. The energy model puts {:.0f}% of the {} per launch on the "
      "compute pipes.",
      CheaperWork(sites, promotions), compute_share * 100,
      FormatScaled(prediction.dynamic_joules, "J", QuantityStyle::kTrimmed));
  finding.recommendations = CheaperRecommendations(
      sites, promotions,
      fmt::format("{:.1f}% less dynamic energy per launch at the same time", saving->fraction * 100));
  finding.energy_saving = std::move(saving);
  return finding;
}

}  // namespace

ToolDefinition HiddenComputeEnergyTool() {
  ToolDefinition tool;
  tool.id = "hidden_compute_energy";
  tool.title = "Compute energy that the memory-bound time hides (same speed, less energy)";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.required = {{InputSource::kEnergyModel, "energy coefficients for the GPU", false},
                   {InputSource::kSass, "FCHK, accurate expf, FMA-pipe and F2F.F64.F32 counts", true}};
  for (const std::string& metric : EnergyModelMetrics()) tool.required.push_back(NcuMetric(metric, true));
  tool.thresholds = {
      MakeThreshold(
          "max_pipe_percent", 50, "%",
          "utilisation of the busiest FMA, ALU, FP64 or XU pipe up to which the pipes have slack, so "
          "removing instructions leaves the time to memory (H200 swish: IEEE division and expf at "
          "FMA 16% / XU 23%, the intrinsics at 8% / 16%: 215 µs against 206 µs)"),
      MakeThreshold("min_compute_energy_share", 0.15, "fraction",
                    "share of the predicted dynamic energy on the FMA, ALU, FP64 and XU pipes from which the "
                    "hidden compute is worth a change"),
      MakeThreshold("min_energy_saving", 0.03, "fraction",
                    "predicted saving per launch from which the finding is reported (NVML's noise on a "
                    "1-second window is about 1%)")};
  tool.relevant_classes = {BottleneckClass::kMemoryBound, BottleneckClass::kLatencyBound};
  tool.trigger =
      "energy coefficients for the GPU; memory throughput >= SM throughput and the busiest FMA/ALU/FP64/XU "
      "pipe "
      "<= max_pipe_percent; compute pipes >= min_compute_energy_share of the predicted energy; the SASS has "
      "IEEE "
      "divisions, accurate expf or float-to-double promotions whose removal saves >= min_energy_saving";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.tuning_moves = {
      {"hidden_compute_energy",
       {{ParameterRole::kFastMath, MoveDirection::kIncrease}},
       "approximate division and expf where the tolerance allows: no time change on a memory-bound kernel, "
       "less "
       "energy"},
  };
  tool.analyze = AnalyzeHiddenComputeEnergy;
  return tool;
}

}  // namespace kopt
