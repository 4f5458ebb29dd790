// Markdown renderer (GitHub-flavoured tables). Names (kernels, metrics, tools,
// files) are written as code spans; free text is escaped, so untrusted
// strings render literally and cannot inject HTML or break a table.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "report/energy_section.h"
#include "report/markup_escape.h"
#include "report/narrative_section.h"
#include "report/renderer.h"
#include "report/summary.h"
#include "report/text_table.h"

namespace kopt {
namespace {

std::string Row(const std::vector<std::string>& cells) {
  return MarkdownTableRow(cells);
}

// A table header: names, and per column ":" alignment (true = right).
std::string Header(const std::vector<std::string>& names, const std::vector<bool>& right_aligned) {
  return "\n" + MarkdownTableRow(names) +
         MarkdownTableRule(names.size(), right_aligned, MarkdownRule::kSpaced);
}

// Names as code spans, separated by commas.
std::string CodeList(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + MarkdownCode(name);
  return text;
}

std::string SeverityBadge(Severity severity) {
  std::string name(SeverityName(severity));
  for (char& character : name)
    character = static_cast<char>(std::toupper(static_cast<unsigned char>(character)));
  return "[" + name + "]";
}

std::string DocumentHeader(const Diagnosis& diagnosis) {
  std::string text = "# kopt diagnosis\n" + Header({"", ""}, {});
  if (!diagnosis.source.empty()) text += Row({"source", MarkdownCode(diagnosis.source)});
  std::string device = EscapeMarkdown(diagnosis.device_name.empty() ? "unknown" : diagnosis.device_name);
  if (diagnosis.gpu) device += " (spec: " + EscapeMarkdown(diagnosis.gpu->name) + ")";
  text += Row({"device", device});
  text += Row({"kernels", std::to_string(diagnosis.kernels.size())});
  text += Row({"kopt", KOPT_VERSION});
  return text;
}

std::string Summary(const Diagnosis& diagnosis) {
  if (diagnosis.kernels.size() < 2) return "";
  std::string text = "\n## Summary: kernels by duration\n";
  text += Header({"#", "kernel", "duration", "share of time", "class", "speed of light", "top finding"},
                 {true, false, true, true, false, true, false});
  double total = TotalDurationNs(diagnosis);
  for (size_t index : KernelsByDuration(diagnosis)) {
    const KernelDiagnosis& kernel = diagnosis.kernels[index];
    const Finding* primary = PrimaryFinding(kernel);
    text +=
        Row({std::to_string(index + 1), MarkdownCode(KernelTitle(kernel)), DurationCellText(kernel),
             total > 0 ? FormatFraction(KernelTimeNs(kernel) / total, QuantityStyle::kTrimmed) : "n/a",
             std::string(BottleneckClassName(kernel.roofline.bottleneck)), SpeedOfLightText(kernel.roofline),
             primary ? SeverityBadge(primary->severity) + " " + EscapeMarkdown(primary->title) : "none"});
  }
  return text;
}

std::string Identity(const KernelDiagnosis& kernel, size_t number, bool verbose) {
  std::string text = fmt::format("\n## Kernel {}: {}\n\n", number, MarkdownCode(KernelTitle(kernel)));
  if (ShowFullSignature(kernel, verbose)) {
    text += MarkdownCode(kernel.kernel_name) + "\n\n";
  }
  return text + EscapeMarkdown(IdentityLine(kernel)) + "\n";
}

// The verdict first, as a block quote: the class with its reason and the top finding.
std::string Verdict(const KernelDiagnosis& kernel) {
  std::string text =
      fmt::format("\n> **Bottleneck: {}** — {}\n", BottleneckClassName(kernel.roofline.bottleneck),
                  EscapeMarkdown(ReasonText(kernel.roofline)));
  const Finding* primary = PrimaryFinding(kernel);
  if (primary == nullptr)
    return text + ">\n> **Top finding:** " + EscapeMarkdown(NoFindingText(kernel)) + "\n";
  if (IsHealthyVerdict(*primary)) {
    return text + ">\n> **Verdict:** " + EscapeMarkdown(HealthyVerdictText(kernel, *primary)) + "\n";
  }
  return text + fmt::format(">\n> **Top finding: {} {}** — estimated gain {}\n",
                            SeverityBadge(primary->severity), EscapeMarkdown(primary->title),
                            GainText(*primary));
}

std::string PeakCells(double peak, double percent, std::string_view unit, std::string* percent_cell) {
  *percent_cell = peak > 0 ? FormatPercent(percent, QuantityStyle::kTrimmed) : "n/a";
  return peak > 0 ? FormatScaled(peak, unit, QuantityStyle::kTrimmed) : "unknown";
}

std::string RooflineTables(const RooflineAnalysis& roofline) {
  std::string text;
  if (!roofline.compute.empty()) {
    text += Header({"precision", "work", "achieved", "peak", "% of peak", "peak source"},
                   {false, true, true, true, true, false});
    for (const ComputeWork& work : roofline.compute) {
      std::string unit(OperationUnit(work.precision)), percent;
      std::string peak = PeakCells(work.peak_per_second, work.percent_of_peak, unit + "/s", &percent);
      text += Row({EscapeMarkdown(PrecisionLabel(work.precision)),
                   FormatScaled(work.operations, unit, QuantityStyle::kTrimmed),
                   FormatScaled(work.achieved_per_second, unit + "/s", QuantityStyle::kTrimmed), peak,
                   percent, EscapeMarkdown(work.peak_source)});
    }
  }
  if (!roofline.memory.empty()) {
    text += Header({"memory level", "bytes", "achieved", "peak", "% of peak", "peak source"},
                   {false, true, true, true, true, false});
    for (const MemoryTraffic& traffic : roofline.memory) {
      std::string percent;
      std::string peak = PeakCells(traffic.peak_bytes_per_second, traffic.percent_of_peak, "B/s", &percent);
      text += Row({EscapeMarkdown(MemoryLevelLabel(traffic.level)),
                   FormatBytes(traffic.bytes, QuantityStyle::kTrimmed),
                   FormatBandwidth(traffic.achieved_bytes_per_second, QuantityStyle::kTrimmed), peak, percent,
                   EscapeMarkdown(traffic.peak_source)});
    }
  }
  return text;
}

std::string Stage1(const RooflineAnalysis& roofline) {
  std::string text = "\n### Stage 1: roofline\n\n";
  text +=
      fmt::format("- Duration: {}; speed of light: {}\n",
                  FormatDuration(roofline.duration_ns, QuantityStyle::kTrimmed), SpeedOfLightText(roofline));
  std::string floor = FloorText(roofline);
  if (!floor.empty()) text += "- " + EscapeMarkdown(floor) + "\n";
  text += "- Arithmetic intensity: " + IntensityText(roofline);
  if (roofline.ridge_point > 0) {
    text +=
        fmt::format("; ridge point: {} ({})", FormatIntensity(roofline.ridge_point, QuantityStyle::kTrimmed),
                    EscapeMarkdown(PrecisionLabel(roofline.dominant_precision)));
  }
  text += "\n";
  if (roofline.sm_throughput_percent || roofline.memory_throughput_percent) {
    auto percent = [](const std::optional<double>& value) {
      return value ? FormatPercent(*value, QuantityStyle::kTrimmed) : std::string("n/a");
    };
    text += fmt::format("- ncu speed of light: SM {}, memory {}\n", percent(roofline.sm_throughput_percent),
                        percent(roofline.memory_throughput_percent));
  }
  return text + RooflineTables(roofline);
}

std::string Stalls(const KernelDiagnosis& kernel, const RenderOptions& options) {
  std::string text = "\n### Warp stalls\n";
  if (kernel.stalls.empty()) return text + "\nNot collected (needs the WarpStateStats section).\n";
  std::vector<StallReason> stalls = TopStalls(kernel.stalls, options.verbose ? 0 : 10);
  text += Header({"reason", "share of stall cycles", "cycles per issued instruction"}, {false, true, true});
  for (const StallReason& stall : stalls) {
    text += Row({MarkdownCode(stall.name), FormatFraction(stall.share, QuantityStyle::kTrimmed),
                 FormatNumber(stall.cycles_per_issue, QuantityStyle::kTrimmed)});
  }
  if (stalls.size() < kernel.stalls.size()) {
    text += fmt::format("\n{} smaller reasons not shown.\n", kernel.stalls.size() - stalls.size());
  }
  return text;
}

std::string FindingEvidence(const Finding& finding) {
  if (finding.evidence.empty()) return "";
  std::string text = "\n**Evidence**\n" + Header({"metric", "value", "test"}, {false, true, false});
  for (const Evidence& evidence : finding.evidence) {
    text += Row({MarkdownCode(evidence.metric),
                 EscapeMarkdown(FormatMeasurement(evidence.value, evidence.unit, QuantityStyle::kTrimmed)),
                 EscapeMarkdown(ThresholdText(evidence))});
  }
  return text;
}

std::string FindingRecommendations(const Finding& finding) {
  if (finding.recommendations.empty()) return "";
  std::string text = "\n**Recommendations**\n\n";
  for (size_t index = 0; index < finding.recommendations.size(); ++index) {
    const Recommendation& recommendation = finding.recommendations[index];
    text += fmt::format("{}. **{}**", index + 1, EscapeMarkdown(recommendation.change));
    if (!recommendation.why.empty()) text += " — " + EscapeMarkdown(recommendation.why);
    if (!recommendation.expected_effect.empty()) {
      text += " *Expected effect:* " + EscapeMarkdown(recommendation.expected_effect);
    }
    text += "\n";
  }
  return text;
}

std::string FindingLocations(const Finding& finding) {
  if (finding.locations.empty()) return "";
  std::string text =
      "\n**Locations**\n" + Header({"source", "SASS", "share of stalls"}, {false, false, true});
  for (const Location& location : finding.locations) {
    bool has_sass = !location.sass_text.empty() || location.sass_offset != 0;
    std::string sass =
        has_sass ? MarkdownCode(fmt::format("0x{:04x}  {}", location.sass_offset, location.sass_text)) : "-";
    std::string waiting = WaitingText(location);
    if (!waiting.empty()) sass += " (" + EscapeMarkdown(waiting) + ")";
    text += Row({location.source_line.empty() ? "-" : MarkdownCode(location.source_line), sass,
                 FormatFraction(location.stall_share, QuantityStyle::kTrimmed)});
  }
  return text;
}

std::string FindingSection(const Finding& finding, size_t rank) {
  std::string text = fmt::format("\n#### {}. {} {}\n\n", rank, SeverityBadge(finding.severity),
                                 EscapeMarkdown(finding.title));
  text +=
      (IsHealthyVerdict(finding) ? "- **Next-order gain:** " : "- **Estimated gain:** ") + GainText(finding);
  if (!finding.gain_method.empty()) text += " (method: " + EscapeMarkdown(finding.gain_method) + ")";
  text += "\n- **Confidence:** " + FormatFraction(finding.confidence, QuantityStyle::kTrimmed) + "\n";
  text += "- **Tool:** " + MarkdownCode(finding.tool) + "\n";
  if (const auto& saving = finding.energy_saving) {
    text += "- **Energy:** " + EscapeMarkdown(EnergySavingText(*saving));
    if (!saving->method.empty()) text += " (method: " + EscapeMarkdown(saving->method) + ")";
    if (!saving->changes.empty()) text += "; counts: " + EscapeMarkdown(EnergyChangesText(*saving));
    text += "\n";
  }
  if (!finding.merged_tools.empty()) {
    text += "- **Also explains:** " + CodeList(finding.merged_tools) +
            " (same root cause; their evidence is below)\n";
  }
  if (!finding.root_cause.empty()) text += "\n**Root cause.** " + EscapeMarkdown(finding.root_cause) + "\n";
  return text + FindingEvidence(finding) + FindingRecommendations(finding) + FindingLocations(finding);
}

// The energy model's prediction: where the energy goes, and the findings that save it.
std::string EnergySection(const KernelDiagnosis& kernel) {
  if (!kernel.energy) return "";
  const KernelEnergy& energy = *kernel.energy;
  std::string text = "\n### Energy (predicted by the energy model; dynamic: above idle power)\n\n" +
                     EscapeMarkdown(EnergyHeadline(energy)) + ". " +
                     EscapeMarkdown(EnergySourceText(energy)) + ".\n";
  std::vector<EnergyTermRow> rows = energy.skipped ? std::vector<EnergyTermRow>{} : EnergyTermRows(energy);
  if (!rows.empty()) {
    text += Header({"term", "count", "energy per launch", "share"}, {false, true, true, true});
    for (const EnergyTermRow& row : rows)
      text += Row({EscapeMarkdown(row.title) + " (" + MarkdownCode(row.term) + ")", EscapeMarkdown(row.count),
                   EscapeMarkdown(row.joules), EscapeMarkdown(row.share)});
  }
  std::vector<const Finding*> savers = FindingsWithEnergySaving(kernel);
  if (!savers.empty()) {
    text += "\n**Energy savings of the findings** (per launch, by the model):\n\n";
    for (const Finding* finding : savers)
      text += "- " + MarkdownCode(finding->tool) + ": " +
              EscapeMarkdown(EnergySavingText(*finding->energy_saving)) + "\n";
  }
  if (!energy.notes.empty() || !energy.prediction.missing_metrics.empty()) text += "\n";
  for (const std::string& note : energy.notes) text += "- " + EscapeMarkdown(note) + "\n";
  if (!energy.prediction.missing_metrics.empty())
    text += "- Missing metrics: " + CodeList(energy.prediction.missing_metrics) + "\n";
  return text;
}

std::string SkippedToolsSection(const KernelDiagnosis& kernel) {
  if (kernel.skipped_tools.empty()) return "";
  std::string text = fmt::format("\n### Skipped tools ({})\n\n{}:\n\n", kernel.skipped_tools.size(),
                                 EscapeMarkdown(kSkippedToolsIntro));
  for (const SkippedToolGroup& group : GroupSkippedTools(kernel.skipped_tools)) {
    text += "- **Collect:** " +
            EscapeMarkdown(group.how_to_collect.empty() ? "unknown" : group.how_to_collect) +
            "\n  - tools: " + CodeList(group.tools) + "\n  - missing: " + CodeList(group.missing) + "\n";
  }
  return text;
}

std::string NotesSection(const KernelDiagnosis& kernel) {
  std::string text;
  if (!kernel.notes.empty()) {
    text += "\n### Notes\n\n";
    for (const std::string& note : kernel.notes) text += "- " + EscapeMarkdown(note) + "\n";
  }
  if (!kernel.roofline.missing_metrics.empty()) {
    text += "\n### Missing metrics\n\n" + EscapeMarkdown(std::string(kMissingMetricsAdvice)) + ":\n\n";
    for (const std::string& metric : kernel.roofline.missing_metrics)
      text += "- " + MarkdownCode(metric) + "\n";
  }
  return text;
}

std::string KernelSection(const KernelDiagnosis& kernel, size_t number, const RenderOptions& options) {
  std::string text = Identity(kernel, number, options.verbose) + Verdict(kernel) + Stage1(kernel.roofline) +
                     Stalls(kernel, options) + EnergySection(kernel);
  text +=
      kernel.findings.empty() ? "\n### Findings\n\nNone.\n" : "\n### Findings, ranked by estimated gain\n";
  for (size_t index = 0; index < kernel.findings.size(); ++index) {
    text += FindingSection(kernel.findings[index], index + 1);
  }
  if (!kernel.ncu_rules.empty()) {
    text += "\n### ncu's own rules (details page, largest estimated speedup first)\n\n";
    for (const std::string& line : NcuRuleLines(kernel, options.verbose ? 0 : 5))
      text += "- " + EscapeMarkdown(line) + "\n";
  }
  return text + SkippedToolsSection(kernel) + NotesSection(kernel);
}

std::string HypothesesSection(const Diagnosis& diagnosis) {
  if (!diagnosis.hypotheses_run) return "";
  std::string text =
      "\n## Hypotheses\n\nPredicted from the source, SASS and ptxas report before the profile was "
      "read, then checked against the diagnosis.\n\n";
  if (diagnosis.hypotheses.empty()) return text + "None predicted.\n";
  text += MarkdownTableRow({"verdict", "prediction", "from", "evidence"}) +
          MarkdownTableRule(4, {}, MarkdownRule::kCompact);
  for (const HypothesisOutcome& hypothesis : diagnosis.hypotheses) {
    std::string evidence = HypothesisEvidenceText(hypothesis);
    std::string why = hypothesis.explanation.empty() ? "" : hypothesis.explanation;
    text += "| **" + EscapeMarkdown(hypothesis.verdict) + "** | " + EscapeMarkdown(hypothesis.prediction) +
            " | " + EscapeMarkdown(HypothesisOriginText(hypothesis)) + " | " +
            EscapeMarkdown(why + (why.empty() || evidence.empty() ? "" : " ") + evidence) + " |\n";
  }
  return text;
}

std::string NarrativeBlocks(const Narrative& narrative) {
  std::string text;
  bool after_list = false;  // a paragraph after a list item needs a blank line
  for (const NarrativeBlock& block : SplitNarrative(narrative.text)) {
    bool list_item = block.kind == NarrativeBlockKind::kBullet || block.kind == NarrativeBlockKind::kNumbered;
    if (after_list && !list_item) text += "\n";
    after_list = list_item;
    switch (block.kind) {
      case NarrativeBlockKind::kHeading: text += "\n#### " + EscapeMarkdown(block.text) + "\n\n"; break;
      case NarrativeBlockKind::kBullet: text += "- " + EscapeMarkdown(block.text) + "\n"; break;
      case NarrativeBlockKind::kNumbered:
        text += EscapeMarkdown(block.marker) + " " + EscapeMarkdown(block.text) + "\n";
        break;
      case NarrativeBlockKind::kParagraph: text += EscapeMarkdown(block.text) + "\n\n"; break;
      case NarrativeBlockKind::kCode: {
        std::string fence = "```";
        while (block.text.find(fence) != std::string::npos) fence += "`";
        text += fence + "\n" + block.text + fence + "\n\n";
        break;
      }
    }
  }
  return text;
}

std::string NarrativeSection(const Diagnosis& diagnosis) {
  if (!diagnosis.narrative) return "";
  const Narrative& narrative = *diagnosis.narrative;
  if (!narrative.present()) {
    return "\n## Narrative\n\nNot available: " + EscapeMarkdown(narrative.missing_reason) +
           " (the deterministic report above is complete).\n";
  }
  std::string text =
      "\n## Narrative\n\n*Written by an LLM from the evidence above; every number checked against "
      "it.*\n" +
      NarrativeBlocks(narrative);
  text += "\n**Checked:** " + EscapeMarkdown(ClaimSummary(narrative)) + "\n";
  std::string regeneration = RegenerationText(narrative);
  if (!regeneration.empty()) text += "\n" + EscapeMarkdown(regeneration) + "\n";
  return text + "\n" + EscapeMarkdown(NarrativeProvenance(narrative)) + "\n";
}

class MarkdownRenderer : public Renderer {
 public:
  explicit MarkdownRenderer(const RenderOptions& options) : options_(options) {}

  std::string Render(const Diagnosis& diagnosis) const override {
    std::string text = DocumentHeader(diagnosis) + Summary(diagnosis);
    if (!diagnosis.inputs.empty()) {
      text += "\n## " + std::string(kInputsIntro) + "\n\n";
      for (const std::string& line : InputLines(diagnosis)) text += "- " + EscapeMarkdown(line) + "\n";
    }
    for (size_t index = 0; index < diagnosis.kernels.size(); ++index) {
      text += KernelSection(diagnosis.kernels[index], index + 1, options_);
    }
    if (!diagnosis.notes.empty()) {
      text += "\n## Notes on the profile\n\n";
      for (const std::string& note : diagnosis.notes) text += "- " + EscapeMarkdown(note) + "\n";
    }
    return text + HypothesesSection(diagnosis) + NarrativeSection(diagnosis);
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Renderer> MakeMarkdownRenderer(const RenderOptions& options) {
  return std::make_unique<MarkdownRenderer>(options);
}

}  // namespace kopt
