// Terminal renderer: plain text for a terminal of options.width columns, with
// ANSI colour (severity, class) only when options.color. Every string taken
// from the diagnosis is passed through SanitizeForTerminal, so an untrusted
// kernel name cannot emit escape sequences.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

std::string Clean(std::string_view text) {
  return SanitizeForTerminal(text);
}

std::string_view SeverityColor(Severity severity) {
  switch (severity) {
    case Severity::kCritical: return "1;91";
    case Severity::kMajor: return "1;31";
    case Severity::kModerate: return "33";
    case Severity::kMinor: return "36";
    case Severity::kInfo: return "2";
  }
  return "0";
}

std::string_view ClassColor(BottleneckClass bottleneck) {
  switch (bottleneck) {
    case BottleneckClass::kMemoryBound: return "1;94";
    case BottleneckClass::kComputeBound: return "1;95";
    case BottleneckClass::kLatencyBound: return "1;93";
    case BottleneckClass::kMixed: return "1;96";
    case BottleneckClass::kUnknown: return "2";
  }
  return "0";
}

std::string UpperCase(std::string_view text) {
  std::string upper(text);
  for (char& character : upper)
    character = static_cast<char>(std::toupper(static_cast<unsigned char>(character)));
  return upper;
}

// A horizontal bar of `cells` characters filled to `percent` (0..100).
std::string Bar(double percent, size_t cells) {
  double clamped = std::isfinite(percent) ? std::clamp(percent, 0.0, 100.0) : 0.0;
  auto filled = static_cast<size_t>(std::lround(clamped / 100.0 * static_cast<double>(cells)));
  std::string bar;
  for (size_t index = 0; index < cells; ++index) bar += index < filled ? "█" : "░";
  return bar;
}

// Accumulates the report's lines; styles only when colour is on.
class Writer {
 public:
  explicit Writer(const RenderOptions& options)
      : color_(options.color), width_(std::max(options.width, 60)) {}

  size_t width() const { return static_cast<size_t>(width_); }
  std::string Style(std::string_view text, std::string_view code) const {
    if (!color_ || text.empty()) return std::string(text);
    return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
  }
  void Line(std::string_view text = "") { output_ += std::string(text) + "\n"; }
  // Writes `text` wrapped to the width: the first line after `first_prefix`,
  // continuation lines indented to the prefix's width.
  void Wrapped(std::string_view first_prefix, std::string_view text) {
    for (const std::string& line : WrapHanging(first_prefix, text, width())) Line(line);
  }
  void Heading(std::string_view text) {
    Line();
    Line(Style(text, "1"));
  }
  std::string Take() { return std::move(output_); }

 private:
  bool color_;
  int width_;
  std::string output_;
};

// A table: the first row is the header; `right_aligned` per column. The last
// column (keep long free text there) is cut to fit the width, or wrapped onto
// continuation lines when `wrap_last`.
struct Table {
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_aligned;
  bool wrap_last = false;
};

void WriteTable(const Table& table, size_t indent, Writer& writer) {
  AlignedLayout layout{.indent = indent, .max_width = writer.width(), .wrap_last = table.wrap_last};
  std::vector<std::string> lines = AlignedTableLines({table.rows, table.right_aligned}, layout);
  for (size_t index = 0; index < lines.size(); ++index) {
    writer.Line(index == 0 ? writer.Style(lines[index], "2") : lines[index]);
  }
}

void WriteHeader(const Diagnosis& diagnosis, Writer& writer) {
  writer.Line(writer.Style(fmt::format("kopt {} · diagnosis", KOPT_VERSION), "1"));
  if (!diagnosis.source.empty()) writer.Wrapped("source  ", Clean(diagnosis.source));
  std::string device = Clean(diagnosis.device_name.empty() ? "unknown device" : diagnosis.device_name);
  if (diagnosis.gpu) device += " · spec: " + Clean(diagnosis.gpu->name);
  writer.Wrapped("device  ", device);
  writer.Line(fmt::format("kernels {}", diagnosis.kernels.size()));
}

// With several kernels: where the time goes, longest first.
void WriteSummary(const Diagnosis& diagnosis, Writer& writer) {
  if (diagnosis.kernels.size() < 2) return;
  writer.Heading("SUMMARY · kernels by duration");
  Table table{{{"#", "kernel", "duration", "time", "class", "SoL", "top finding"}},
              {true, false, true, true, false, true, false}};
  double total = TotalDurationNs(diagnosis);
  for (size_t index : KernelsByDuration(diagnosis)) {
    const KernelDiagnosis& kernel = diagnosis.kernels[index];
    const Finding* primary = PrimaryFinding(kernel);
    std::string top = primary ? Clean(primary->title) : "no findings";
    table.rows.push_back(
        {std::to_string(index + 1), Truncate(Clean(KernelTitle(kernel)), 28), DurationCellText(kernel),
         total > 0 ? FormatFraction(KernelTimeNs(kernel) / total, QuantityStyle::kTrimmed) : "n/a",
         writer.Style(BottleneckClassName(kernel.roofline.bottleneck),
                      ClassColor(kernel.roofline.bottleneck)),
         SpeedOfLightText(kernel.roofline), top});
  }
  WriteTable(table, 2, writer);
}

void WriteIdentity(const KernelDiagnosis& kernel, size_t number, size_t count, bool verbose, Writer& writer) {
  writer.Line();
  writer.Line(writer.Style(std::string(writer.width(), '='), "2"));
  writer.Wrapped(writer.Style(fmt::format("KERNEL {}/{}  ", number, count), "1"),
                 writer.Style(Clean(KernelTitle(kernel)), "1"));
  if (ShowFullSignature(kernel, verbose)) {
    writer.Wrapped("  ", Clean(kernel.kernel_name));
  } else if (!kernel.kernel_name.empty() && kernel.kernel_name != KernelTitle(kernel)) {
    writer.Wrapped("  ", fmt::format("(full signature: {} characters, shown with --verbose)",
                                     kernel.kernel_name.size()));
  }
  writer.Wrapped("  ", IdentityLine(kernel));
}

// The verdict first: the class with its reason, then the top finding.
void WriteVerdict(const KernelDiagnosis& kernel, Writer& writer) {
  const RooflineAnalysis& roofline = kernel.roofline;
  writer.Line();
  std::string class_badge =
      writer.Style(UpperCase(BottleneckClassName(roofline.bottleneck)), ClassColor(roofline.bottleneck));
  writer.Wrapped("BOTTLENECK   ", class_badge + " — " + Clean(ReasonText(roofline)));
  const Finding* primary = PrimaryFinding(kernel);
  if (primary == nullptr) {
    writer.Wrapped("TOP FINDING  ", NoFindingText(kernel));
    return;
  }
  if (IsHealthyVerdict(*primary)) {
    writer.Wrapped("VERDICT      ", writer.Style(Clean(HealthyVerdictText(kernel, *primary)), "1;32"));
    return;
  }
  std::string severity = writer.Style(fmt::format("[{}]", UpperCase(SeverityName(primary->severity))),
                                      SeverityColor(primary->severity));
  writer.Wrapped("TOP FINDING  ",
                 fmt::format("{} {} — est. gain {}", severity, Clean(primary->title), GainText(*primary)));
}

void WriteComputeTable(const RooflineAnalysis& roofline, bool verbose, Writer& writer) {
  Table table{{{"compute", "work", "achieved", "peak", "of peak", "", "peak source"}},
              {false, true, true, true, false, true, false},
              verbose};
  for (const ComputeWork& work : roofline.compute) {
    std::string unit(OperationUnit(work.precision));
    bool known = work.peak_per_second > 0;
    table.rows.push_back(
        {PrecisionLabel(Clean(work.precision)), FormatScaled(work.operations, unit, QuantityStyle::kTrimmed),
         FormatScaled(work.achieved_per_second, unit + "/s", QuantityStyle::kTrimmed),
         known ? FormatScaled(work.peak_per_second, unit + "/s", QuantityStyle::kTrimmed) : "unknown",
         known ? Bar(work.percent_of_peak, 10) : "",
         known ? FormatPercent(work.percent_of_peak, QuantityStyle::kTrimmed) : "", Clean(work.peak_source)});
  }
  if (table.rows.size() > 1) WriteTable(table, 2, writer);
}

void WriteMemoryTable(const RooflineAnalysis& roofline, bool verbose, Writer& writer) {
  Table table{{{"memory", "bytes", "achieved", "peak", "of peak", "", "peak source"}},
              {false, true, true, true, false, true, false},
              verbose};
  for (const MemoryTraffic& traffic : roofline.memory) {
    bool known = traffic.peak_bytes_per_second > 0;
    table.rows.push_back(
        {MemoryLevelLabel(Clean(traffic.level)), FormatBytes(traffic.bytes, QuantityStyle::kTrimmed),
         FormatBandwidth(traffic.achieved_bytes_per_second, QuantityStyle::kTrimmed),
         known ? FormatBandwidth(traffic.peak_bytes_per_second, QuantityStyle::kTrimmed) : "unknown",
         known ? Bar(traffic.percent_of_peak, 10) : "",
         known ? FormatPercent(traffic.percent_of_peak, QuantityStyle::kTrimmed) : "",
         Clean(traffic.peak_source)});
  }
  if (table.rows.size() > 1) WriteTable(table, 2, writer);
}

void WriteStage1(const RooflineAnalysis& roofline, bool verbose, Writer& writer) {
  writer.Heading("STAGE 1 · ROOFLINE");
  writer.Wrapped("  ", fmt::format("duration {} · speed of light {}",
                                   FormatDuration(roofline.duration_ns, QuantityStyle::kTrimmed),
                                   SpeedOfLightText(roofline)));
  std::string floor = FloorText(roofline);
  if (!floor.empty()) writer.Wrapped("  ", floor);
  std::string intensity = "arithmetic intensity " + IntensityText(roofline);
  if (roofline.ridge_point > 0) {
    intensity +=
        fmt::format(" · ridge point {} ({})", FormatIntensity(roofline.ridge_point, QuantityStyle::kTrimmed),
                    PrecisionLabel(Clean(roofline.dominant_precision)));
  }
  writer.Wrapped("  ", intensity);
  if (roofline.sm_throughput_percent || roofline.memory_throughput_percent) {
    writer.Wrapped(
        "  ", fmt::format("ncu speed of light: SM {} · memory {}",
                          roofline.sm_throughput_percent
                              ? FormatPercent(*roofline.sm_throughput_percent, QuantityStyle::kTrimmed)
                              : "n/a",
                          roofline.memory_throughput_percent
                              ? FormatPercent(*roofline.memory_throughput_percent, QuantityStyle::kTrimmed)
                              : "n/a"));
  }
  if (!roofline.compute.empty() || !roofline.memory.empty()) writer.Line();
  WriteComputeTable(roofline, verbose, writer);
  if (!roofline.compute.empty() && !roofline.memory.empty()) writer.Line();
  WriteMemoryTable(roofline, verbose, writer);
}

void WriteStalls(const KernelDiagnosis& kernel, const RenderOptions& options, Writer& writer) {
  writer.Heading("WARP STALLS · share of stall cycles (cycles per issued instruction)");
  if (kernel.stalls.empty()) {
    writer.Line("  not collected (needs the WarpStateStats section)");
    return;
  }
  std::vector<StallReason> stalls = TopStalls(kernel.stalls, options.verbose ? 0 : 8);
  Table table{{{"reason", "", "share", "cycles"}}, {false, false, true, true}};
  for (size_t index = 0; index < stalls.size(); ++index) {
    std::string bar = Bar(stalls[index].share * 100, 30);
    table.rows.push_back({Clean(stalls[index].name), index == 0 ? writer.Style(bar, "1") : bar,
                          FormatFraction(stalls[index].share, QuantityStyle::kTrimmed),
                          FormatNumber(stalls[index].cycles_per_issue, QuantityStyle::kTrimmed)});
  }
  WriteTable(table, 2, writer);
  if (stalls.size() < kernel.stalls.size()) {
    writer.Line(fmt::format("  … {} more (--verbose shows all)", kernel.stalls.size() - stalls.size()));
  }
}

void WriteEvidence(const Finding& finding, Writer& writer) {
  if (finding.evidence.empty()) return;
  writer.Line("     Evidence");
  Table table{{{"value", "test", "metric"}}, {true, false, false}, /*wrap_last=*/true};
  for (const Evidence& evidence : finding.evidence) {
    table.rows.push_back({FormatMeasurement(evidence.value, Clean(evidence.unit), QuantityStyle::kTrimmed),
                          Clean(ThresholdText(evidence)), Clean(evidence.metric)});
  }
  WriteTable(table, 7, writer);
}

void WriteRecommendations(const Finding& finding, Writer& writer) {
  if (finding.recommendations.empty()) return;
  writer.Line("     Recommendations");
  for (size_t index = 0; index < finding.recommendations.size(); ++index) {
    const Recommendation& recommendation = finding.recommendations[index];
    std::string number = fmt::format("       {}. ", index + 1);
    writer.Wrapped(number, Clean(recommendation.change));
    std::string indent(DisplayWidth(number), ' ');
    if (!recommendation.why.empty()) writer.Wrapped(indent + "why: ", Clean(recommendation.why));
    if (!recommendation.expected_effect.empty()) {
      writer.Wrapped(indent + "effect: ", Clean(recommendation.expected_effect));
    }
  }
}

void WriteLocations(const Finding& finding, const RenderOptions& options, Writer& writer) {
  if (finding.locations.empty()) return;
  writer.Line("     Locations");
  size_t shown = options.verbose ? finding.locations.size() : std::min<size_t>(finding.locations.size(), 5);
  Table table{{{"stalls", "source", "SASS"}}, {true, false, false}, /*wrap_last=*/true};
  for (size_t index = 0; index < shown; ++index) {
    const Location& location = finding.locations[index];
    std::string sass = location.sass_text.empty() && location.sass_offset == 0
                           ? ""
                           : fmt::format("0x{:04x} {}", location.sass_offset, Clean(location.sass_text));
    std::string waiting = WaitingText(location);
    if (!waiting.empty()) sass += " (" + Clean(waiting) + ")";
    table.rows.push_back({FormatFraction(location.stall_share, QuantityStyle::kTrimmed),
                          location.source_line.empty() ? "-" : Clean(location.source_line), sass});
  }
  WriteTable(table, 7, writer);
  if (shown < finding.locations.size()) {
    writer.Line(fmt::format("       … {} more locations", finding.locations.size() - shown));
  }
}

void WriteFinding(const Finding& finding, size_t rank, const RenderOptions& options, Writer& writer) {
  writer.Line();
  std::string severity = writer.Style(fmt::format("[{}]", UpperCase(SeverityName(finding.severity))),
                                      SeverityColor(finding.severity));
  writer.Wrapped(fmt::format("  {}. ", rank), severity + " " + writer.Style(Clean(finding.title), "1"));
  writer.Wrapped(
      "     ", fmt::format("{} {} · confidence {} · tool {}", GainLabel(finding), GainText(finding),
                           FormatFraction(finding.confidence, QuantityStyle::kTrimmed), Clean(finding.tool)));
  std::string merged = MergedToolsText(finding);
  if (!merged.empty()) writer.Wrapped("     ", Clean(merged) + " (their evidence is listed below)");
  if (!finding.gain_method.empty()) writer.Wrapped("     gain method: ", Clean(finding.gain_method));
  if (const auto& saving = finding.energy_saving) {
    writer.Wrapped("     energy: ", Clean(EnergySavingText(*saving)));
    if (!saving->method.empty()) writer.Wrapped("     energy method: ", Clean(saving->method));
    if (!saving->changes.empty()) writer.Wrapped("     energy counts: ", Clean(EnergyChangesText(*saving)));
  }
  if (!finding.root_cause.empty()) writer.Wrapped("     Root cause: ", Clean(finding.root_cause));
  WriteEvidence(finding, writer);
  WriteRecommendations(finding, writer);
  WriteLocations(finding, options, writer);
}

// The energy model's prediction: where the energy goes, and the findings that save it.
void WriteEnergy(const KernelDiagnosis& kernel, Writer& writer) {
  if (!kernel.energy) return;
  const KernelEnergy& energy = *kernel.energy;
  writer.Heading("ENERGY · predicted by the energy model (dynamic: above idle power)");
  writer.Wrapped("  ", Clean(EnergyHeadline(energy)));
  writer.Wrapped("  ", Clean(EnergySourceText(energy)));
  if (!energy.skipped) {
    Table table{{{"term", "count", "energy", "share"}}, {false, true, true, true}};
    for (const EnergyTermRow& row : EnergyTermRows(energy))
      table.rows.push_back({Clean(row.title), Clean(row.count), Clean(row.joules), Clean(row.share)});
    if (table.rows.size() > 1) {
      writer.Line();
      WriteTable(table, 2, writer);
    }
  }
  std::vector<const Finding*> savers = FindingsWithEnergySaving(kernel);
  if (!savers.empty()) {
    writer.Line();
    writer.Line("  Energy savings of the findings (per launch, by the model):");
    for (const Finding* finding : savers)
      writer.Wrapped("  - ", Clean(finding->tool + ": " + EnergySavingText(*finding->energy_saving)));
  }
  for (const std::string& note : energy.notes) writer.Wrapped("  - ", Clean(note));
  if (!energy.prediction.missing_metrics.empty())
    writer.Wrapped("  missing metrics: ", Clean(JoinList(energy.prediction.missing_metrics)));
}

// Which tools could not run, what they lacked, and how to collect it: one
// entry per way of collecting.
void WriteSkippedTools(const KernelDiagnosis& kernel, Writer& writer) {
  if (kernel.skipped_tools.empty()) return;
  writer.Heading(fmt::format("SKIPPED TOOLS · {} could not run", kernel.skipped_tools.size()));
  writer.Wrapped("  ", std::string(kSkippedToolsIntro) + ":");
  for (const SkippedToolGroup& group : GroupSkippedTools(kernel.skipped_tools)) {
    writer.Wrapped("  - collect: ", Clean(group.how_to_collect.empty() ? "unknown" : group.how_to_collect));
    writer.Wrapped("    tools:   ", Clean(JoinList(group.tools)));
    writer.Wrapped("    missing: ", Clean(JoinList(group.missing)));
  }
}

void WriteNotes(const KernelDiagnosis& kernel, Writer& writer) {
  if (!kernel.notes.empty()) {
    writer.Heading("NOTES");
    for (const std::string& note : kernel.notes) writer.Wrapped("  - ", Clean(note));
  }
  const std::vector<std::string>& missing = kernel.roofline.missing_metrics;
  if (!missing.empty()) {
    writer.Heading("MISSING METRICS");
    writer.Wrapped("  ", std::string(kMissingMetricsAdvice) + ":");
    for (const std::string& metric : missing) writer.Wrapped("  - ", Clean(metric));
  }
}

void WriteKernel(const KernelDiagnosis& kernel, size_t number, size_t count, const RenderOptions& options,
                 Writer& writer) {
  WriteIdentity(kernel, number, count, options.verbose, writer);
  WriteVerdict(kernel, writer);
  WriteStage1(kernel.roofline, options.verbose, writer);
  WriteStalls(kernel, options, writer);
  WriteEnergy(kernel, writer);
  writer.Heading(kernel.findings.empty() ? "FINDINGS · none" : "FINDINGS · ranked by estimated gain");
  for (size_t index = 0; index < kernel.findings.size(); ++index) {
    WriteFinding(kernel.findings[index], index + 1, options, writer);
  }
  if (!kernel.ncu_rules.empty()) {
    writer.Heading("NCU'S OWN RULES · from the details page, largest estimated speedup first");
    for (const std::string& line : NcuRuleLines(kernel, options.verbose ? 0 : 5))
      writer.Wrapped("  - ", Clean(line));
  }
  WriteSkippedTools(kernel, writer);
  WriteNotes(kernel, writer);
}

std::string_view VerdictColor(std::string_view verdict) {
  if (verdict == "confirmed") return "1;32";
  if (verdict == "refuted") return "1;31";
  return "33";
}

void WriteHypotheses(const Diagnosis& diagnosis, Writer& writer) {
  if (!diagnosis.hypotheses_run) return;
  if (diagnosis.hypotheses.empty()) {
    writer.Heading("HYPOTHESES · none predicted from the source, SASS and ptxas report");
    return;
  }
  writer.Heading(fmt::format("HYPOTHESES · {} predicted from the source before the profile was read",
                             diagnosis.hypotheses.size()));
  for (const HypothesisOutcome& hypothesis : diagnosis.hypotheses) {
    writer.Line();
    std::string verdict =
        writer.Style("[" + UpperCase(hypothesis.verdict) + "]", VerdictColor(hypothesis.verdict));
    writer.Wrapped("  ", verdict + " " + Clean(hypothesis.prediction));
    writer.Wrapped("     from: ", Clean(HypothesisOriginText(hypothesis)));
    if (!hypothesis.rationale.empty())
      writer.Wrapped("     predicted because: ", Clean(hypothesis.rationale));
    if (!hypothesis.explanation.empty()) writer.Wrapped("     verdict: ", Clean(hypothesis.explanation));
    std::string evidence = HypothesisEvidenceText(hypothesis);
    if (!evidence.empty()) writer.Wrapped("     evidence: ", Clean(evidence));
  }
}

// Unsupported markers stand out in colour.
std::string StyleMarkers(const std::string& text, const Writer& writer) {
  std::string marker(kUnsupportedMarker);
  std::string styled;
  size_t start = 0;
  for (size_t found = text.find(marker); found != std::string::npos; found = text.find(marker, start)) {
    styled += text.substr(start, found - start) + writer.Style(marker, "1;91");
    start = found + marker.size();
  }
  return styled + text.substr(start);
}

void WriteNarrativeBlocks(const Narrative& narrative, Writer& writer) {
  for (const NarrativeBlock& block : SplitNarrative(narrative.text)) {
    switch (block.kind) {
      case NarrativeBlockKind::kHeading:
        writer.Line();
        writer.Wrapped("  ", writer.Style(Clean(block.text), "1"));
        break;
      case NarrativeBlockKind::kBullet:
        writer.Wrapped("  - ", StyleMarkers(Clean(block.text), writer));
        break;
      case NarrativeBlockKind::kNumbered:
        writer.Wrapped("  " + Clean(block.marker) + " ", StyleMarkers(Clean(block.text), writer));
        break;
      case NarrativeBlockKind::kParagraph:
        writer.Wrapped("  ", StyleMarkers(Clean(block.text), writer));
        break;
      case NarrativeBlockKind::kCode:
        for (size_t start = 0, end = 0; start < block.text.size(); start = end + 1) {
          end = std::min(block.text.find('\n', start), block.text.size());
          writer.Line("      " + Clean(std::string_view(block.text).substr(start, end - start)));
        }
        break;
    }
  }
}

void WriteNarrative(const Diagnosis& diagnosis, Writer& writer) {
  if (!diagnosis.narrative) return;
  const Narrative& narrative = *diagnosis.narrative;
  if (!narrative.present()) {
    writer.Heading("NARRATIVE · not available");
    writer.Wrapped("  ", Clean(narrative.missing_reason) + " (the deterministic report above is complete)");
    return;
  }
  writer.Heading("NARRATIVE · written by an LLM from the evidence above; every number checked");
  WriteNarrativeBlocks(narrative, writer);
  writer.Line();
  writer.Wrapped("  checked: ", StyleMarkers(Clean(ClaimSummary(narrative)), writer));
  std::string regeneration = RegenerationText(narrative);
  if (!regeneration.empty()) writer.Wrapped("  ", Clean(regeneration));
  writer.Wrapped("  ", Clean(NarrativeProvenance(narrative)));
}

class TerminalRenderer : public Renderer {
 public:
  explicit TerminalRenderer(const RenderOptions& options) : options_(options) {}

  std::string Render(const Diagnosis& diagnosis) const override {
    Writer writer(options_);
    WriteHeader(diagnosis, writer);
    WriteSummary(diagnosis, writer);
    // The verdict first: each kernel's bottleneck and top finding come before the list of inputs.
    for (size_t index = 0; index < diagnosis.kernels.size(); ++index) {
      WriteKernel(diagnosis.kernels[index], index + 1, diagnosis.kernels.size(), options_, writer);
    }
    if (!diagnosis.notes.empty()) {
      writer.Heading("NOTES ON THE PROFILE");
      for (const std::string& note : diagnosis.notes) writer.Wrapped("  - ", Clean(note));
    }
    if (!diagnosis.inputs.empty()) {
      writer.Heading("INPUTS · the files this report was made from, and what each changed");
      for (const std::string& line : InputLines(diagnosis)) writer.Wrapped("  - ", Clean(line));
    }
    WriteHypotheses(diagnosis, writer);
    WriteNarrative(diagnosis, writer);
    if (options_.verbose && !diagnosis.collection_phases.empty()) {
      writer.Heading("TIMING · where the seconds of this live collection went (start–end, duration, phase)");
      for (const std::string& line : DescribePhases(diagnosis.collection_phases)) writer.Line("  " + line);
    }
    return writer.Take();
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Renderer> MakeTerminalRenderer(const RenderOptions& options) {
  return std::make_unique<TerminalRenderer>(options);
}

}  // namespace kopt
