// The check of hypotheses against a diagnosis (hypotheses.h): confirmed by a
// finding, refuted by the tools that ran or by stage 1, else undecided.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "agents/hypotheses.h"
#include "analysis/tool.h"
#include "core/quantity_format.h"
#include "profile/cuda_source.h"
#include "profile/kernel_launch.h"

namespace kopt::agents {

std::string_view HypothesisVerdictName(HypothesisVerdict verdict) {
  switch (verdict) {
    case HypothesisVerdict::kConfirmed: return "confirmed";
    case HypothesisVerdict::kRefuted: return "refuted";
    case HypothesisVerdict::kUndecided: return "undecided";
  }
  return "undecided";
}

namespace {

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The tool that produces finding id `id` (its own id or a documented variant).
const ToolDefinition* ToolProducing(const std::string& id) {
  return FindToolProducing(id);
}

std::string FormatEvidence(const Evidence& evidence) {
  // Human units ("67.1 Msector", "838 µs"), never an exponent.
  std::string text = fmt::format("{} = {}", evidence.metric,
                                 FormatMeasurement(evidence.value, evidence.unit, QuantityStyle::kTrimmed));
  if (!evidence.comparison.empty()) {
    text += fmt::format(" ({} {})", evidence.comparison,
                        FormatMeasurement(evidence.threshold, evidence.unit, QuantityStyle::kTrimmed));
  }
  return text;
}

std::string FormatEvidenceList(const std::vector<Evidence>& rows) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < rows.size() && i < 4; ++i) parts.push_back(FormatEvidence(rows[i]));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::optional<CheckedHypothesis> Confirmation(const Hypothesis& hypothesis, const KernelDiagnosis& kernel) {
  for (const Finding& finding : kernel.findings) {
    bool direct = Contains(hypothesis.confirming_findings, finding.tool);
    auto merged =
        std::find_if(finding.merged_tools.begin(), finding.merged_tools.end(),
                     [&](const std::string& tool) { return Contains(hypothesis.confirming_findings, tool); });
    if (!direct && merged == finding.merged_tools.end()) continue;
    CheckedHypothesis checked{
        hypothesis, HypothesisVerdict::kConfirmed, kernel.function_name, finding.tool, finding.evidence, ""};
    std::string via = direct ? "" : fmt::format(" (its {} finding was merged into it)", *merged);
    checked.explanation =
        fmt::format("confirmed by {}{}: {}", finding.tool, via, FormatEvidenceList(finding.evidence));
    return checked;
  }
  return std::nullopt;
}

std::vector<Evidence> StageOneEvidence(const RooflineAnalysis& roofline) {
  return {Evidence{"compute_percent_of_peak", roofline.compute_percent_of_peak, "%", "", 0},
          Evidence{"memory_percent_of_peak", roofline.memory_percent_of_peak, "%", "", 0},
          Evidence{"speed_of_light_percent", roofline.speed_of_light_percent, "%", "", 0},
          Evidence{"duration", roofline.duration_ns, "ns", "", 0}};
}

// Below this percent of its peak, a side of the roofline cannot be what limits a kernel.
constexpr double kIdleSidePercent = 30;

// Stage 1 contradicts a hypothesis about memory traffic on a compute-bound
// kernel whose memory side is nearly idle, and one about instruction cost on a
// memory-bound kernel whose compute side is nearly idle.
std::optional<std::string> StageOneContradiction(const Hypothesis& hypothesis,
                                                 const RooflineAnalysis& roofline) {
  auto all_in = [&](ToolSide side) {
    return std::all_of(hypothesis.confirming_findings.begin(), hypothesis.confirming_findings.end(),
                       [&](const std::string& id) {
                         const ToolDefinition* tool = FindToolProducing(id);
                         return tool && tool->side == side;
                       });
  };
  if (hypothesis.confirming_findings.empty()) return std::nullopt;
  if (all_in(ToolSide::kMemory) && roofline.bottleneck == BottleneckClass::kComputeBound &&
      roofline.memory_percent_of_peak < kIdleSidePercent) {
    return fmt::format(
        "the kernel is compute-bound (compute {:.1f}% of peak) and its memory side is at {:.1f}% of peak "
        "(< {:.0f}%)",
        roofline.compute_percent_of_peak, roofline.memory_percent_of_peak, kIdleSidePercent);
  }
  if (all_in(ToolSide::kCompute) && roofline.bottleneck == BottleneckClass::kMemoryBound &&
      roofline.compute_percent_of_peak < kIdleSidePercent) {
    return fmt::format(
        "the kernel is memory-bound (memory {:.1f}% of peak) and its compute side is at {:.1f}% of peak "
        "(< {:.0f}%)",
        roofline.memory_percent_of_peak, roofline.compute_percent_of_peak, kIdleSidePercent);
  }
  return std::nullopt;
}

}  // namespace

CheckedHypothesis CheckHypothesis(const Hypothesis& hypothesis, const KernelDiagnosis& kernel) {
  if (std::optional<CheckedHypothesis> confirmed = Confirmation(hypothesis, kernel)) return *confirmed;
  CheckedHypothesis checked{hypothesis, HypothesisVerdict::kUndecided, kernel.function_name, "", {}, ""};
  std::vector<std::string> ran;
  for (const std::string& id : hypothesis.confirming_findings) {
    const ToolDefinition* tool = ToolProducing(id);
    if (!tool) continue;
    auto skipped = std::find_if(kernel.skipped_tools.begin(), kernel.skipped_tools.end(),
                                [&](const SkippedTool& entry) { return entry.tool == tool->id; });
    if (skipped != kernel.skipped_tools.end()) {
      if (std::optional<std::string> contradiction = StageOneContradiction(hypothesis, kernel.roofline)) {
        checked.verdict = HypothesisVerdict::kRefuted;
        checked.evidence = StageOneEvidence(kernel.roofline);
        checked.explanation =
            fmt::format("refuted by stage 1 ({} was skipped): {}", tool->id, *contradiction);
        return checked;
      }
      checked.explanation = fmt::format("undecided: tool {} was skipped (missing {}; {})", tool->id,
                                        fmt::join(skipped->missing, ", "), skipped->how_to_collect);
      return checked;
    }
    if (!Contains(ran, tool->id)) ran.push_back(tool->id);
  }
  if (ran.empty()) {
    checked.explanation = fmt::format("undecided: no analysis tool produces {}",
                                      fmt::join(hypothesis.confirming_findings, ", "));
    return checked;
  }
  const RooflineAnalysis& roofline = kernel.roofline;
  checked.verdict = HypothesisVerdict::kRefuted;
  checked.evidence = StageOneEvidence(roofline);
  bool healthy = std::any_of(kernel.findings.begin(), kernel.findings.end(),
                             [](const Finding& finding) { return finding.tool == "healthy"; });
  checked.explanation = fmt::format(
      "refuted: {} ran and did not fire; stage 1 says {} (compute {:.1f}% and memory {:.1f}% of peak, {}){}",
      fmt::join(ran, ", "), BottleneckClassName(roofline.bottleneck), roofline.compute_percent_of_peak,
      roofline.memory_percent_of_peak, FormatDuration(roofline.duration_ns, QuantityStyle::kTrimmed),
      healthy ? "; the kernel was judged healthy" : "");
  return checked;
}

std::vector<CheckedHypothesis> CheckHypotheses(const std::vector<Hypothesis>& hypotheses,
                                               const Diagnosis& diagnosis) {
  std::vector<CheckedHypothesis> results;
  for (const Hypothesis& hypothesis : hypotheses) {
    std::vector<CheckedHypothesis> per_kernel;
    for (const KernelDiagnosis& kernel : diagnosis.kernels) {
      bool matches = hypothesis.kernel.empty() || kernel.function_name == hypothesis.kernel ||
                     SourceNameOf(kernel.function_name) == hypothesis.kernel ||
                     SourceNameOf(FunctionNameOf(kernel.kernel_name)) == hypothesis.kernel;
      if (matches) per_kernel.push_back(CheckHypothesis(hypothesis, kernel));
    }
    if (per_kernel.empty()) {
      CheckedHypothesis checked{hypothesis, HypothesisVerdict::kUndecided, "", "", {}, ""};
      checked.explanation = "undecided: no profiled kernel named '" + hypothesis.kernel + "'";
      results.push_back(std::move(checked));
      continue;
    }
    auto with = [&](HypothesisVerdict verdict) {
      return std::find_if(per_kernel.begin(), per_kernel.end(),
                          [&](const CheckedHypothesis& checked) { return checked.verdict == verdict; });
    };
    auto chosen = with(HypothesisVerdict::kConfirmed);
    if (chosen == per_kernel.end()) chosen = with(HypothesisVerdict::kUndecided);
    if (chosen == per_kernel.end()) chosen = per_kernel.begin();  // all refuted
    results.push_back(std::move(*chosen));
  }
  return results;
}

}  // namespace kopt::agents
