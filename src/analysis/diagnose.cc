#include "analysis/diagnose.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "analysis/energy_analysis.h"
#include "analysis/launch_timeline.h"
#include "analysis/stalls.h"
#include "analysis/tool.h"
#include "core/quantity_format.h"
#include "core/text.h"
#include "profile/ncu_export.h"

namespace kopt {
namespace {

const GpuSpec* SpecFor(const Profile& profile, const DiagnoseOptions& options, std::string& device_name) {
  for (const KernelLaunch& launch : profile.launches) {
    if (auto name = launch.Text("device__attribute_display_name")) {
      device_name = *name;
      break;
    }
  }
  if (options.gpu) return options.gpu;
  return device_name.empty() ? nullptr : FindGpu(device_name);
}

// True when the function's SASS has packed-half instructions and every one is a
// constant materialization (`HFMA2.MMA Rd, -RZ, RZ, imm, imm`, a move the
// compiler issues on the FMA pipe), not FP16 arithmetic.
bool HalfInstructionsAreOnlyConstantMoves(const SassFunction& function) {
  int packed_half_opcodes = 0;
  for (const SassInstruction& instruction : function.instructions) {
    const std::string& opcode = instruction.opcode;
    if (opcode != "HFMA2" && opcode != "HADD2" && opcode != "HMUL2") continue;
    ++packed_half_opcodes;
    // The SASS parser classifies the -RZ, RZ form as a move, not FP16 work.
    if (instruction.instruction_class == InstructionClass::kFp16) return false;
  }
  return packed_half_opcodes > 0;
}

// ncu counts those moves as HFMA thread instructions; drop the FP16 "work"
// they would add to the roofline when the SASS proves it is not arithmetic.
void DiscountHalfConstantMoves(const Profile& profile, const KernelLaunch& launch,
                               const RooflineOptions& options, KernelDiagnosis& kernel,
                               std::vector<std::string>& effects) {
  if (!profile.sass) {
    auto& compute = kernel.roofline.compute;
    auto half = std::find_if(compute.begin(), compute.end(), [](const ComputeWork& work) {
      return work.precision == "fp16" && work.operations > 0;
    });
    if (half != compute.end()) {
      kernel.notes.push_back(fmt::format(
          "The roofline counts {} of FP16 work from ncu's HFMA/HADD/HMUL counts; the compiler also issues "
          "HFMA2.MMA as constant moves, which only the SASS listing tells apart (pass --sass, or put "
          "sass.txt "
          "beside the profile).",
          FormatOperations(half->operations, QuantityStyle::kTrimmed)));
    }
    return;
  }
  const SassFunction* function = FindSassFunction(*profile.sass, launch.FunctionName());
  if (!function || !HalfInstructionsAreOnlyConstantMoves(*function)) return;
  auto& compute = kernel.roofline.compute;
  auto half = std::find_if(compute.begin(), compute.end(),
                           [](const ComputeWork& work) { return work.precision == "fp16"; });
  if (half == compute.end()) return;
  double removed = half->operations;
  double intensity_before = kernel.roofline.arithmetic_intensity;
  kernel.roofline.total_flops -= half->operations;
  compute.erase(half);
  SummarizeRoofline(launch, options, kernel.roofline);
  kernel.notes.push_back(
      "ncu's HFMA count is left out of the roofline: the SASS shows only HFMA2.MMA constant "
      "moves (Rd, -RZ, RZ, …), no FP16 arithmetic.");
  effects.push_back(fmt::format(
      "{}: {} of FP16 \"work\" left out of the roofline (the SASS shows only HFMA2.MMA constant moves); "
      "arithmetic intensity {} → {}",
      kernel.function_name, FormatOperations(removed, QuantityStyle::kTrimmed),
      FormatIntensity(intensity_before, QuantityStyle::kTrimmed),
      FormatIntensity(kernel.roofline.arithmetic_intensity, QuantityStyle::kTrimmed)));
}

LaunchInputs InputsFor(const Profile& profile, const KernelLaunch& launch, const GpuSpec* spec,
                       const LaunchTimeline& timeline, const DiagnoseOptions& options) {
  LaunchInputs inputs;
  inputs.energy_coefficients = options.energy_coefficients;
  inputs.launch = &launch;
  inputs.gpu = spec;
  std::string function_name = launch.FunctionName();
  if (profile.sass) inputs.sass = FindSassFunction(*profile.sass, function_name);
  if (profile.ptxas) inputs.ptxas = FindPtxasFunction(*profile.ptxas, function_name);
  inputs.source_page = FindSourcePage(profile.source_pages, function_name);
  inputs.timeline = &timeline;
  return inputs;
}

// From the details page most tools lack their metrics: when ncu's own rules estimate more than kopt's
// top finding, the kernel's notes say the order of the findings cannot be trusted, and how to fix it.
void NoteUnreliableRanking(KernelDiagnosis& kernel) {
  if (kernel.ncu_rules.empty() || kernel.skipped_tools.empty()) return;
  const NcuRuleResult& rule = kernel.ncu_rules.front();
  double top = kernel.findings.empty() ? 0 : kernel.findings.front().estimated_gain * 100;
  if (!rule.estimated_speedup_percent || *rule.estimated_speedup_percent <= top) return;
  kernel.notes.insert(
      kernel.notes.begin(),
      fmt::format(
          "The order of the findings is unreliable from the details page: {} could not run for lack "
          "of its metrics, and ncu's own rule {} estimates {:.1f}% where kopt's top finding estimates "
          "{:.1f}%. For a ranking that weighs every tool, export the raw page: {}",
          CountText(kernel.skipped_tools.size(), "tool", "tools"), rule.name, *rule.estimated_speedup_percent,
          top, kRawPageCommand));
}

KernelDiagnosis DiagnoseLaunch(const Profile& profile, const KernelLaunch& launch, const GpuSpec* spec,
                               const LaunchTimeline& timeline, const DiagnoseOptions& options,
                               std::vector<std::string>& sass_effects) {
  KernelDiagnosis kernel;
  kernel.launch_id = launch.launch_id;
  kernel.kernel_name = launch.kernel_name;
  kernel.function_name = launch.FunctionName();
  kernel.grid = launch.grid;
  kernel.block = launch.block;
  kernel.registers_per_thread = launch.Metric("launch__registers_per_thread");
  kernel.shared_memory_per_block_bytes = launch.Metric("launch__shared_mem_per_block");
  kernel.roofline = AnalyzeRoofline(launch, spec, options.roofline, options.ceilings);
  DiscountHalfConstantMoves(profile, launch, options.roofline, kernel, sass_effects);
  for (const NcuRuleResult& rule : launch.ncu_rules) {
    if (rule.type == "OPT" || rule.type == "WRN") kernel.ncu_rules.push_back(rule);
  }
  std::stable_sort(
      kernel.ncu_rules.begin(), kernel.ncu_rules.end(), [](const NcuRuleResult& a, const NcuRuleResult& b) {
        return a.estimated_speedup_percent.value_or(-1) > b.estimated_speedup_percent.value_or(-1);
      });
  kernel.stalls = ExtractStallReasons(launch);
  LaunchInputs inputs = InputsFor(profile, launch, spec, timeline, options);
  RunTools(inputs, options.tools, kernel);
  NoteUnreliableRanking(kernel);
  AnalyzeEnergy(inputs, options.tools, kernel);
  if (const RooflineAnalysis& roofline = kernel.roofline;
      roofline.achievable_dram || roofline.achievable_fp32) {
    std::string text = "Achievable at this size (measured ceilings " + roofline.ceilings_table + "):";
    if (const auto& dram = roofline.achievable_dram)
      text += fmt::format(" {} of DRAM traffic take at least {} ({}; {})",
                          FormatBytes(dram->work, QuantityStyle::kFixed),
                          FormatDuration(dram->duration_ns, QuantityStyle::kFixed),
                          FormatBandwidth(dram->per_second, QuantityStyle::kFixed), dram->basis);
    if (const auto& fp32 = roofline.achievable_fp32)
      text += fmt::format("{} {} of FP32 work at least {} ({})", roofline.achievable_dram ? ";" : "",
                          FormatOperations(fp32->work, QuantityStyle::kFixed),
                          FormatDuration(fp32->duration_ns, QuantityStyle::kFixed),
                          FormatRate(fp32->per_second, QuantityStyle::kFixed));
    text += fmt::format(". The kernel runs at {:.0f}% of that.", roofline.achievable_percent);
    kernel.notes.push_back(text);
  }
  if (kernel.stalls.empty()) {
    kernel.notes.push_back(
        "No warp-stall metrics: collect with ncu --set full (or --section WarpStateStats) for "
        "the stall breakdown.");
  }
  if (!kernel.roofline.missing_metrics.empty()) {
    kernel.notes.push_back(
        fmt::format("{} that stage 1 uses {} absent from this profile; ncu --set full collects them.",
                    CountText(kernel.roofline.missing_metrics.size(), "metric", "metrics"),
                    kernel.roofline.missing_metrics.size() == 1 ? "is" : "are"));
  }
  return kernel;
}

// The tools that ran on any kernel and read an input of `source` (only the input called `name`, when
// not empty).
std::vector<std::string> ToolsReading(InputSource source, const Diagnosis& diagnosis,
                                      std::string_view name = "") {
  std::vector<std::string> tools;
  for (const ToolDefinition& tool : ToolRegistry()) {
    bool reads = std::any_of(tool.required.begin(), tool.required.end(), [&](const RequiredInput& input) {
      return input.source == source && (name.empty() || input.name == name);
    });
    if (!reads) continue;
    bool ran =
        std::any_of(diagnosis.kernels.begin(), diagnosis.kernels.end(), [&](const KernelDiagnosis& kernel) {
          return std::find(kernel.tools_run.begin(), kernel.tools_run.end(), tool.id) !=
                 kernel.tools_run.end();
        });
    if (ran) tools.push_back(tool.id);
  }
  return tools;
}

// What the program's launch timeline holds, in one line (the timeline input's effect).
std::string DescribeLaunchTrace(const TraceSummary& summary) {
  long long launches = 0;
  for (const KernelTraceSummary& kernel : summary.kernels) launches += kernel.launches;
  std::string copies = summary.memcpy_count > 0
                           ? fmt::format(", {} memcpy ({}, {})", summary.memcpy_count,
                                         FormatBytes(summary.memcpy_bytes, QuantityStyle::kTrimmed),
                                         FormatDuration(summary.memcpy_ns, QuantityStyle::kTrimmed))
                           : "";
  double busy = summary.span_ns > 0 ? summary.gpu_busy_ns / summary.span_ns : 0;
  return fmt::format(
      "{} kernel launches of {} kernels{}, timed by CUPTI without ncu, over {}; the GPU was busy {:.1f}% of "
      "that span",
      launches, summary.kernels.size(), copies, FormatDuration(summary.span_ns, QuantityStyle::kTrimmed),
      100 * busy);
}

std::vector<InputUse> DescribeInputs(const Profile& profile, const Diagnosis& diagnosis,
                                     const std::vector<std::string>& sass_effects) {
  std::vector<InputUse> uses;
  for (const ProfileInput& input : profile.inputs) {
    InputUse use{input.path, input.role, input.origin, {}};
    std::optional<InputSource> source;
    if (input.role == "SASS listing") source = InputSource::kSass;
    if (input.role == "ptxas report") source = InputSource::kPtxas;
    if (input.role == "source page") source = InputSource::kSourcePage;
    if (input.role == "launch timeline") {
      if (profile.trace) use.effects.push_back(DescribeLaunchTrace(SummarizeLaunchTrace(*profile.trace)));
      std::vector<std::string> tools = ToolsReading(InputSource::kLaunches, diagnosis, kLaunchTimelineInput);
      use.effects.push_back(tools.empty() ? std::string("read by no tool that ran")
                                          : "read by the tools " + fmt::format("{}", fmt::join(tools, ", ")));
    } else if (!source) {
      size_t launches = profile.all_launches.empty() ? profile.launches.size() : profile.all_launches.size();
      use.effects.push_back(fmt::format(
          "the metrics of {}; {} diagnosed as {}", CountText(launches, "launch", "launches"),
          profile.launches.size(), CountText(diagnosis.kernels.size(), "kernel group", "kernel groups")));
    } else {
      std::vector<std::string> tools = ToolsReading(*source, diagnosis);
      use.effects.push_back(tools.empty() ? std::string("read by no tool that ran")
                                          : "read by the tools " + fmt::format("{}", fmt::join(tools, ", ")));
      if (*source == InputSource::kSass)
        use.effects.insert(use.effects.end(), sass_effects.begin(), sass_effects.end());
    }
    uses.push_back(std::move(use));
  }
  return uses;
}

}  // namespace

Diagnosis Diagnose(const Profile& profile, const DiagnoseOptions& options) {
  Diagnosis diagnosis;
  diagnosis.source = profile.source;
  const GpuSpec* spec = SpecFor(profile, options, diagnosis.device_name);
  if (options.ceilings) {
    diagnosis.notes.push_back(fmt::format(
        "Ceilings: the datasheet/profile peaks, and the measured ceilings of {} from {} (kopt "
        "calibrate{}{}): "
        "floors and healthy verdicts use what this GPU achieves at each kernel's size.",
        options.ceilings->gpu_name, options.ceilings->path.empty() ? "a table" : options.ceilings->path,
        options.ceilings->measured_at.empty() ? "" : ", ", options.ceilings->measured_at));
  }
  if (const EnergyCoefficients* energy = options.energy_coefficients) {
    diagnosis.notes.push_back(fmt::format(
        "Energy: the model's coefficients for {} from {}{}{} (docs/energy.md): the energy figures are "
        "predictions from the profile's counters, not measurements.",
        energy->gpu_name, energy->path.empty() ? "a table" : energy->path,
        energy->measured_at.empty() ? "" : ", calibrated ", energy->measured_at));
  }
  if (spec) {
    diagnosis.gpu = *spec;
    // --gpu naming another GPU than the one that ran the kernel: said, never silent.
    const GpuSpec* profiled = diagnosis.device_name.empty() ? nullptr : FindGpu(diagnosis.device_name);
    if (options.gpu && !diagnosis.device_name.empty() && profiled != options.gpu) {
      diagnosis.notes.push_back(fmt::format(
          "GPU mismatch: --gpu chose the table's {}, but the profile was captured on {}{}: the ceilings the "
          "profile does not report itself (and the gains and floors computed from them) are those of a GPU "
          "that did not run this kernel.",
          options.gpu->name, diagnosis.device_name,
          profiled ? fmt::format(" (the table's {})", profiled->name) : std::string()));
    }
  } else {
    diagnosis.notes.push_back(
        fmt::format("Device \"{}\" is not in kopt's GPU table; ceilings come from the profile "
                    "alone (kopt gpus lists the table).",
                    diagnosis.device_name.empty() ? "unknown" : diagnosis.device_name));
  }
  // The whole timeline, also launches not selected; each group of repeated
  // launches is diagnosed once, on its median-duration launch.
  LaunchTimeline timeline(profile.all_launches.empty() ? profile.launches : profile.all_launches,
                          profile.trace ? &*profile.trace : nullptr);
  std::vector<std::string> sass_effects;
  for (const LaunchGroup& group : GroupLaunches(profile.launches)) {
    const KernelLaunch& launch = profile.launches[group.representative];
    KernelDiagnosis kernel = DiagnoseLaunch(profile, launch, spec, timeline, options, sass_effects);
    kernel.launches.count = static_cast<long long>(group.members.size());
    kernel.launches.first_launch_id = profile.launches[group.members.front()].launch_id;
    kernel.launches.last_launch_id = profile.launches[group.members.back()].launch_id;
    kernel.launches.minimum_duration_ns = group.minimum_ns;
    kernel.launches.median_duration_ns = group.median_ns;
    kernel.launches.maximum_duration_ns = group.maximum_ns;
    kernel.launches.total_duration_ns = group.total_ns;
    diagnosis.kernels.push_back(std::move(kernel));
  }
  diagnosis.inputs = DescribeInputs(profile, diagnosis, sass_effects);
  return diagnosis;
}

}  // namespace kopt
