#include "agents/evidence_digest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "profile/kernel_launch.h"
#include "report/markup_escape.h"
#include "report/summary.h"

namespace kopt::agents {
namespace {

size_t ShownKernels(const Diagnosis& diagnosis) {
  return std::min(diagnosis.kernels.size(), kMaxDigestKernels);
}

const KernelHotSpots* HotSpotsFor(const DigestInputs& inputs, const KernelDiagnosis& kernel) {
  for (const KernelHotSpots& spots : inputs.hot_spots) {
    if (spots.function_name == kernel.function_name) return &spots;
  }
  return nullptr;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The line number of "kernel.cu:42"; 0 when there is none.
long SourceLineNumber(const std::string& source_line) {
  size_t colon = source_line.rfind(':');
  if (colon == std::string::npos) return 0;
  return std::strtol(source_line.c_str() + colon + 1, nullptr, 10);
}

void WriteDevice(const Diagnosis& diagnosis, std::string& out) {
  out += fmt::format("profile: {}\ndevice: {}\n", diagnosis.source, diagnosis.device_name);
  if (!diagnosis.gpu) return;
  const GpuSpec& gpu = *diagnosis.gpu;
  out +=
      fmt::format("GPU spec row: {} (compute capability {}): {} SMs, DRAM {} peak, L2 {}, {} warps/SM max\n",
                  gpu.name, gpu.compute_capability, gpu.sm_count,
                  FormatBandwidth(gpu.dram_bytes_per_second, QuantityStyle::kTrimmed),
                  FormatBytes(gpu.l2_cache_bytes, QuantityStyle::kTrimmed), gpu.max_warps_per_sm);
}

void WriteLaunch(const KernelDiagnosis& kernel, std::string& out) {
  out += fmt::format("signature: {}\n", kernel.kernel_name);
  out += fmt::format("launch: grid {} ({} blocks), block {} ({} threads)", DimensionsText(kernel.grid),
                     kernel.grid.Count(), DimensionsText(kernel.block), kernel.block.Count());
  if (kernel.registers_per_thread)
    out += fmt::format(", {} registers/thread",
                       FormatNumber(*kernel.registers_per_thread, QuantityStyle::kTrimmed));
  if (kernel.shared_memory_per_block_bytes) {
    out += fmt::format(", {} shared memory/block",
                       FormatBytes(*kernel.shared_memory_per_block_bytes, QuantityStyle::kTrimmed));
  }
  out += "\n";
}

void WriteStage1(const RooflineAnalysis& roofline, std::string& out) {
  out += "stage 1 (roofline):\n";
  out += fmt::format("- duration: {}\n", FormatDuration(roofline.duration_ns, QuantityStyle::kTrimmed));
  out += fmt::format("- class: {}: {}\n", BottleneckClassName(roofline.bottleneck), ReasonText(roofline));
  out += fmt::format("- speed of light: {}\n", SpeedOfLightText(roofline));
  if (roofline.floor_ns > 0) {
    out += fmt::format("- roofline floor: {} (duration is {}× the floor)\n",
                       FormatDuration(roofline.floor_ns, QuantityStyle::kTrimmed),
                       FormatNumber(roofline.duration_ns / roofline.floor_ns, QuantityStyle::kTrimmed));
  }
  out += fmt::format("- arithmetic intensity: {} FLOP/byte; ridge point {} FLOP/byte\n",
                     FormatNumber(roofline.arithmetic_intensity, QuantityStyle::kTrimmed),
                     FormatNumber(roofline.ridge_point, QuantityStyle::kTrimmed));
  if (roofline.sm_throughput_percent) {
    out += fmt::format("- ncu SM throughput: {}\n",
                       FormatPercent(*roofline.sm_throughput_percent, QuantityStyle::kTrimmed));
  }
  if (roofline.memory_throughput_percent) {
    out += fmt::format("- ncu memory throughput: {}\n",
                       FormatPercent(*roofline.memory_throughput_percent, QuantityStyle::kTrimmed));
  }
  for (const ComputeWork& work : roofline.compute) {
    out += fmt::format("- compute {}: {} {}, achieved {}/s of {}/s peak ({} of peak)\n",
                       PrecisionLabel(work.precision), FormatNumber(work.operations, QuantityStyle::kTrimmed),
                       OperationUnit(work.precision),
                       FormatScaled(work.achieved_per_second, "FLOP", QuantityStyle::kTrimmed),
                       FormatScaled(work.peak_per_second, "FLOP", QuantityStyle::kTrimmed),
                       FormatPercent(work.percent_of_peak, QuantityStyle::kTrimmed));
  }
  for (const MemoryTraffic& level : roofline.memory) {
    out += fmt::format("- memory {}: {} moved, achieved {} of {} peak ({} of peak)\n",
                       MemoryLevelLabel(level.level), FormatBytes(level.bytes, QuantityStyle::kTrimmed),
                       FormatBandwidth(level.achieved_bytes_per_second, QuantityStyle::kTrimmed),
                       FormatBandwidth(level.peak_bytes_per_second, QuantityStyle::kTrimmed),
                       FormatPercent(level.percent_of_peak, QuantityStyle::kTrimmed));
  }
}

void WriteStalls(const KernelDiagnosis& kernel, std::string& out) {
  if (kernel.stalls.empty()) return;
  out += "warp stalls (share of stall cycles; cycles per issued instruction):\n";
  for (size_t index = 0; index < kernel.stalls.size() && index < 6; ++index) {
    const StallReason& stall = kernel.stalls[index];
    out +=
        fmt::format("- {}: {}; {} cycles\n", stall.name, FormatFraction(stall.share, QuantityStyle::kTrimmed),
                    FormatNumber(stall.cycles_per_issue, QuantityStyle::kTrimmed));
  }
}

std::string SourceLineText(const DigestInputs& inputs, const std::string& source_line) {
  long number = SourceLineNumber(source_line);
  if (number <= 0 || inputs.source_text.empty()) return "";
  std::vector<std::string> lines = SplitLines(inputs.source_text);
  if (static_cast<size_t>(number) > lines.size()) return "";
  return fmt::format(" `{}`", lines[number - 1]);
}

void WriteFindingDetails(const DigestInputs& inputs, const Finding& finding, std::string& out) {
  out += "  evidence:\n";
  for (const Evidence& evidence : finding.evidence) {
    std::string test = ThresholdText(evidence);
    out += fmt::format("  - {}: {}{}\n", evidence.metric,
                       FormatMeasurement(evidence.value, evidence.unit, QuantityStyle::kTrimmed),
                       test.empty() ? "" : " (test: " + test + ")");
  }
  out += "  recommendations (in priority order):\n";
  for (const Recommendation& recommendation : finding.recommendations) {
    out += fmt::format("  - {} | why: {} | effect: {}\n", recommendation.change, recommendation.why,
                       recommendation.expected_effect);
  }
  if (finding.locations.empty()) return;
  out += "  locations (share of stall samples):\n";
  for (size_t index = 0; index < finding.locations.size() && index < 5; ++index) {
    const Location& location = finding.locations[index];
    out += fmt::format("  - {}: 0x{:04x} {}", FormatFraction(location.stall_share, QuantityStyle::kTrimmed),
                       location.sass_offset, location.sass_text);
    if (!location.source_line.empty()) {
      out += fmt::format(" at {}{}", location.source_line, SourceLineText(inputs, location.source_line));
    }
    if (std::string waiting = WaitingText(location); !waiting.empty()) out += " (" + waiting + ")";
    out += "\n";
  }
}

void WriteFindings(const DigestInputs& inputs, const KernelDiagnosis& kernel, std::string& out) {
  if (kernel.findings.empty()) {
    out += fmt::format("findings: none ({})\n", NoFindingText(kernel));
    return;
  }
  out += "findings (ranked by estimated gain):\n";
  for (size_t index = 0; index < kernel.findings.size(); ++index) {
    const Finding& finding = kernel.findings[index];
    out += fmt::format("finding {}: [{}] {} (id {})\n", index + 1, SeverityName(finding.severity),
                       finding.title, finding.tool);
    out += fmt::format("  {}: {}; confidence {}\n", GainLabel(finding), GainText(finding),
                       FormatFraction(finding.confidence, QuantityStyle::kTrimmed));
    if (!finding.gain_method.empty()) out += fmt::format("  gain method: {}\n", finding.gain_method);
    if (!finding.root_cause.empty()) out += fmt::format("  root cause: {}\n", finding.root_cause);
    WriteFindingDetails(inputs, finding, out);
  }
}

void WriteHotSpots(const DigestInputs& inputs, const KernelDiagnosis& kernel, std::string& out) {
  const KernelHotSpots* spots = HotSpotsFor(inputs, kernel);
  if (!spots || spots->instructions.empty()) return;
  out += "hottest SASS instructions (ncu source page, share of stall samples):\n";
  for (const HotInstruction& instruction : spots->instructions) {
    out += fmt::format("- 0x{:04x} {}: {}\n", instruction.offset, instruction.sass,
                       FormatFraction(instruction.stall_share, QuantityStyle::kTrimmed));
  }
}

void WriteSkippedAndNotes(const KernelDiagnosis& kernel, std::string& out) {
  if (!kernel.skipped_tools.empty()) {
    out += "tools that could not run (missing inputs):";
    for (const SkippedTool& skipped : kernel.skipped_tools) out += " " + skipped.tool;
    out += "\n";
  }
  for (const std::string& note : kernel.notes) out += fmt::format("note: {}\n", note);
}

void WriteSource(const DigestInputs& inputs, std::string& out) {
  if (inputs.source_text.empty()) return;
  std::vector<std::string> lines = SplitLines(inputs.source_text);
  size_t shown = std::min(lines.size(), kMaxSourceLines);
  out += fmt::format("\n## kernel source: {} (line numbers first)\n```\n", inputs.source_file);
  for (size_t index = 0; index < shown; ++index) out += fmt::format("{:4} | {}\n", index + 1, lines[index]);
  out += "```\n";
  if (shown < lines.size()) out += fmt::format("(source cut after {} lines)\n", shown);
}

// Structured values at full precision, with labels naming what they are.
void AddKernelEvidence(const KernelDiagnosis& kernel, EvidenceSet& set) {
  std::string name = KernelTitle(kernel);
  auto add = [&](const std::string& what, double value, std::string_view unit) {
    set.Add(fmt::format("{}: {}", name, what), value, unit);
  };
  const RooflineAnalysis& roofline = kernel.roofline;
  add("duration (stage 1)", roofline.duration_ns, "ns");
  if (roofline.speed_of_light_known) {
    add("speed of light (stage 1)", roofline.speed_of_light_percent, "%");
    add("headroom to the busiest ceiling (100% − speed of light)", 100 - roofline.speed_of_light_percent,
        "%");
  }
  add("roofline floor (stage 1)", roofline.floor_ns, "ns");
  add("compute floor (stage 1)", roofline.compute_floor_ns, "ns");
  add("memory floor (stage 1)", roofline.memory_floor_ns, "ns");
  if (roofline.floor_ns > 0) add("duration / roofline floor", roofline.duration_ns / roofline.floor_ns, "x");
  add("arithmetic intensity (stage 1)", roofline.arithmetic_intensity, "FLOP/byte");
  add("ridge point (stage 1)", roofline.ridge_point, "FLOP/byte");
  add("total FLOP (stage 1)", roofline.total_flops, "FLOP");
  add("compute percent of peak (stage 1)", roofline.compute_percent_of_peak, "%");
  add("memory percent of peak (stage 1)", roofline.memory_percent_of_peak, "%");
  if (roofline.sm_throughput_percent) add("ncu SM throughput", *roofline.sm_throughput_percent, "%");
  if (roofline.memory_throughput_percent)
    add("ncu memory throughput", *roofline.memory_throughput_percent, "%");
  for (const ComputeWork& work : roofline.compute) {
    std::string label = PrecisionLabel(work.precision);
    add(label + " work", work.operations, "FLOP");
    add(label + " achieved rate", work.achieved_per_second, "FLOP/s");
    add(label + " peak rate", work.peak_per_second, "FLOP/s");
    add(label + " percent of peak", work.percent_of_peak, "%");
  }
  for (const MemoryTraffic& level : roofline.memory) {
    std::string label = MemoryLevelLabel(level.level);
    add(label + " bytes", level.bytes, "byte");
    add(label + " achieved bandwidth", level.achieved_bytes_per_second, "byte/s");
    add(label + " peak bandwidth", level.peak_bytes_per_second, "byte/s");
    add(label + " percent of peak", level.percent_of_peak, "%");
    if (level.achieved_bytes_per_second > 0) {
      add(label + " peak / achieved", level.peak_bytes_per_second / level.achieved_bytes_per_second, "x");
    }
  }
  for (auto [axis, value] : {std::pair{"x", kernel.grid.x}, {"y", kernel.grid.y}, {"z", kernel.grid.z}}) {
    add(fmt::format("grid.{}", axis), static_cast<double>(value), "block");
  }
  for (auto [axis, value] : {std::pair{"x", kernel.block.x}, {"y", kernel.block.y}, {"z", kernel.block.z}}) {
    add(fmt::format("block.{}", axis), static_cast<double>(value), "thread");
  }
  add("blocks in the grid", static_cast<double>(kernel.grid.Count()), "block");
  add("threads per block", static_cast<double>(kernel.block.Count()), "thread");
  add("threads in the grid", static_cast<double>(kernel.grid.Count() * kernel.block.Count()), "thread");
  add("warps per block", static_cast<double>((kernel.block.Count() + 31) / 32), "warp");
  if (kernel.registers_per_thread)
    add("registers per thread", *kernel.registers_per_thread, "register/thread");
  if (kernel.shared_memory_per_block_bytes) {
    add("shared memory per block", *kernel.shared_memory_per_block_bytes, "byte");
  }
  for (const StallReason& stall : kernel.stalls) {
    add("stall share " + stall.name, stall.share, "fraction");
    add("stall cycles per issue " + stall.name, stall.cycles_per_issue, "cycle/inst");
  }
}

void AddFindingEvidence(const KernelDiagnosis& kernel, EvidenceSet& set) {
  std::string name = KernelTitle(kernel);
  for (size_t index = 0; index < kernel.findings.size(); ++index) {
    const Finding& finding = kernel.findings[index];
    std::string prefix = fmt::format("{}: finding {} ({})", name, index + 1, finding.tool);
    set.Add(prefix + " estimated gain", finding.estimated_gain, "fraction");
    set.Add(prefix + " confidence", finding.confidence, "fraction");
    for (const Evidence& evidence : finding.evidence) {
      set.Add(prefix + " evidence " + evidence.metric, evidence.value, evidence.unit);
      if (!evidence.comparison.empty()) {
        set.Add(prefix + " threshold of " + evidence.metric, evidence.threshold, evidence.unit);
      }
    }
    for (const Location& location : finding.locations) {
      set.Add(prefix + " location", static_cast<double>(location.sass_offset), "offset");
      set.Add(prefix + " location stall share", location.stall_share, "fraction");
      if (location.waiting_share > 0) {
        set.Add(prefix + " location stall share waiting for its result", location.waiting_share, "fraction");
        set.Add(prefix + " location waiting", static_cast<double>(location.waiting_sass_offset), "offset");
      }
      if (long line = SourceLineNumber(location.source_line); line > 0) {
        set.Add(prefix + " location " + location.source_line, static_cast<double>(line), "line");
      }
    }
  }
}

void AddSpecEvidence(const GpuSpec& gpu, EvidenceSet& set) {
  std::string prefix = "GPU spec " + gpu.name + ": ";
  set.Add(prefix + "SM count", gpu.sm_count, "SM");
  set.Add(prefix + "DRAM bandwidth", gpu.dram_bytes_per_second, "byte/s");
  set.Add(prefix + "L2 cache", gpu.l2_cache_bytes, "byte");
  set.Add(prefix + "shared memory per SM", gpu.shared_memory_per_sm_bytes, "byte");
  set.Add(prefix + "registers per SM", gpu.registers_per_sm, "register");
  set.Add(prefix + "max warps per SM", gpu.max_warps_per_sm, "warp");
  set.Add(prefix + "FP32 peak", gpu.fp32_flops, "FLOP/s");
  set.Add(prefix + "FP64 peak", gpu.fp64_flops, "FLOP/s");
  set.Add(prefix + "FP16 tensor peak", gpu.fp16_tensor_flops, "FLOP/s");
  set.Add(prefix + "TF32 tensor peak", gpu.tf32_tensor_flops, "FLOP/s");
  set.Add(prefix + "boost clock", gpu.boost_clock_hz, "Hz");
}

}  // namespace

std::vector<KernelHotSpots> HotSpotsFromProfile(const Profile& profile, const Diagnosis& diagnosis,
                                                size_t limit) {
  std::vector<KernelHotSpots> result;
  for (const KernelDiagnosis& kernel : diagnosis.kernels) {
    const SourcePage* page = FindSourcePage(profile.source_pages, kernel.function_name);
    double total = page ? page->TotalStallSamples() : 0;
    if (!page || total <= 0) continue;
    std::vector<const SourcePageRow*> rows;
    for (const SourcePageRow& row : page->rows) {
      if (row.stall_samples && *row.stall_samples > 0) rows.push_back(&row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const SourcePageRow* left, const SourcePageRow* right) {
      return *left->stall_samples > *right->stall_samples;
    });
    KernelHotSpots spots{kernel.function_name, {}};
    for (size_t index = 0; index < rows.size() && index < limit; ++index) {
      spots.instructions.push_back(
          {rows[index]->offset, rows[index]->source, *rows[index]->stall_samples / total});
    }
    result.push_back(std::move(spots));
  }
  return result;
}

std::string RenderEvidenceDigest(const DigestInputs& inputs) {
  const Diagnosis& diagnosis = *inputs.diagnosis;
  std::string out = "# kopt evidence digest\n";
  WriteDevice(diagnosis, out);
  size_t shown = ShownKernels(diagnosis);
  for (size_t index = 0; index < shown; ++index) {
    const KernelDiagnosis& kernel = diagnosis.kernels[index];
    out += fmt::format("\n## kernel {} of {}: {} (launch {})\n", index + 1, diagnosis.kernels.size(),
                       KernelTitle(kernel), kernel.launch_id);
    WriteLaunch(kernel, out);
    WriteStage1(kernel.roofline, out);
    WriteStalls(kernel, out);
    WriteFindings(inputs, kernel, out);
    WriteHotSpots(inputs, kernel, out);
    WriteSkippedAndNotes(kernel, out);
  }
  if (shown < diagnosis.kernels.size()) {
    out += fmt::format("\n({} more kernel launches are not shown)\n", diagnosis.kernels.size() - shown);
  }
  for (const std::string& note : diagnosis.notes) out += fmt::format("profile note: {}\n", note);
  WriteSource(inputs, out);
  return out;
}

EvidenceSet BuildEvidenceSet(const DigestInputs& inputs) {
  EvidenceSet set;
  const Diagnosis& diagnosis = *inputs.diagnosis;
  for (size_t index = 0; index < ShownKernels(diagnosis); ++index) {
    AddKernelEvidence(diagnosis.kernels[index], set);
    AddFindingEvidence(diagnosis.kernels[index], set);
    if (const KernelHotSpots* spots = HotSpotsFor(inputs, diagnosis.kernels[index])) {
      for (const HotInstruction& instruction : spots->instructions) {
        set.Add("hot SASS instruction " + instruction.sass, static_cast<double>(instruction.offset),
                "offset");
        set.Add("stall share of " + instruction.sass, instruction.stall_share, "fraction");
      }
    }
  }
  if (diagnosis.gpu) AddSpecEvidence(*diagnosis.gpu, set);
  size_t source_lines = std::min(SplitLines(inputs.source_text).size(), kMaxSourceLines);
  for (size_t line = 1; line <= source_lines; ++line) {
    set.Add(fmt::format("{} line {}", inputs.source_file, line), static_cast<double>(line), "line");
  }
  // Every number of every digest line, outside the source listing: what the LLM saw.
  std::string digest = RenderEvidenceDigest(inputs);
  std::string without_source = digest.substr(0, digest.find("\n## kernel source:"));
  for (const std::string& line : SplitLines(without_source)) {
    set.AddNumbersIn("digest line \"" + Truncate(line, 100) + "\"", line);
  }
  return set;
}

}  // namespace kopt::agents
