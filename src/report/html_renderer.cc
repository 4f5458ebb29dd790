// HTML renderer: one self-contained page (inline CSS, inline SVG charts, no
// script, no external resource). Every string from the diagnosis goes through
// EscapeHtml (the local helper H below) before it is embedded.
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
#include "report/svg_charts.h"

namespace kopt {
namespace {

std::string H(std::string_view text) {
  return EscapeHtml(text);
}

constexpr std::string_view kStyle = R"(
body{font-family:"DejaVu Sans",Arial,sans-serif;color:#111827;background:#f9fafb;margin:0;line-height:1.45}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:26px;margin:0 0 8px}h2{font-size:21px;margin:0 0 6px;overflow-wrap:break-word}
h3{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
h4{font-size:15px;margin:0 0 6px}
code{font-family:"DejaVu Sans Mono",monospace;font-size:.92em;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:6px 0 10px;font-size:14px;background:#fff}
th,td{border:1px solid #e5e7eb;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#f3f4f6;font-weight:600}td.num{text-align:right;white-space:nowrap}td.nowrap{white-space:nowrap}
.meta td:first-child{color:#6b7280}
section.kernel{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:20px;margin:22px 0}
.identity{color:#374151;margin:4px 0 0}.fullname{color:#4b5563;margin:2px 0}
.verdict{border-left:6px solid #6b7280;background:#f3f4f6;padding:12px 16px;margin:16px 0;font-size:16px}
.verdict p{margin:4px 0}
.badge{display:inline-block;padding:1px 8px;border-radius:4px;color:#fff;font-weight:700;font-size:13px;
letter-spacing:.03em;background:#6b7280;vertical-align:1px}
.class-memory{border-color:#1d4ed8}.class-memory .badge.class,.badge.class-memory{background:#1d4ed8}
.class-compute{border-color:#a21caf}.class-compute .badge.class,.badge.class-compute{background:#a21caf}
.class-latency{border-color:#b45309}.class-latency .badge.class,.badge.class-latency{background:#b45309}
.class-mixed{border-color:#0e7490}.class-mixed .badge.class,.badge.class-mixed{background:#0e7490}
.sev-critical{background:#7f1d1d}.sev-major{background:#dc2626}.sev-moderate{background:#d97706}
.sev-minor{background:#0891b2}.sev-info{background:#6b7280}.badge.healthy{background:#15803d}
table.summary{width:100%;table-layout:fixed}table.summary td{overflow-wrap:anywhere}
table.summary td.num{white-space:normal}
table.summary td.kname{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
table{max-width:100%}td{overflow-wrap:anywhere}
table.skipped td{font-size:13px}table.skipped td:first-child{min-width:180px}.merged{color:#374151}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{border:1px solid #e5e7eb;border-radius:6px;padding:8px 14px;min-width:130px;background:#fff}
.card .label{font-size:12px;color:#6b7280}.card .value{font-size:19px;font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0}figcaption{font-size:13px;color:#4b5563}
svg.chart{max-width:100%;height:auto;border:1px solid #e5e7eb;border-radius:6px}
.meter{display:inline-block;width:90px;height:10px;background:#e5e7eb;border-radius:3px;margin-right:6px;
vertical-align:0}.meter span{display:block;height:10px;border-radius:3px;background:#1d4ed8}
article.finding{border:1px solid #e5e7eb;border-left-width:6px;border-radius:6px;padding:12px 16px;margin:12px 0}
article.sev-critical,article.sev-major,article.sev-moderate,article.sev-minor,article.sev-info{background:#fff}
article.sev-critical{border-left-color:#7f1d1d}article.sev-major{border-left-color:#dc2626}
article.sev-moderate{border-left-color:#d97706}article.sev-minor{border-left-color:#0891b2}
article.sev-info{border-left-color:#6b7280}
.gain{font-weight:600}.muted{color:#6b7280}ol li{margin:4px 0}
footer{color:#6b7280;font-size:12px;margin:24px 0}
section.narrative,section.hypotheses{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:20px;margin:22px 0}
mark.unsupported{background:#fee2e2;color:#991b1b;font-weight:600}
.verdict-confirmed{background:#15803d}.verdict-refuted{background:#b91c1c}.verdict-undecided{background:#6b7280}
)";

std::string_view SeverityClass(Severity severity) {
  switch (severity) {
    case Severity::kCritical: return "sev-critical";
    case Severity::kMajor: return "sev-major";
    case Severity::kModerate: return "sev-moderate";
    case Severity::kMinor: return "sev-minor";
    case Severity::kInfo: return "sev-info";
  }
  return "sev-info";
}

std::string_view ClassCss(BottleneckClass bottleneck) {
  switch (bottleneck) {
    case BottleneckClass::kMemoryBound: return "class-memory";
    case BottleneckClass::kComputeBound: return "class-compute";
    case BottleneckClass::kLatencyBound: return "class-latency";
    case BottleneckClass::kMixed: return "class-mixed";
    case BottleneckClass::kUnknown: return "class-unknown";
  }
  return "class-unknown";
}

std::string SeverityBadge(Severity severity) {
  return fmt::format("<span class=\"badge {}\">{}</span>", SeverityClass(severity),
                     H(SeverityName(severity)));
}

// Names as escaped code elements, separated by commas.
// An identifier (a metric or tool name) that may break after its '_' and '.' in a narrow column
// (<wbr>), rather than anywhere.
std::string BreakableCode(std::string_view name) {
  std::string html = "<code>";
  for (char c : name) {
    html += H(std::string_view(&c, 1));
    if (c == '_' || c == '.') html += "<wbr>";
  }
  return html + "</code>";
}

std::string CodeList(const std::vector<std::string>& names) {
  std::string html;
  for (const std::string& name : names) html += (html.empty() ? "" : ", ") + BreakableCode(name);
  return html;
}

std::string Meter(double percent) {
  double clamped = std::isfinite(percent) ? std::clamp(percent, 0.0, 100.0) : 0.0;
  return fmt::format("<span class=\"meter\"><span style=\"width:{:.1f}%\"></span></span>", clamped);
}

std::string Cell(std::string_view html, bool numeric = false) {
  return fmt::format("<td{}>{}</td>", numeric ? " class=\"num\"" : "", html);
}

std::string HeaderRow(const std::vector<std::string>& names) {
  std::string row = "<tr>";
  for (const std::string& name : names) row += "<th>" + H(name) + "</th>";
  return row + "</tr>";
}

std::string PageHeader(const Diagnosis& diagnosis) {
  std::string html = "<header><h1>kopt diagnosis</h1><table class=\"meta\">";
  if (!diagnosis.source.empty())
    html += "<tr><td>source</td><td><code>" + H(diagnosis.source) + "</code></td></tr>";
  std::string device = H(diagnosis.device_name.empty() ? "unknown" : diagnosis.device_name);
  if (diagnosis.gpu) device += " <span class=\"muted\">(spec: " + H(diagnosis.gpu->name) + ")</span>";
  html += "<tr><td>device</td><td>" + device + "</td></tr>";
  html += fmt::format("<tr><td>kernels</td><td>{}</td></tr>", diagnosis.kernels.size());
  return html + "<tr><td>kopt</td><td>" + H(KOPT_VERSION) + "</td></tr></table></header>";
}

std::string SummaryTable(const Diagnosis& diagnosis) {
  if (diagnosis.kernels.size() < 2) return "";
  // Fixed layout: a long name is cut (its full form in the title), the table never outgrows the page.
  std::string html =
      "<section><h3>Kernels by duration</h3><table class=\"summary\"><colgroup><col style=\"width:8%\">"
      "<col style=\"width:24%\"><col style=\"width:12%\"><col style=\"width:9%\"><col style=\"width:12%\">"
      "<col style=\"width:8%\"><col></colgroup>";
  html +=
      HeaderRow({"kernel", "name", "duration", "share of time", "class", "speed of light", "top finding"});
  double total = TotalDurationNs(diagnosis);
  for (size_t index : KernelsByDuration(diagnosis)) {
    const KernelDiagnosis& kernel = diagnosis.kernels[index];
    const Finding* primary = PrimaryFinding(kernel);
    html += "<tr>" + Cell(fmt::format("<a href=\"#kernel-{0}\">{0}</a>", index + 1), true) +
            "<td class=\"kname\"><code title=\"" +
            H(kernel.kernel_name.empty() ? KernelTitle(kernel) : kernel.kernel_name) + "\">" +
            H(KernelTitle(kernel)) + "</code></td>" + Cell(H(DurationCellText(kernel)), true) +
            Cell(total > 0 ? H(FormatFraction(KernelTimeNs(kernel) / total, QuantityStyle::kTrimmed)) : "n/a",
                 true) +
            "<td class=\"nowrap\">" + H(BottleneckClassName(kernel.roofline.bottleneck)) + "</td>" +
            Cell(H(SpeedOfLightText(kernel.roofline)), true) +
            Cell(primary ? SeverityBadge(primary->severity) + " " + H(primary->title) : "none") + "</tr>";
  }
  return html + "</table></section>";
}

std::string Identity(const KernelDiagnosis& kernel, size_t number) {
  std::string html = fmt::format("<h2>Kernel {}: <code title=\"{}\">{}</code></h2>", number,
                                 H(kernel.kernel_name), H(KernelTitle(kernel)));
  if (!kernel.kernel_name.empty() && kernel.kernel_name != KernelTitle(kernel)) {
    html += "<details class=\"fullname\"><summary>full signature</summary><code>" + H(kernel.kernel_name) +
            "</code></details>";
  }
  return html + "<p class=\"identity\">" + H(IdentityLine(kernel)) + "</p>";
}

// The verdict first: the class and its reason, then the top finding.
std::string Verdict(const KernelDiagnosis& kernel) {
  const RooflineAnalysis& roofline = kernel.roofline;
  std::string html =
      fmt::format("<div class=\"verdict {}\"><p><span class=\"badge class\">{}</span> {}</p>",
                  ClassCss(roofline.bottleneck), H(BottleneckLabel(roofline)), H(ReasonText(roofline)));
  const Finding* primary = PrimaryFinding(kernel);
  if (primary == nullptr) {
    return html + "<p><strong>Top finding:</strong> " + H(NoFindingText(kernel)) + "</p></div>";
  }
  if (IsHealthyVerdict(*primary)) {
    return html + "<p><strong>Verdict:</strong> <span class=\"badge healthy\">healthy</span>" +
           H(HealthyVerdictText(kernel, *primary).substr(std::string_view("healthy").size())) + "</p></div>";
  }
  return html + fmt::format(
                    "<p><strong>Top finding:</strong> {} <strong>{}</strong> — estimated gain "
                    "<span class=\"gain\">{}</span></p></div>",
                    SeverityBadge(primary->severity), H(primary->title), H(GainText(*primary)));
}

std::string Card(std::string_view label, std::string_view value) {
  return fmt::format("<div class=\"card\"><div class=\"label\">{}</div><div class=\"value\">{}</div></div>",
                     H(label), H(value));
}

std::string KeyNumbers(const RooflineAnalysis& roofline) {
  std::string html = "<div class=\"cards\">" +
                     Card("duration", FormatDuration(roofline.duration_ns, QuantityStyle::kTrimmed));
  if (roofline.floor_ns > 0)
    html += Card("roofline floor", FormatDuration(roofline.floor_ns, QuantityStyle::kTrimmed));
  html += Card("speed of light", SpeedOfLightText(roofline));
  html += Card("arithmetic intensity", IntensityText(roofline));
  if (roofline.ridge_point > 0) {
    html += Card("ridge point (" + PrecisionLabel(roofline.dominant_precision) + ")",
                 FormatIntensity(roofline.ridge_point, QuantityStyle::kTrimmed));
  }
  if (roofline.sm_throughput_percent)
    html +=
        Card("ncu SM throughput", FormatPercent(*roofline.sm_throughput_percent, QuantityStyle::kTrimmed));
  if (roofline.memory_throughput_percent) {
    html += Card("ncu memory throughput",
                 FormatPercent(*roofline.memory_throughput_percent, QuantityStyle::kTrimmed));
  }
  html += "</div>";
  std::string floor = FloorText(roofline);
  return floor.empty() ? html : html + "<p class=\"muted\">" + H(floor) + ".</p>";
}

std::string PeakCells(double peak, double percent, std::string_view unit) {
  if (!(peak > 0)) return Cell("unknown") + Cell("n/a");
  return Cell(H(FormatScaled(peak, unit, QuantityStyle::kTrimmed)), true) +
         Cell(Meter(percent) + H(FormatPercent(percent, QuantityStyle::kTrimmed)), true);
}

std::string RooflineTables(const RooflineAnalysis& roofline) {
  std::string html;
  if (!roofline.compute.empty()) {
    html += "<table>" + HeaderRow({"precision", "work", "achieved", "peak", "% of peak", "peak source"});
    for (const ComputeWork& work : roofline.compute) {
      std::string unit(OperationUnit(work.precision));
      html += "<tr>" + Cell(H(PrecisionLabel(work.precision))) +
              Cell(H(FormatScaled(work.operations, unit, QuantityStyle::kTrimmed)), true) +
              Cell(H(FormatScaled(work.achieved_per_second, unit + "/s", QuantityStyle::kTrimmed)), true) +
              PeakCells(work.peak_per_second, work.percent_of_peak, unit + "/s") + Cell(H(work.peak_source)) +
              "</tr>";
    }
    html += "</table>";
  }
  if (!roofline.memory.empty()) {
    html += "<table>" + HeaderRow({"memory level", "bytes", "achieved", "peak", "% of peak", "peak source"});
    for (const MemoryTraffic& traffic : roofline.memory) {
      html += "<tr>" + Cell(H(MemoryLevelLabel(traffic.level))) +
              Cell(H(FormatBytes(traffic.bytes, QuantityStyle::kTrimmed)), true) +
              Cell(H(FormatBandwidth(traffic.achieved_bytes_per_second, QuantityStyle::kTrimmed)), true) +
              PeakCells(traffic.peak_bytes_per_second, traffic.percent_of_peak, "B/s") +
              Cell(H(traffic.peak_source)) + "</tr>";
    }
    html += "</table>";
  }
  return html;
}

std::string RooflineFigure(const RooflineAnalysis& roofline, size_t number) {
  std::string chart = RooflineSvg(roofline, fmt::format("roofline-{}", number));
  if (chart.rfind("<svg", 0) != 0) return chart;  // an explanation instead of a chart
  std::string ceiling = roofline.dominant_precision.empty() ? std::string("compute")
                                                            : PrecisionLabel(roofline.dominant_precision);
  return "<figure>" + chart + "<figcaption>Roofline (log-log). Thick lines: the kernel's roof (DRAM slope, " +
         H(ceiling) +
         " ceiling). Filled point: the kernel at its DRAM intensity; hollow points: the same work against "
         "its L2 "
         "and L1 traffic.</figcaption></figure>";
}

std::string Charts(const KernelDiagnosis& kernel, size_t number, const RenderOptions& options) {
  std::string html = "<div class=\"charts\">" + RooflineFigure(kernel.roofline, number);
  std::string stalls = StallBarsSvg(kernel.stalls, options.verbose ? 0 : 12);
  html += stalls.empty()
              ? "<p class=\"muted\">Warp stalls not collected (needs the WarpStateStats section).</p>"
              : "<figure>" + stalls +
                    "<figcaption>Warp stall reasons: share of stall cycles and cycles per issued "
                    "instruction.</figcaption></figure>";
  return html + "</div>";
}

std::string EvidenceTable(const Finding& finding) {
  if (finding.evidence.empty()) return "";
  std::string html = "<h4>Evidence</h4><table>" + HeaderRow({"metric", "value", "test"});
  for (const Evidence& evidence : finding.evidence) {
    html += "<tr>" + Cell(BreakableCode(evidence.metric)) +
            Cell(H(FormatMeasurement(evidence.value, evidence.unit, QuantityStyle::kTrimmed)), true) +
            Cell(H(ThresholdText(evidence))) + "</tr>";
  }
  return html + "</table>";
}

std::string RecommendationList(const Finding& finding) {
  if (finding.recommendations.empty()) return "";
  std::string html = "<h4>Recommendations</h4><ol>";
  for (const Recommendation& recommendation : finding.recommendations) {
    html += "<li><strong>" + H(recommendation.change) + "</strong>";
    if (!recommendation.why.empty()) html += "<br>Why: " + H(recommendation.why);
    if (!recommendation.expected_effect.empty())
      html += "<br>Expected effect: " + H(recommendation.expected_effect);
    html += "</li>";
  }
  return html + "</ol>";
}

std::string LocationTable(const Finding& finding) {
  if (finding.locations.empty()) return "";
  std::string html = "<h4>Locations</h4><table>" + HeaderRow({"source", "SASS", "share of stalls"});
  for (const Location& location : finding.locations) {
    bool has_sass = !location.sass_text.empty() || location.sass_offset != 0;
    std::string sass =
        has_sass ? fmt::format("<code>0x{:04x} {}</code>", location.sass_offset, H(location.sass_text)) : "-";
    std::string waiting = WaitingText(location);
    if (!waiting.empty()) sass += " <span class=\"muted\">(" + H(waiting) + ")</span>";
    html +=
        "<tr>" + Cell(location.source_line.empty() ? "-" : "<code>" + H(location.source_line) + "</code>") +
        Cell(sass) + Cell(H(FormatFraction(location.stall_share, QuantityStyle::kTrimmed)), true) + "</tr>";
  }
  return html + "</table>";
}

std::string FindingArticle(const Finding& finding, size_t rank) {
  std::string html =
      fmt::format("<article class=\"finding {}\"><h4>{}. {} {}</h4>", SeverityClass(finding.severity), rank,
                  SeverityBadge(finding.severity), H(finding.title));
  html += std::string(IsHealthyVerdict(finding) ? "<p>Next-order gain" : "<p>Estimated gain") +
          " <span class=\"gain\">" + H(GainText(finding)) + "</span>";
  if (!finding.gain_method.empty())
    html += " <span class=\"muted\">(method: " + H(finding.gain_method) + ")</span>";
  html += " · confidence " + H(FormatFraction(finding.confidence, QuantityStyle::kTrimmed)) +
          " · tool <code>" + H(finding.tool) + "</code></p>";
  if (const auto& saving = finding.energy_saving) {
    html += "<p class=\"energy\">Energy: <span class=\"gain\">" + H(EnergySavingText(*saving)) + "</span>";
    if (!saving->method.empty()) html += " <span class=\"muted\">(method: " + H(saving->method) + ")</span>";
    if (!saving->changes.empty()) html += "<br>Counts: " + H(EnergyChangesText(*saving));
    html += "</p>";
  }
  if (!finding.merged_tools.empty()) {
    html += "<p class=\"merged\">Also explains: " + CodeList(finding.merged_tools) +
            " <span class=\"muted\">(same root cause; their evidence is in the table below)</span></p>";
  }
  if (!finding.root_cause.empty())
    html += "<p><strong>Root cause.</strong> " + H(finding.root_cause) + "</p>";
  return html + EvidenceTable(finding) + RecommendationList(finding) + LocationTable(finding) + "</article>";
}

// The energy model's prediction: where the energy goes, and the findings that save it.
std::string EnergySection(const KernelDiagnosis& kernel) {
  if (!kernel.energy) return "";
  const KernelEnergy& energy = *kernel.energy;
  std::string html =
      "<section class=\"energy\"><h3>Energy (predicted by the energy model; dynamic: above idle "
      "power)</h3><p>" +
      H(EnergyHeadline(energy)) + ". <span class=\"muted\">" + H(EnergySourceText(energy)) + "</span></p>";
  std::vector<EnergyTermRow> rows = energy.skipped ? std::vector<EnergyTermRow>{} : EnergyTermRows(energy);
  if (!rows.empty()) {
    html += "<table>" + HeaderRow({"term", "count", "energy per launch", "share"});
    for (const EnergyTermRow& row : rows)
      html += "<tr>" + Cell(H(row.title) + " <code>" + H(row.term) + "</code>") + Cell(H(row.count), true) +
              Cell(H(row.joules), true) + Cell(H(row.share), true) + "</tr>";
    html += "</table>";
  }
  std::vector<const Finding*> savers = FindingsWithEnergySaving(kernel);
  if (!savers.empty()) {
    html += "<p>Energy savings of the findings (per launch, by the model):</p><ul>";
    for (const Finding* finding : savers)
      html += "<li><code>" + H(finding->tool) + "</code>: " + H(EnergySavingText(*finding->energy_saving)) +
              "</li>";
    html += "</ul>";
  }
  if (!energy.notes.empty() || !energy.prediction.missing_metrics.empty()) {
    html += "<ul class=\"muted\">";
    for (const std::string& note : energy.notes) html += "<li>" + H(note) + "</li>";
    if (!energy.prediction.missing_metrics.empty())
      html += "<li>Missing metrics: " + CodeList(energy.prediction.missing_metrics) + "</li>";
    html += "</ul>";
  }
  return html + "</section>";
}

std::string SkippedToolsSection(const KernelDiagnosis& kernel) {
  if (kernel.skipped_tools.empty()) return "";
  std::string html =
      fmt::format("<h3>Skipped tools ({})</h3><p class=\"muted\">{}:</p><table class=\"skipped\">",
                  kernel.skipped_tools.size(), H(kSkippedToolsIntro));
  html += HeaderRow({"collect", "tools it would enable", "missing inputs"});
  for (const SkippedToolGroup& group : GroupSkippedTools(kernel.skipped_tools)) {
    html += "<tr>" + Cell(H(group.how_to_collect.empty() ? "unknown" : group.how_to_collect)) +
            Cell(CodeList(group.tools)) + Cell(CodeList(group.missing)) + "</tr>";
  }
  return html + "</table>";
}

std::string NotesSection(const KernelDiagnosis& kernel) {
  std::string html;
  if (!kernel.notes.empty()) {
    html += "<h3>Notes</h3><ul>";
    for (const std::string& note : kernel.notes) html += "<li>" + H(note) + "</li>";
    html += "</ul>";
  }
  if (!kernel.roofline.missing_metrics.empty()) {
    html += "<h3>Missing metrics</h3><p>" + H(kMissingMetricsAdvice) + ":</p><ul>";
    for (const std::string& metric : kernel.roofline.missing_metrics)
      html += "<li><code>" + H(metric) + "</code></li>";
    html += "</ul>";
  }
  return html;
}

std::string KernelSection(const KernelDiagnosis& kernel, size_t number, const RenderOptions& options) {
  std::string html = fmt::format("<section class=\"kernel\" id=\"kernel-{}\">", number) +
                     Identity(kernel, number) + Verdict(kernel);
  html += "<h3>Stage 1: roofline</h3>" + KeyNumbers(kernel.roofline) + Charts(kernel, number, options) +
          RooflineTables(kernel.roofline) + EnergySection(kernel);
  html += kernel.findings.empty() ? "<h3>Findings</h3><p>None.</p>"
                                  : "<h3>Findings, ranked by estimated gain</h3>";
  for (size_t index = 0; index < kernel.findings.size(); ++index) {
    html += FindingArticle(kernel.findings[index], index + 1);
  }
  if (!kernel.ncu_rules.empty()) {
    html += "<section><h3>ncu's own rules (details page, largest estimated speedup first)</h3><ul>";
    for (const std::string& line : NcuRuleLines(kernel, options.verbose ? 0 : 5))
      html += "<li>" + H(line) + "</li>";
    html += "</ul></section>";
  }
  return html + SkippedToolsSection(kernel) + NotesSection(kernel) + "</section>";
}

// Escaped text with the unsupported markers highlighted (the marker has no
// character EscapeHtml changes, so it survives escaping as is).
std::string NarrativeHtml(std::string_view text) {
  std::string escaped = H(text);
  std::string marker(kUnsupportedMarker);
  std::string html;
  size_t start = 0;
  for (size_t found = escaped.find(marker); found != std::string::npos; found = escaped.find(marker, start)) {
    html += escaped.substr(start, found - start) + "<mark class=\"unsupported\">" + marker + "</mark>";
    start = found + marker.size();
  }
  return html + escaped.substr(start);
}

std::string NarrativeBlocksHtml(const Narrative& narrative) {
  std::string html;
  std::string open_list;  // "ul" or "ol" while a list is open
  for (const NarrativeBlock& block : SplitNarrative(narrative.text)) {
    std::string wanted = block.kind == NarrativeBlockKind::kBullet     ? "ul"
                         : block.kind == NarrativeBlockKind::kNumbered ? "ol"
                                                                       : "";
    if (open_list != wanted) {
      if (!open_list.empty()) html += "</" + open_list + ">";
      if (!wanted.empty()) html += "<" + wanted + ">";
      open_list = wanted;
    }
    switch (block.kind) {
      case NarrativeBlockKind::kHeading: html += "<h4>" + NarrativeHtml(block.text) + "</h4>"; break;
      case NarrativeBlockKind::kBullet:
      case NarrativeBlockKind::kNumbered: html += "<li>" + NarrativeHtml(block.text) + "</li>"; break;
      case NarrativeBlockKind::kParagraph: html += "<p>" + NarrativeHtml(block.text) + "</p>"; break;
      case NarrativeBlockKind::kCode: html += "<pre><code>" + H(block.text) + "</code></pre>"; break;
    }
  }
  if (!open_list.empty()) html += "</" + open_list + ">";
  return html;
}

std::string NarrativeSection(const Diagnosis& diagnosis) {
  if (!diagnosis.narrative) return "";
  const Narrative& narrative = *diagnosis.narrative;
  std::string html = "<section class=\"narrative\" id=\"narrative\"><h3>Narrative</h3>";
  if (!narrative.present()) {
    return html + "<p>Not available: " + H(narrative.missing_reason) +
           " <span class=\"muted\">(the deterministic report above is complete)</span></p></section>";
  }
  html +=
      "<p class=\"muted\">Written by an LLM from the evidence above; every number checked against it.</p>" +
      NarrativeBlocksHtml(narrative);
  html += "<p><strong>Checked:</strong> " + NarrativeHtml(ClaimSummary(narrative)) + "</p>";
  std::string regeneration = RegenerationText(narrative);
  if (!regeneration.empty()) html += "<p class=\"muted\">" + H(regeneration) + "</p>";
  return html + "<p class=\"muted\">" + H(NarrativeProvenance(narrative)) + "</p></section>";
}

std::string HypothesesSection(const Diagnosis& diagnosis) {
  if (!diagnosis.hypotheses_run) return "";
  std::string html =
      "<section class=\"hypotheses\" id=\"hypotheses\"><h3>Hypotheses</h3><p class=\"muted\">Predicted from "
      "the source, SASS and ptxas report before the profile was read, then checked against the "
      "diagnosis.</p>";
  if (diagnosis.hypotheses.empty()) return html + "<p>None predicted.</p></section>";
  html += "<table>" +
          HeaderRow({"verdict", "prediction", "from", "why predicted", "verdict reason and evidence"});
  for (const HypothesisOutcome& hypothesis : diagnosis.hypotheses) {
    std::string verdict_class = hypothesis.verdict == "confirmed" || hypothesis.verdict == "refuted"
                                    ? hypothesis.verdict
                                    : std::string("undecided");
    html += "<tr>" +
            Cell("<span class=\"badge verdict-" + verdict_class + "\">" + H(hypothesis.verdict) + "</span>") +
            Cell(H(hypothesis.prediction)) + Cell(H(HypothesisOriginText(hypothesis))) +
            Cell(H(hypothesis.rationale)) +
            Cell(H(hypothesis.explanation) + "<br><span class=\"muted\">" +
                 H(HypothesisEvidenceText(hypothesis)) + "</span>") +
            "</tr>";
  }
  return html + "</table></section>";
}

class HtmlRenderer : public Renderer {
 public:
  explicit HtmlRenderer(const RenderOptions& options) : options_(options) {}

  std::string Render(const Diagnosis& diagnosis) const override {
    std::string title = diagnosis.kernels.size() == 1 ? KernelTitle(diagnosis.kernels.front())
                                                      : fmt::format("{} kernels", diagnosis.kernels.size());
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>kopt diagnosis: " +
        H(title) + "</title><style>" + std::string(kStyle) + "</style></head>\n<body><main>" +
        PageHeader(diagnosis) + SummaryTable(diagnosis);
    if (!diagnosis.inputs.empty()) {
      html += "<section><h3>" + H(kInputsIntro) + "</h3><ul>";
      for (const std::string& line : InputLines(diagnosis)) html += "<li>" + H(line) + "</li>";
      html += "</ul></section>";
    }
    for (size_t index = 0; index < diagnosis.kernels.size(); ++index) {
      html += "\n" + KernelSection(diagnosis.kernels[index], index + 1, options_);
    }
    if (!diagnosis.notes.empty()) {
      html += "<section><h3>Notes on the profile</h3><ul>";
      for (const std::string& note : diagnosis.notes) html += "<li>" + H(note) + "</li>";
      html += "</ul></section>";
    }
    html += HypothesesSection(diagnosis) + NarrativeSection(diagnosis);
    return html + "<footer>Generated by kopt " + H(KOPT_VERSION) + ".</footer></main></body></html>\n";
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Renderer> MakeHtmlRenderer(const RenderOptions& options) {
  return std::make_unique<HtmlRenderer>(options);
}

}  // namespace kopt
