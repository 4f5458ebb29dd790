// Feedback renderer: the diagnosis as the compact prompt section a programmer
// agent (an LLM writing the next kernel version) receives. Per kernel: the
// class with its reason, then the findings in rank order with severity, gain,
// root cause, prioritized actions, the two or three numbers that matter and
// the hot locations; what could not be checked; nothing else. No tables of
// metrics, no ANSI, bounded length (docs/feedback-format.md).
//
// Untrusted strings pass through SanitizeForTerminal: no control characters,
// no line breaks inside an item.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "report/energy_section.h"
#include "report/markup_escape.h"
#include "report/renderer.h"
#include "report/summary.h"

namespace kopt {
namespace {

constexpr size_t kMaxKernels = 8;
constexpr size_t kMaxLinesPerKernel = 40;
constexpr size_t kMaxEvidenceRows = 3;
constexpr size_t kMaxActions = 3;
constexpr size_t kMaxHotSpots = 3;
constexpr size_t kMaxCollectionLines = 3;
constexpr size_t kMaxEnergyTerms = 4;

using Lines = std::vector<std::string>;

std::string Clean(std::string_view text) {
  return SanitizeForTerminal(text);
}

// The evidence rows worth a programmer's attention: the first rows (the
// finding's own test), and when other findings were merged in, the last row
// too (merged evidence is appended), so the merged cause stays visible.
std::vector<const Evidence*> KeyEvidence(const Finding& finding) {
  std::vector<const Evidence*> rows;
  const std::vector<Evidence>& evidence = finding.evidence;
  if (evidence.size() <= kMaxEvidenceRows) {
    for (const Evidence& row : evidence) rows.push_back(&row);
    return rows;
  }
  size_t leading = finding.merged_tools.empty() ? kMaxEvidenceRows : kMaxEvidenceRows - 1;
  for (size_t index = 0; index < leading; ++index) rows.push_back(&evidence[index]);
  if (!finding.merged_tools.empty()) rows.push_back(&evidence.back());
  return rows;
}

std::string EvidenceLine(const Evidence& evidence) {
  std::string line =
      fmt::format("   - {}: {}", Clean(evidence.metric),
                  FormatMeasurement(evidence.value, Clean(evidence.unit), QuantityStyle::kTrimmed));
  std::string threshold = ThresholdText(evidence);
  if (!threshold.empty()) line += " (threshold " + Clean(threshold) + ")";
  return line;
}

std::string ActionLine(const Recommendation& recommendation, size_t index) {
  std::string line = fmt::format("   {}. {}", index + 1, Clean(recommendation.change));
  if (!recommendation.expected_effect.empty())
    line += " → expected: " + Clean(recommendation.expected_effect);
  return line;
}

// "transpose.cu:14 SASS 0x0090 LDG.E … 71.0% of stalls; …" for the locations
// with the largest stall shares; empty when there are none.
std::string HotSpotLine(const Finding& finding) {
  std::vector<Location> locations = finding.locations;
  std::stable_sort(locations.begin(), locations.end(), [](const Location& left, const Location& right) {
    return left.stall_share > right.stall_share;
  });
  if (locations.size() > kMaxHotSpots) locations.resize(kMaxHotSpots);
  std::string line;
  for (const Location& location : locations) {
    std::string place = Clean(location.source_line);
    if (!location.sass_text.empty() || location.sass_offset != 0) {
      place += fmt::format("{}SASS 0x{:04x} {}", place.empty() ? "" : " ", location.sass_offset,
                           Clean(location.sass_text));
    }
    std::string waiting = WaitingText(location);
    line += fmt::format("{}{} ({} of stalls{})", line.empty() ? "" : "; ", place,
                        FormatFraction(location.stall_share, QuantityStyle::kTrimmed),
                        waiting.empty() ? "" : ", " + Clean(waiting));
  }
  return line.empty() ? "" : "   Hot spots: " + line;
}

Lines FindingLines(const Finding& finding, size_t rank) {
  Lines lines;
  lines.push_back(fmt::format("{}. [{}] {} — {} {}, confidence {}", rank, SeverityName(finding.severity),
                              Clean(finding.title), GainLabel(finding), GainText(finding),
                              FormatFraction(finding.confidence, QuantityStyle::kTrimmed)));
  if (const auto& saving = finding.energy_saving) {
    lines.push_back("   Energy: " + Clean(EnergySavingText(*saving)) +
                    (saving->changes.empty() ? "" : " — " + Clean(EnergyChangesText(*saving))));
  }
  if (!finding.root_cause.empty()) lines.push_back("   Root cause: " + Clean(finding.root_cause));
  std::string merged = MergedToolsText(finding);
  if (!merged.empty()) lines.push_back("   Same root cause, " + Clean(merged));
  std::vector<const Evidence*> evidence = KeyEvidence(finding);
  if (!evidence.empty()) lines.push_back("   Key numbers:");
  for (const Evidence* row : evidence) lines.push_back(EvidenceLine(*row));
  size_t actions = std::min(finding.recommendations.size(), kMaxActions);
  if (actions > 0) lines.push_back("   Actions, in order:");
  for (size_t index = 0; index < actions; ++index) {
    lines.push_back(ActionLine(finding.recommendations[index], index));
  }
  if (actions < finding.recommendations.size()) {
    lines.push_back(fmt::format("   ({} further actions omitted)", finding.recommendations.size() - actions));
  }
  std::string hot_spots = HotSpotLine(finding);
  if (!hot_spots.empty()) lines.push_back(hot_spots);
  return lines;
}

// Which tools could not run, one line per way of collecting their inputs.
Lines NotCheckedLines(const KernelDiagnosis& kernel) {
  if (kernel.skipped_tools.empty()) return {};
  Lines lines = {fmt::format("Not checked ({} tools lacked inputs):", kernel.skipped_tools.size())};
  std::vector<SkippedToolGroup> groups = GroupSkippedTools(kernel.skipped_tools);
  size_t shown = std::min(groups.size(), kMaxCollectionLines);
  for (size_t index = 0; index < shown; ++index) {
    std::string how = groups[index].how_to_collect.empty() ? "unknown" : groups[index].how_to_collect;
    lines.push_back(
        fmt::format("- {} — collect with {}", Clean(JoinList(groups[index].tools, 6)), Clean(how)));
  }
  if (shown < groups.size()) lines.push_back(fmt::format("- and {} more", groups.size() - shown));
  return lines;
}

// "Energy (model): 1.2 mJ per launch, 412 W dynamic; goes to DRAM traffic 41%, ..."
std::string EnergyLine(const KernelEnergy& energy) {
  if (energy.skipped)
    return "Energy (model): not predicted" +
           (energy.notes.empty() ? "" : " — " + Clean(energy.notes.front()));
  std::string terms;
  for (const EnergyTermRow& row : EnergyTermRows(energy, kMaxEnergyTerms))
    terms += (terms.empty() ? "" : ", ") + row.title + " " + row.share;
  return "Energy (model): " + Clean(EnergyHeadline(energy)) +
         (terms.empty() ? "" : "; goes to " + Clean(terms));
}

Lines KernelHeader(const KernelDiagnosis& kernel, size_t number, size_t count, double total_ns) {
  const RooflineAnalysis& roofline = kernel.roofline;
  std::string share = count > 1 && total_ns > 0
                          ? " (" + FormatFraction(KernelTimeNs(kernel) / total_ns, QuantityStyle::kTrimmed) +
                                " of profiled time)"
                          : "";
  Lines lines = {
      fmt::format("## Kernel {} of {}: {} — {}{}", number, count, Clean(KernelTitle(kernel)),
                  DurationCellText(kernel), share),
      Clean(IdentityLine(kernel)),
      fmt::format("Class: {} — {}", BottleneckClassName(roofline.bottleneck), Clean(ReasonText(roofline)))};
  if (!roofline.missing_metrics.empty()) {
    lines.push_back(
        fmt::format("Stage 1 lacked {} metrics; the class may be incomplete (collect with ncu --set full).",
                    roofline.missing_metrics.size()));
  }
  const Finding* primary = PrimaryFinding(kernel);
  if (primary != nullptr && IsHealthyVerdict(*primary)) {
    lines.push_back("Verdict: " + Clean(HealthyVerdictText(kernel, *primary)));
  }
  if (kernel.energy) lines.push_back(EnergyLine(*kernel.energy));
  return lines;
}

// The findings that fit the kernel's line budget (always the first), keeping
// `reserved` lines free, then a line naming those left out.
void AppendFindings(const KernelDiagnosis& kernel, size_t reserved, Lines& lines) {
  if (kernel.findings.empty()) {
    lines.push_back(kernel.roofline.missing_metrics.empty()
                        ? "Findings: none; no tool found a problem."
                        : "Findings: none; the profile lacks metrics the tools need (see above).");
    return;
  }
  lines.push_back("Findings, most important first:");
  size_t shown = 0;
  for (; shown < kernel.findings.size(); ++shown) {
    Lines finding = FindingLines(kernel.findings[shown], shown + 1);
    if (shown > 0 && lines.size() + finding.size() + reserved + 1 > kMaxLinesPerKernel) break;
    lines.insert(lines.end(), finding.begin(), finding.end());
  }
  if (shown == kernel.findings.size()) return;
  std::vector<std::string> omitted;
  for (size_t index = shown; index < kernel.findings.size(); ++index)
    omitted.push_back(kernel.findings[index].tool);
  lines.push_back(fmt::format("{} more findings omitted, each with a gain of at most {}: {}.",
                              kernel.findings.size() - shown,
                              FormatFraction(kernel.findings[shown].estimated_gain, QuantityStyle::kTrimmed),
                              Clean(JoinList(omitted, 5))));
}

std::string KernelSection(const KernelDiagnosis& kernel, size_t number, size_t count, double total_ns) {
  Lines lines = KernelHeader(kernel, number, count, total_ns);
  Lines not_checked = NotCheckedLines(kernel);
  AppendFindings(kernel, not_checked.size(), lines);
  lines.insert(lines.end(), not_checked.begin(), not_checked.end());
  std::string text = "\n";
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

class FeedbackRenderer : public Renderer {
 public:
  std::string Render(const Diagnosis& diagnosis) const override {
    std::string device = Clean(diagnosis.device_name.empty() ? "an unknown device" : diagnosis.device_name);
    std::string text = "# Performance feedback from kopt (profiled on " + device + ")\n";
    text += "Findings are ranked by estimated gain (a share of kernel time): act on the first one first.\n";
    std::vector<size_t> order = KernelsByDuration(diagnosis);
    double total_ns = TotalDurationNs(diagnosis);
    size_t shown = std::min(order.size(), kMaxKernels);
    for (size_t position = 0; position < shown; ++position) {
      text += KernelSection(diagnosis.kernels[order[position]], position + 1, order.size(), total_ns);
    }
    if (shown < order.size()) {
      double omitted_ns = 0;
      for (size_t position = shown; position < order.size(); ++position) {
        omitted_ns += KernelTimeNs(diagnosis.kernels[order[position]]);
      }
      text +=
          fmt::format("\n{} shorter kernels omitted ({} of profiled time).\n", order.size() - shown,
                      total_ns > 0 ? FormatFraction(omitted_ns / total_ns, QuantityStyle::kTrimmed) : "n/a");
    }
    if (diagnosis.kernels.empty()) text += "\nNo kernel launches were profiled.\n";
    return text;
  }
};

}  // namespace

std::unique_ptr<Renderer> MakeFeedbackRenderer(const RenderOptions& /*options*/) {
  return std::make_unique<FeedbackRenderer>();
}

}  // namespace kopt
