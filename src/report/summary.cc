#include "report/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "report/markup_escape.h"

namespace kopt {
namespace {

std::string UpperCase(std::string_view text) {
  std::string upper(text);
  for (char& character : upper)
    character = static_cast<char>(std::toupper(static_cast<unsigned char>(character)));
  return upper;
}

}  // namespace

std::string PrecisionLabel(std::string_view precision) {
  constexpr std::string_view kTensorPrefix = "tensor_";
  if (precision.substr(0, kTensorPrefix.size()) == kTensorPrefix) {
    return UpperCase(precision.substr(kTensorPrefix.size())) + " tensor";
  }
  return UpperCase(precision);
}

std::string MemoryLevelLabel(std::string_view level) {
  return UpperCase(level);
}

std::string BottleneckLabel(const RooflineAnalysis& roofline) {
  std::string text(BottleneckClassName(roofline.bottleneck));
  if (!roofline.busiest_memory_level.empty() && roofline.bottleneck == BottleneckClass::kMemoryBound)
    text += " (" + MemoryLevelLabel(roofline.busiest_memory_level) + ")";
  return text;
}

std::string_view OperationUnit(std::string_view precision) {
  return precision.find("int") != std::string_view::npos ? "OP" : "FLOP";
}

std::string DimensionsText(const LaunchDimensions& dimensions) {
  return fmt::format("{}×{}×{}", dimensions.x, dimensions.y, dimensions.z);
}

std::string LaunchSpreadText(const KernelDiagnosis& kernel) {
  const LaunchSpread& spread = kernel.launches;
  if (spread.count <= 1) return fmt::format("ncu launch ID {}", kernel.launch_id);
  std::string text = fmt::format("{} launches (ncu launch IDs {}–{})", spread.count, spread.first_launch_id,
                                 spread.last_launch_id);
  if (spread.median_duration_ns) {
    text += fmt::format(", duration min {} · median {} · max {}",
                        FormatDuration(spread.minimum_duration_ns.value_or(0), QuantityStyle::kTrimmed),
                        FormatDuration(*spread.median_duration_ns, QuantityStyle::kTrimmed),
                        FormatDuration(spread.maximum_duration_ns.value_or(0), QuantityStyle::kTrimmed));
  }
  return text + fmt::format("; diagnosed on ncu launch ID {} (the median)", kernel.launch_id);
}

std::string DurationCellText(const KernelDiagnosis& kernel) {
  std::string text = FormatDuration(kernel.roofline.duration_ns, QuantityStyle::kTrimmed);
  if (kernel.launches.count > 1) text += fmt::format(" × {}", kernel.launches.count);
  return text;
}

double KernelTimeNs(const KernelDiagnosis& kernel) {
  if (kernel.launches.count > 1 && kernel.launches.total_duration_ns)
    return *kernel.launches.total_duration_ns;
  return kernel.roofline.duration_ns;
}

std::string IdentityLine(const KernelDiagnosis& kernel) {
  std::string line = fmt::format("{} · grid {} · block {}", LaunchSpreadText(kernel),
                                 DimensionsText(kernel.grid), DimensionsText(kernel.block));
  if (kernel.registers_per_thread) {
    line += fmt::format(" · {} registers/thread",
                        FormatNumber(*kernel.registers_per_thread, QuantityStyle::kTrimmed));
  }
  if (kernel.shared_memory_per_block_bytes) {
    line += fmt::format(" · {} shared memory/block",
                        FormatBytes(*kernel.shared_memory_per_block_bytes, QuantityStyle::kTrimmed));
  }
  return line;
}

bool ShowFullSignature(const KernelDiagnosis& kernel, bool verbose) {
  if (kernel.kernel_name.empty() || kernel.kernel_name == KernelTitle(kernel)) return false;
  return verbose || kernel.kernel_name.size() <= 120;
}

std::string KernelTitle(const KernelDiagnosis& kernel) {
  if (!kernel.function_name.empty()) return ShortKernelName(kernel.function_name);
  if (!kernel.kernel_name.empty()) return kernel.kernel_name;
  return "kernel";
}

std::string ReasonText(const RooflineAnalysis& roofline) {
  std::string prefix = UpperCase(BottleneckClassName(roofline.bottleneck)) + ":";
  std::string_view reason = roofline.reason;
  if (reason.size() > prefix.size() && UpperCase(reason.substr(0, prefix.size())) == prefix) {
    reason.remove_prefix(prefix.size());
    while (!reason.empty() && reason.front() == ' ') reason.remove_prefix(1);
    std::string text(reason);
    if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
  }
  return roofline.reason;
}

const Finding* PrimaryFinding(const KernelDiagnosis& kernel) {
  return kernel.findings.empty() ? nullptr : &kernel.findings.front();
}

std::string NoFindingText(const KernelDiagnosis& kernel) {
  if (!kernel.roofline.missing_metrics.empty()) {
    return "none, but the profile lacks metrics the analysis needs (listed under missing metrics)";
  }
  return "none: no analysis tool found a problem";
}

std::string GainText(const Finding& finding) {
  return FormatFraction(finding.estimated_gain, QuantityStyle::kTrimmed) + " of kernel time";
}

bool IsHealthyVerdict(const Finding& finding) {
  return finding.tool == "healthy";
}

std::string SpeedOfLightText(const RooflineAnalysis& roofline) {
  return roofline.speed_of_light_known
             ? FormatPercent(roofline.speed_of_light_percent, QuantityStyle::kTrimmed)
             : "not measured";
}

std::string_view GainLabel(const Finding& finding) {
  return IsHealthyVerdict(finding) ? "next-order gain" : "est. gain";
}

std::string HealthyVerdictText(const KernelDiagnosis& kernel, const Finding& finding) {
  const RooflineAnalysis& roofline = kernel.roofline;
  std::string ceiling = "speed-of-light";
  double percent = roofline.speed_of_light_percent;
  if (roofline.bottleneck == BottleneckClass::kMemoryBound && !roofline.busiest_memory_level.empty() &&
      roofline.memory_percent_of_peak > 0) {
    ceiling = MemoryLevelLabel(roofline.busiest_memory_level);
    percent = roofline.memory_percent_of_peak;
  } else if (roofline.bottleneck == BottleneckClass::kComputeBound && !roofline.dominant_precision.empty() &&
             roofline.compute_percent_of_peak > 0) {
    ceiling = PrecisionLabel(roofline.dominant_precision);
    percent = roofline.compute_percent_of_peak;
  }
  return fmt::format("healthy — at {:.0f}% of its {} ceiling; next-order gain ≤ {:.0f}%", percent, ceiling,
                     std::ceil(finding.estimated_gain * 100 - 1e-9));
}

std::string WaitingText(const Location& location) {
  if (!(location.waiting_share > 0)) return "";
  return fmt::format("{} stalled at 0x{:04x} {} waiting for its result",
                     FormatFraction(location.waiting_share, QuantityStyle::kTrimmed),
                     location.waiting_sass_offset, TrimWhitespace(location.waiting_sass_text));
}

std::string MergedToolsText(const Finding& finding) {
  if (finding.merged_tools.empty()) return "";
  return "also explains: " + JoinList(finding.merged_tools);
}

std::vector<SkippedToolGroup> GroupSkippedTools(const std::vector<SkippedTool>& skipped) {
  std::vector<SkippedToolGroup> groups;
  for (const SkippedTool& tool : skipped) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const SkippedToolGroup& candidate) {
      return candidate.how_to_collect == tool.how_to_collect;
    });
    if (group == groups.end())
      group = groups.insert(groups.end(), SkippedToolGroup{tool.how_to_collect, {}, {}});
    group->tools.push_back(tool.tool);
    group->missing.insert(group->missing.end(), tool.missing.begin(), tool.missing.end());
  }
  for (SkippedToolGroup& group : groups) {
    std::sort(group.missing.begin(), group.missing.end());
    group.missing.erase(std::unique(group.missing.begin(), group.missing.end()), group.missing.end());
  }
  return groups;
}

std::string JoinList(const std::vector<std::string>& items, size_t limit) {
  size_t shown = limit == 0 ? items.size() : std::min(limit, items.size());
  std::string text;
  for (size_t index = 0; index < shown; ++index) text += (index == 0 ? "" : ", ") + items[index];
  if (shown < items.size()) text += fmt::format(" and {} more", items.size() - shown);
  return text;
}

std::string ThresholdText(const Evidence& evidence) {
  if (evidence.comparison.empty()) return "";
  return evidence.comparison + " " +
         FormatMeasurement(evidence.threshold, evidence.unit, QuantityStyle::kTrimmed);
}

std::vector<StallReason> TopStalls(const std::vector<StallReason>& stalls, size_t count) {
  std::vector<StallReason> sorted = stalls;
  std::stable_sort(sorted.begin(), sorted.end(), [](const StallReason& left, const StallReason& right) {
    return left.share > right.share;
  });
  if (count != 0 && sorted.size() > count) sorted.resize(count);
  return sorted;
}

std::string FloorText(const RooflineAnalysis& roofline) {
  if (roofline.floor_ns <= 0) return "";
  std::string text = "roofline floor " + FormatDuration(roofline.floor_ns, QuantityStyle::kTrimmed);
  if (roofline.duration_ns > 0) {
    text += fmt::format(": the kernel takes {}× the least time its work needs at the ceilings",
                        FormatNumber(roofline.duration_ns / roofline.floor_ns, QuantityStyle::kTrimmed));
  }
  return text;
}

std::string IntensityText(const RooflineAnalysis& roofline) {
  if (roofline.compute.empty())
    return "unknown (the profile has no FLOP counts; ncu --set full collects them)";
  if (!(roofline.total_flops > 0)) return "none (no floating-point work)";
  return FormatIntensity(roofline.arithmetic_intensity, QuantityStyle::kTrimmed);
}

std::vector<std::string> InputLines(const Diagnosis& diagnosis) {
  std::vector<std::string> lines;
  for (const InputUse& input : diagnosis.inputs) {
    std::string line = fmt::format("{} ({}, {})", input.path, input.role, input.origin);
    for (size_t index = 0; index < input.effects.size(); ++index)
      line += (index == 0 ? ": " : "; ") + input.effects[index];
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> NcuRuleLines(const KernelDiagnosis& kernel, size_t limit) {
  std::vector<std::string> lines;
  for (const NcuRuleResult& rule : kernel.ncu_rules) {
    if (limit != 0 && lines.size() == limit) break;
    std::string speedup =
        rule.estimated_speedup_percent
            ? ", est. speedup " + FormatPercent(*rule.estimated_speedup_percent, QuantityStyle::kTrimmed)
            : "";
    std::string_view description = rule.description;
    size_t end = description.find(". ");
    if (end != std::string_view::npos) description = description.substr(0, end + 1);
    lines.push_back(fmt::format("{} ({}{}): {}", rule.name, rule.type, speedup, description));
  }
  return lines;
}

std::vector<size_t> KernelsByDuration(const Diagnosis& diagnosis) {
  std::vector<size_t> order(diagnosis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t left, size_t right) {
    return KernelTimeNs(diagnosis.kernels[left]) > KernelTimeNs(diagnosis.kernels[right]);
  });
  return order;
}

double TotalDurationNs(const Diagnosis& diagnosis) {
  double total = 0;
  for (const KernelDiagnosis& kernel : diagnosis.kernels) total += KernelTimeNs(kernel);
  return total;
}

}  // namespace kopt
