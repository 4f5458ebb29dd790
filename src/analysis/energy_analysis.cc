#include "analysis/energy_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/pipe_model.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

double Metric(const KernelLaunch& launch, std::string_view name) {
  return launch.Metric(name).value_or(0);
}

// The low part of log2(e) in the accurate expf's Cody-Waite reduction (CUDA 12-13 libdevice).
constexpr std::string_view kExpfLowLog2e = "1.925963033500011079e-08";

bool NeverRuns(const SassInstruction& instruction) {
  return instruction.predicate == "@!PT" || instruction.predicate == "@!UPT";
}

bool OnFmaPipe(const SassInstruction& instruction) {
  static const std::set<std::string> kOpcodes = {"FFMA",    "FADD",  "FMUL",  "FFMA32I",  "FADD32I",
                                                 "FMUL32I", "IMAD",  "IMUL",  "IMAD32I",  "IMUL32I",
                                                 "HFMA2",   "HADD2", "HMUL2", "HFMA2_32I"};
  return kOpcodes.count(instruction.opcode) > 0;
}

// Moves `removed` (>= 0, at most the count) out of `term`.
void Remove(EnergyCounts& counts, EnergyTerm term, double removed) {
  counts[term] = std::max(0.0, counts[term] - std::max(0.0, removed));
}

std::string Count(double value, EnergyTerm term) {
  return FormatEnergyCount(value, term, QuantityStyle::kFixed);
}

}  // namespace

std::string FormatEnergyCount(double count, EnergyTerm term, QuantityStyle style) {
  std::string_view unit = EnergyTermUnit(term);
  if (unit == "byte") return FormatBytes(count, style);
  if (unit == "s") return FormatDuration(count * 1e9, style);
  std::string number = FormatScaled(count, "", style);  // kFixed writes "79.7 M": one word here
  number.erase(std::remove(number.begin(), number.end(), ' '), number.end());
  return number + " " + std::string(unit);
}

std::optional<IssueRatio> Fp64ToFmaIssueRatio(const KernelLaunch& launch, const GpuSpec* gpu) {
  auto dfma = launch.Metric(kDfmaPeakMetric);
  auto ffma = launch.Metric(kFfmaPeakMetric);
  if (dfma && ffma && *dfma > 0 && *ffma > 0) {
    return IssueRatio{*dfma / *ffma,
                      fmt::format("ncu's peaks, {} DFMA / {} FFMA thread instructions per cycle (Hopper: 64 "
                                  "FP64 and 128 FP32 lanes per SM)",
                                  FormatNumber(*dfma, QuantityStyle::kTrimmed),
                                  FormatNumber(*ffma, QuantityStyle::kTrimmed))};
  }
  if (gpu && gpu->fp32_flops > 0 && gpu->fp64_flops > 0) {
    return IssueRatio{gpu->fp64_flops / gpu->fp32_flops,
                      fmt::format("the GPU table's FP64 / FP32 peak FLOP/s ({})", gpu->name)};
  }
  return std::nullopt;
}

std::optional<EnergyChange> MoveFp64ToFma(const EnergyCounts& before, const IssueRatio& ratio,
                                          double xu_conversion_share) {
  double fp64 = before[EnergyTerm::kFp64Pipe];
  if (fp64 <= 0) return std::nullopt;
  EnergyChange change{before, ""};
  change.after[EnergyTerm::kFp64Pipe] = 0;
  change.after[EnergyTerm::kFmaPipe] += fp64 * ratio.value;
  double share = std::clamp(xu_conversion_share, 0.0, 1.0);
  Remove(change.after, EnergyTerm::kXuPipe, before[EnergyTerm::kXuPipe] * share);
  change.method = fmt::format(
      "the FP64 work ({}) runs as FP32 on the FMA pipe: {} FMA-pipe issues per FP64-pipe issue, from {}; "
      "{:.0f}% "
      "of the XU issues leave with the float↔double conversions (their share of the main body's XU "
      "instructions{})",
      Count(fp64, EnergyTerm::kFp64Pipe), FormatNumber(ratio.value, QuantityStyle::kTrimmed), ratio.source,
      share * 100, share > 0 ? " in the SASS" : ": no SASS listing to count them, so none");
  return change;
}

FastMathSites CountFastMathSites(const SassFunction& sass) {
  FastMathSites counts;
  for (const SassInstruction* instruction : MainBody(sass)) {
    if (NeverRuns(*instruction)) continue;
    if (instruction->opcode == "FCHK") ++counts.ieee_divisions;
    if (instruction->opcode == "FFMA" && instruction->operands.find(kExpfLowLog2e) != std::string::npos)
      ++counts.accurate_expf;
    if (instruction->opcode == "IMAD" && instruction->modifiers == ".MOV.U32" &&
        (instruction->operands.find("0x3bbb989d") != std::string::npos ||
         instruction->operands.find("0x437c0000") != std::string::npos))
      ++counts.expf_constants;
    if (OnFmaPipe(*instruction)) ++counts.fma_pipe_instructions;
    if (RunsOnXuPipe(*instruction) || instruction->opcode == "FCHK") ++counts.xu_pipe_instructions;
  }
  return counts;
}

std::optional<EnergyChange> FastIntrinsics(const EnergyCounts& before, const SassFunction& sass) {
  FastMathSites sites = CountFastMathSites(sass);
  double extra = double(kDivisionFixupFfmas) * sites.ieee_divisions +
                 double(kAccurateExpfExtraFmas) * sites.accurate_expf +
                 (sites.accurate_expf > 0 ? sites.expf_constants : 0);
  if (extra <= 0 || sites.fma_pipe_instructions <= 0) return std::nullopt;
  double removed = std::min<double>(extra, sites.fma_pipe_instructions);
  double share = removed / sites.fma_pipe_instructions;
  double fma = before[EnergyTerm::kFmaPipe];
  if (fma <= 0) return std::nullopt;
  EnergyChange change{before, ""};
  Remove(change.after, EnergyTerm::kFmaPipe, fma * share);
  double xu_share = sites.xu_pipe_instructions > 0
                        ? std::min(1.0, double(sites.ieee_divisions) / sites.xu_pipe_instructions)
                        : 0;
  Remove(change.after, EnergyTerm::kXuPipe, before[EnergyTerm::kXuPipe] * xu_share);
  std::vector<std::string> parts;
  if (sites.ieee_divisions > 0)
    parts.push_back(
        fmt::format("__fdividef (or -prec-div=false) for the {} IEEE divisions (FCHK): {} Newton fix-up "
                    "FFMAs each (MUFU.RCP + FCHK + 5 FFMA become MUFU.RCP + FMUL)",
                    sites.ieee_divisions, kDivisionFixupFfmas));
  if (sites.accurate_expf > 0)
    parts.push_back(
        fmt::format("__expf for the {} accurate expf: {} FMA-pipe instructions each (its range reduction: 7 "
                    "against 3), and the {} IMAD.MOV of its constants",
                    sites.accurate_expf, kAccurateExpfExtraFmas, sites.expf_constants));
  std::string what;
  for (const std::string& part : parts) what += (what.empty() ? "" : "; ") + part;
  change.method = fmt::format(
      "fast intrinsics in the main body: {}; {:.0f} of its {} static FMA-pipe instructions, so {:.1f}% of "
      "the {} FMA-pipe issues, and the {} FCHK of its {} XU-pipe instructions, {:.1f}% of the XU issues "
      "(static shares taken as the dynamic ones; the MUFU stays; the branches and the slow path are not "
      "counted)",
      what, removed, sites.fma_pipe_instructions, share * 100, Count(fma, EnergyTerm::kFmaPipe),
      sites.ieee_divisions, sites.xu_pipe_instructions, xu_share * 100);
  return change;
}

std::optional<EnergyChange> PriceFp64InFloatCode(const ToolContext& context, const EnergyCounts& before,
                                                 std::string& why_not) {
  auto ratio = Fp64ToFmaIssueRatio(context.launch, context.gpu);
  if (!ratio) {
    why_not = "no FP64/FP32 lanes ratio (neither ncu's DFMA/FFMA peaks nor a GPU table row)";
    return std::nullopt;
  }
  double conversions = 0;
  if (context.sass) {
    XuComposition xu = ClassifyXuWork(*context.sass);
    conversions = Share(xu.fp64_conversions.size(), xu.Total());
  }
  return MoveFp64ToFma(before, *ratio, conversions);
}

std::optional<EnergyChange> PriceFastIntrinsics(const ToolContext& context, const EnergyCounts& before,
                                                std::string& why_not) {
  if (!context.sass) {
    why_not = "the SASS listing is needed to count the IEEE divisions (FCHK) and accurate expf";
    return std::nullopt;
  }
  auto change = FastIntrinsics(before, *context.sass);
  if (!change) why_not = "no IEEE division (FCHK) or accurate expf in the SASS main body";
  return change;
}

std::optional<EnergyChange> CoalescedAccess(const EnergyCounts& before, const KernelLaunch& launch,
                                            std::string_view op) {
  std::string suffix(op);
  double sectors = Metric(launch, "l1tex__t_sectors_pipe_lsu_mem_global_op_" + suffix + ".sum");
  auto bytes_per_sector =
      launch.Metric("smsp__sass_average_data_bytes_per_sector_mem_global_op_" + suffix + ".ratio");
  if (sectors <= 0 || !bytes_per_sector || *bytes_per_sector <= 0) return std::nullopt;
  double excess = Clamp01(1 - *bytes_per_sector / kSectorBytes);
  if (excess <= 0) return std::nullopt;
  bool load = op == "ld";
  double l2_sectors = Metric(
      launch, load ? "lts__t_sectors_srcunit_tex_op_read.sum" : "lts__t_sectors_srcunit_tex_op_write.sum");
  double dram = Metric(launch, load ? "dram__bytes_read.sum" : "dram__bytes_write.sum");
  double l1_removed = excess * sectors * kSectorBytes;
  double l2_removed = excess * l2_sectors * kSectorBytes;
  double dram_removed = std::min(excess * dram, l2_removed);
  EnergyChange change{before, ""};
  Remove(change.after, EnergyTerm::kL1Bytes, l1_removed);
  Remove(change.after, EnergyTerm::kL2Bytes, l2_removed);
  Remove(change.after, EnergyTerm::kDramBytes, dram_removed);
  change.method = fmt::format(
      "coalesced {}s use all 32 bytes of each sector: the excess share {:.1f}% (1 − {:.1f} bytes per sector "
      "/ 32) of the {} L1 sectors ({}), of its L2 sectors ({}) and of the DRAM {} ({}, at most the excess L2 "
      "bytes) disappears",
      load ? "load" : "store", excess * 100, *bytes_per_sector, load ? "load" : "store",
      FormatBytes(l1_removed, QuantityStyle::kFixed), FormatBytes(l2_removed, QuantityStyle::kFixed),
      load ? "reads" : "writes", FormatBytes(dram_removed, QuantityStyle::kFixed));
  return change;
}

std::optional<EnergyChange> NoLocalMemory(const EnergyCounts& before, const KernelLaunch& launch) {
  double loads = Metric(launch, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum");
  double stores = Metric(launch, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum");
  if (loads + stores <= 0) return std::nullopt;
  double hit_rate = Metric(launch, "l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct") / 100;
  double l2_sectors = loads * (1 - Clamp01(hit_rate)) + stores;  // misses and write-through stores
  double all_l2 = Metric(launch, "lts__t_sectors_srcunit_tex.sum");
  double dram_share = all_l2 > 0 ? Clamp01(l2_sectors / all_l2) : 0;
  EnergyChange change{before, ""};
  change.after[EnergyTerm::kLocalBytes] = 0;
  Remove(change.after, EnergyTerm::kL2Bytes, l2_sectors * kSectorBytes);
  Remove(change.after, EnergyTerm::kDramBytes, before[EnergyTerm::kDramBytes] * dram_share);
  change.method = fmt::format(
      "values kept in registers: the {} of local traffic through L1 disappears, with the local sectors that "
      "reach L2 ({}: load misses at a {:.0f}% hit rate, and every store) and the same share ({:.1f}%) of the "
      "DRAM traffic{}",
      Count(before[EnergyTerm::kLocalBytes], EnergyTerm::kLocalBytes),
      FormatBytes(l2_sectors * kSectorBytes, QuantityStyle::kFixed), hit_rate * 100, dram_share * 100,
      all_l2 > 0 ? "" : " (lts__t_sectors_srcunit_tex.sum absent: DRAM unchanged)");
  return change;
}

std::optional<EnergyChange> FusedDataPass(const EnergyCounts& before, const RooflineAnalysis& roofline) {
  double traffic =
      before[EnergyTerm::kDramBytes] + before[EnergyTerm::kL2Bytes] + before[EnergyTerm::kL1Bytes];
  if (traffic <= 0) return std::nullopt;
  double kept = roofline.duration_ns > 0 ? Clamp01(roofline.compute_floor_ns / roofline.duration_ns) : 1;
  EnergyChange change{before, ""};
  for (EnergyTerm term :
       {EnergyTerm::kDramBytes, EnergyTerm::kL2Bytes, EnergyTerm::kL1Bytes, EnergyTerm::kLsuPipe})
    change.after[term] = 0;
  change.after[EnergyTerm::kActiveSeconds] = before[EnergyTerm::kActiveSeconds] * kept;
  change.after[EnergyTerm::kLaunches] = 0;  // its launch goes with it
  change.method = fmt::format(
      "fused into its producer or consumer, the pass's DRAM, L2 and L1 traffic, its load/store issues and "
      "its "
      "launch disappear and its busy time shrinks to the compute floor ({:.1f}% of it); its arithmetic moves "
      "to "
      "the other kernel, whose own counts are not changed",
      kept * 100);
  return change;
}

std::optional<EnergySaving> SavingOf(const EnergyCounts& before, const EnergyChange& change,
                                     const EnergyCoefficients& coefficients) {
  EnergyPrediction old_prediction = PredictEnergy(before, coefficients);
  EnergyPrediction new_prediction = PredictEnergy(change.after, coefficients);
  double saved = old_prediction.dynamic_joules - new_prediction.dynamic_joules;
  if (!(saved > 0) || old_prediction.dynamic_joules <= 0) return std::nullopt;
  EnergySaving saving;
  saving.joules = saved;
  saving.fraction = saved / old_prediction.dynamic_joules;
  saving.method = change.method;
  for (EnergyTerm term : AllEnergyTerms()) {
    if (before[term] != change.after[term])
      saving.changes.push_back({term, before[term], change.after[term]});
  }
  return saving;
}

double ComputePipeEnergyShare(const EnergyPrediction& prediction) {
  double share = 0;
  for (const EnergyTermShare& term : prediction.terms) {
    if (term.term == EnergyTerm::kFmaPipe || term.term == EnergyTerm::kAluPipe ||
        term.term == EnergyTerm::kFp64Pipe || term.term == EnergyTerm::kXuPipe)
      share += term.share;
  }
  return share;
}

void AnalyzeEnergy(const LaunchInputs& inputs, const OrchestrationOptions& options, KernelDiagnosis& kernel) {
  if (!inputs.launch || !inputs.energy_coefficients) return;
  const EnergyCoefficients& coefficients = *inputs.energy_coefficients;
  EnergyCounts counts = CountEnergyActivity(*inputs.launch);
  KernelEnergy energy;
  energy.gpu_name = coefficients.gpu_name;
  energy.prediction = PredictEnergy(counts, coefficients);
  std::vector<std::string> metrics = EnergyModelMetrics();
  std::set<std::string> missing(counts.missing_metrics.begin(), counts.missing_metrics.end());
  size_t present = static_cast<size_t>(std::count_if(
      metrics.begin(), metrics.end(), [&](const std::string& metric) { return missing.count(metric) == 0; }));
  if (2 * present < metrics.size()) {  // a prediction from a few terms would mislead more than inform
    energy.skipped = true;
    energy.prediction.terms.clear();
    energy.prediction.dynamic_joules = energy.prediction.average_dynamic_watts = 0;
    energy.notes.push_back(fmt::format(
        "No energy prediction: the profile has {} of the {} metrics the energy model reads, too few for one "
        "(ncu --set full collects them).",
        present, metrics.size()));
    kernel.energy = std::move(energy);
    return;
  }
  if (!energy.prediction.missing_metrics.empty()) {
    energy.notes.push_back(
        fmt::format("A lower bound: {} of the model's {} metrics are absent, their terms count 0 (ncu --set "
                    "full collects "
                    "them).",
                    energy.prediction.missing_metrics.size(), metrics.size()));
  }
  for (Finding& finding : kernel.findings) {
    const ToolDefinition* tool = FindToolProducing(finding.tool);
    if (finding.energy_saving || !tool || !tool->energy_change) continue;
    std::map<std::string, double> thresholds = ResolveThresholds(*tool, options);
    ToolContext context{*inputs.launch, kernel.roofline,    kernel.stalls,   inputs.gpu,  inputs.sass,
                        inputs.ptxas,   inputs.source_page, inputs.timeline, &thresholds, &coefficients};
    std::string not_priced;
    if (std::optional<EnergyChange> change = tool->energy_change(context, counts, not_priced))
      finding.energy_saving = SavingOf(counts, *change, coefficients);
    if (!finding.energy_saving && !not_priced.empty())
      energy.notes.push_back(
          fmt::format("The energy saving of {} is not estimated: {}.", finding.tool, not_priced));
  }
  kernel.energy = std::move(energy);
}

}  // namespace kopt
