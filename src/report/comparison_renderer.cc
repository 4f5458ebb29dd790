// The diff, versions and sweep reports: term, md and html through report/text_document.h, and JSON.
#include "report/comparison_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/quantity_format.h"
#include "report/json_renderer.h"
#include "report/narrative_section.h"
#include "report/summary.h"
#include "report/svg_charts.h"
#include "report/text_document.h"

namespace kopt {
namespace {

using Json = nlohmann::ordered_json;
constexpr QuantityStyle kStyle = QuantityStyle::kTrimmed;

std::string Duration(double ns) {
  return FormatDuration(ns, kStyle);
}

std::string FactorValue(double value, const std::string& unit) {
  if (unit == "fraction") return FormatFraction(value, kStyle);
  if (unit == "Hz") return FormatScaled(value, "Hz", kStyle);
  if (unit == "inst") return FormatScaled(value, "", kStyle) + " inst";
  return FormatNumber(value, kStyle);
}

std::string SeverityText(const FindingChange& change) {
  switch (change.kind) {
    case FindingChangeKind::kResolved:
      return fmt::format("{} ({} gain) → gone", SeverityName(change.before),
                         FormatFraction(change.gain_before, kStyle));
    case FindingChangeKind::kNew:
      return fmt::format("new: {} ({} gain)", SeverityName(change.after),
                         FormatFraction(change.gain_after, kStyle));
    default:
      return fmt::format("{} → {} ({} → {} gain)", SeverityName(change.before), SeverityName(change.after),
                         FormatFraction(change.gain_before, kStyle),
                         FormatFraction(change.gain_after, kStyle));
  }
}

// "±1.2 µs", with " *" when |value| is within twice it (not resolved).
std::string PlusMinus(double value_ns, double uncertainty_ns) {
  std::string text = "±" + FormatDuration(uncertainty_ns, kStyle);
  if (std::fabs(value_ns) <= 2 * uncertainty_ns) text += " *";
  return text;
}

// Where the ± come from, in words.
std::string UncertaintyText(const TimeAttribution& attribution) {
  if (attribution.uncertainty_source == UncertaintySource::kRepeats)
    return fmt::format("{} and {} launches", attribution.launches_before, attribution.launches_after);
  return "each launch's stall-pass mismatch";
}

// The terms worth a row: every factor; a part when it moves ≥ 1 % of |ΔT|.
bool ShownTerm(const AttributionTerm& term, double delta_ns) {
  return term.part.empty() || std::fabs(term.delta_ns) >= 0.01 * std::fabs(delta_ns);
}

// The pair's time, class, speed of light and floor side by side (and the roofline shift in HTML).
void WritePairSummary(TextDocument& doc, const KernelDiagnosis& before, const KernelDiagnosis& after,
                      const std::string& chart_id) {
  const double delta = after.roofline.duration_ns - before.roofline.duration_ns;
  TextTable summary;
  summary.rows = {{"", "before", "after", "change"}};
  summary.right_aligned = {false, true, true, true};
  summary.rows.push_back(
      {"time", Duration(before.roofline.duration_ns), Duration(after.roofline.duration_ns),
       SignedDuration(delta) + " (" +
           SignedPercent(before.roofline.duration_ns > 0 ? delta / before.roofline.duration_ns : 0) + ")"});
  summary.rows.push_back({"class", BottleneckLabel(before.roofline), BottleneckLabel(after.roofline), ""});
  summary.rows.push_back(
      {"speed of light", SpeedOfLightText(before.roofline), SpeedOfLightText(after.roofline), ""});
  summary.rows.push_back(
      {"roofline floor", Duration(before.roofline.floor_ns), Duration(after.roofline.floor_ns), ""});
  doc.Table(summary);
  doc.Blank();
  if (doc.html()) {
    doc.Subheading("Roofline: before (hollow) → after");
    doc.Chart(RooflineShiftSvg(&before.roofline, after.roofline, chart_id));
  }
}

// The attribution's terms, one row each (parts under 1 % of the change summed per factor), and the
// measured change.
TextTable AttributionTable(const TimeAttribution& attribution) {
  TextTable terms;
  terms.rows = {{"term", "before", "after", "time", "±"}};
  terms.right_aligned = {false, true, true, true, true};
  size_t hidden = 0;
  double hidden_ns = 0;
  auto flush = [&]() {  // the parts of the factor above too small for a row
    if (hidden > 0)
      terms.rows.push_back(
          {fmt::format("  ({} smaller parts)", hidden), "", "", SignedDuration(hidden_ns), ""});
    hidden = 0;
    hidden_ns = 0;
  };
  for (const AttributionTerm& term : attribution.terms) {
    if (term.part.empty()) flush();
    if (!ShownTerm(term, attribution.delta_ns)) {
      ++hidden;
      hidden_ns += term.delta_ns;
      continue;
    }
    terms.rows.push_back({(term.part.empty() ? "" : "  ") + term.label, FactorValue(term.before, term.unit),
                          FactorValue(term.after, term.unit), SignedDuration(term.delta_ns),
                          PlusMinus(term.delta_ns, term.uncertainty_ns)});
  }
  flush();
  terms.rows.push_back({"measured change", Duration(attribution.before_ns), Duration(attribution.after_ns),
                        SignedDuration(attribution.delta_ns),
                        PlusMinus(attribution.delta_ns, attribution.change_uncertainty_ns)});
  return terms;
}

// "Where the time went": the attribution's table and its noise.
void WriteAttribution(TextDocument& doc, const TimeAttribution& attribution) {
  doc.Subheading(fmt::format(
      "Where the time went: the terms sum to {} (exact); stall shares from {}; ± from {}",
      SignedDuration(attribution.delta_ns),
      attribution.stall_source == StallSource::kCounters ? "counter sums" : "ncu's rounded ratios",
      UncertaintyText(attribution)));
  doc.Table(AttributionTable(attribution));
  doc.Paragraph(fmt::format(
      "noise: the stall counters' replay against the active-warp total, ρ {} → {}, amounts to {} ({} of "
      "the "
      "change); a term marked * is within twice its ±",
      fmt::format("{:.4f}", attribution.rho_before), fmt::format("{:.4f}", attribution.rho_after),
      Duration(attribution.pass_mismatch_ns),
      FormatFraction(
          attribution.delta_ns != 0 ? attribution.pass_mismatch_ns / std::fabs(attribution.delta_ns) : 0,
          kStyle)));
  doc.Blank();
}

// The memory traffic per level: bytes, and the change of its floor at peak and achieved rates.
void WriteTraffic(TextDocument& doc, const std::vector<TrafficChange>& levels) {
  doc.Subheading("Memory traffic (bytes at the level's peak rate: the change of its floor)");
  TextTable traffic;
  traffic.rows = {{"level", "before", "after", "Δ at peak", "Δ at achieved", "achieved before → after"}};
  traffic.right_aligned = {false, true, true, true, true, true};
  for (const TrafficChange& level : levels) {
    traffic.rows.push_back({MemoryLevelLabel(level.level), FormatBytes(level.bytes_before, kStyle),
                            FormatBytes(level.bytes_after, kStyle),
                            level.peak_bytes_per_second > 0 ? SignedDuration(level.floor_delta_ns) : "n/a",
                            level.achieved_after > 0 ? SignedDuration(level.at_achieved_ns) : "n/a",
                            FormatBandwidth(level.achieved_before, kStyle) + " → " +
                                FormatBandwidth(level.achieved_after, kStyle)});
  }
  doc.Table(traffic);
  doc.Blank();
}

// The metrics that moved most beyond their noise.
void WriteMovedMetrics(TextDocument& doc, const std::vector<MetricMove>& moves) {
  doc.Subheading(fmt::format("Metrics that moved most beyond noise (top {})", moves.size()));
  TextTable moved;
  moved.rows = {{"metric", "before", "after", "change", "× noise"}};
  moved.right_aligned = {false, true, true, true, true};
  for (const MetricMove& move : moves) {
    const double base = std::max(std::fabs(move.before), std::fabs(move.after));
    moved.rows.push_back(
        {move.metric, FormatMeasurement(move.before, move.unit, kStyle),
         FormatMeasurement(move.after, move.unit, kStyle),
         move.before != 0 ? SignedPercent((move.after - move.before) / std::fabs(move.before))
                          : (base > 0 ? "from 0" : ""),
         std::isfinite(move.noise_units) ? FormatNumber(move.noise_units, kStyle) : "exact"});
  }
  doc.Table(moved);
  doc.Blank();
}

// One bullet with the launch configuration's changed metrics (the first six).
void WriteLaunchChanges(TextDocument& doc, const std::vector<MetricMove>& launch_changes) {
  std::vector<std::string> changes;
  for (const MetricMove& move : launch_changes) {
    if (changes.size() == 6) break;
    changes.push_back(fmt::format("{} {} → {}", move.metric,
                                  FormatMeasurement(move.before, move.unit, kStyle),
                                  FormatMeasurement(move.after, move.unit, kStyle)));
  }
  doc.Bullet(fmt::format("launch configuration: {} metric{} changed: {}{}", launch_changes.size(),
                         launch_changes.size() == 1 ? "" : "s", JoinList(changes),
                         launch_changes.size() > changes.size() ? ", …" : ""));
}

void WritePair(TextDocument& doc, const ProfileComparison& comparison, const KernelComparison& pair,
               size_t index, const std::string& chart_prefix) {
  const KernelDiagnosis& before = comparison.before.kernels[pair.before_index];
  const KernelDiagnosis& after = comparison.after.kernels[pair.after_index];
  doc.Heading(fmt::format("[{}] {} → {}", index + 1, before.function_name, after.function_name));
  doc.Paragraph(fmt::format("paired by {}", pair.match));
  WritePairSummary(doc, before, after, fmt::format("{}-{}", chart_prefix, index));
  if (pair.attribution.available) WriteAttribution(doc, pair.attribution);
  if (!pair.attribution.traffic.empty()) WriteTraffic(doc, pair.attribution.traffic);
  if (!pair.moved.empty()) WriteMovedMetrics(doc, pair.moved);
  if (!pair.launch_changes.empty()) WriteLaunchChanges(doc, pair.launch_changes);
  if (!pair.findings.empty()) {
    doc.Subheading("Findings");
    for (const FindingChange& change : pair.findings) {
      doc.Bullet(
          fmt::format("{}: {} — {}", FindingChangeKindName(change.kind), change.title, SeverityText(change)));
    }
    doc.Blank();
  }
  for (const std::string& note : pair.notes) doc.Bullet(note);
  if (!pair.notes.empty()) doc.Blank();
}

// ", 1.41× faster", ", 2.1× slower"; ", the same time" when the ratio prints as 1×.
std::string SpeedRatioText(double ratio) {
  std::string faster = FormatNumber(ratio, kStyle);
  std::string slower = FormatNumber(1 / ratio, kStyle);
  if (ratio >= 1 ? faster == "1" : slower == "1") return ", the same time";
  return ratio >= 1 ? fmt::format(", {}× faster", faster) : fmt::format(", {}× slower", slower);
}

void WriteComparisonBody(TextDocument& doc, const ProfileComparison& comparison,
                         const std::string& chart_prefix) {
  const double delta = comparison.total_after_ns - comparison.total_before_ns;
  std::string device =
      comparison.same_device
          ? (comparison.before.device_name.empty() ? "unknown" : comparison.before.device_name) + " (both)"
          : comparison.before.device_name + " → " + comparison.after.device_name;
  doc.Paragraph(fmt::format("before: {}", comparison.before.source));
  doc.Paragraph(fmt::format("after:  {}", comparison.after.source));
  doc.Paragraph(fmt::format("device: {}", device));
  std::string speed;
  if (comparison.unrelated_kernels) {
    speed = ", different kernels";
  } else if (comparison.total_after_ns > 0 && comparison.total_before_ns > 0) {
    speed = SpeedRatioText(comparison.total_before_ns / comparison.total_after_ns);
  }
  doc.Paragraph(fmt::format("total kernel time: {} → {} ({}{}); {} pair{} compared",
                            Duration(comparison.total_before_ns), Duration(comparison.total_after_ns),
                            SignedDuration(delta), speed, comparison.pairs.size(),
                            comparison.pairs.size() == 1 ? "" : "s"));
  doc.Blank();
  for (const std::string& note : comparison.notes) doc.Bullet(note);
  if (!comparison.notes.empty()) doc.Blank();
  for (size_t i = 0; i < comparison.pairs.size(); ++i)
    WritePair(doc, comparison, comparison.pairs[i], i, chart_prefix);
}

void WriteNarrative(TextDocument& doc, const std::optional<Narrative>& narrative) {
  WriteNarrativeSection(doc, "Narrative (LLM; every number checked against the comparison)", narrative);
}

Json AttributionJson(const TimeAttribution& attribution) {
  Json json;
  json["available"] = attribution.available;
  json["method"] = attribution.method;
  json["before"] = JsonQuantity(attribution.before_ns, "ns");
  json["after"] = JsonQuantity(attribution.after_ns, "ns");
  json["change"] = JsonQuantity(attribution.delta_ns, "ns");
  json["residual"] = JsonQuantity(attribution.residual_ns, "ns");
  json["residual_fraction"] = JsonQuantity(attribution.residual_fraction, "fraction");
  json["stall_source"] = StallSourceName(attribution.stall_source);
  json["stall_split"] = "shares";
  json["change_uncertainty"] = JsonQuantity(attribution.change_uncertainty_ns, "ns");
  Json noise;
  noise["rho_before"] = JsonQuantity(attribution.rho_before, "ratio");
  noise["rho_after"] = JsonQuantity(attribution.rho_after, "ratio");
  noise["pass_mismatch"] = JsonQuantity(attribution.pass_mismatch_ns, "ns");
  noise["pass_mismatch_fraction"] = JsonQuantity(
      attribution.delta_ns != 0 ? attribution.pass_mismatch_ns / std::fabs(attribution.delta_ns) : 0,
      "fraction");
  noise["uncertainty_source"] = UncertaintySourceName(attribution.uncertainty_source);
  noise["launches_before"] = attribution.launches_before;
  noise["launches_after"] = attribution.launches_after;
  json["noise"] = noise;
  json["missing_metrics"] = attribution.missing;
  Json terms = Json::array();
  for (const AttributionTerm& term : attribution.terms) {
    Json row;
    row["factor"] = term.factor;
    row["part"] = term.part.empty() ? Json(nullptr) : Json(term.part);
    row["label"] = term.label;
    row["before"] = JsonQuantity(term.before, term.unit);
    row["after"] = JsonQuantity(term.after, term.unit);
    row["time"] = JsonQuantity(term.delta_ns, "ns");
    row["uncertainty"] = JsonQuantity(term.uncertainty_ns, "ns");
    terms.push_back(row);
  }
  json["terms"] = terms;
  Json traffic = Json::array();
  for (const TrafficChange& level : attribution.traffic) {
    Json row;
    row["level"] = level.level;
    row["bytes_before"] = JsonQuantity(level.bytes_before, "byte");
    row["bytes_after"] = JsonQuantity(level.bytes_after, "byte");
    row["achieved_before"] = JsonQuantity(level.achieved_before, "byte/s");
    row["achieved_after"] = JsonQuantity(level.achieved_after, "byte/s");
    row["peak"] =
        level.peak_bytes_per_second > 0 ? JsonQuantity(level.peak_bytes_per_second, "byte/s") : Json(nullptr);
    row["floor_change"] =
        level.peak_bytes_per_second > 0 ? JsonQuantity(level.floor_delta_ns, "ns") : Json(nullptr);
    row["change_at_achieved"] =
        level.achieved_after > 0 ? JsonQuantity(level.at_achieved_ns, "ns") : Json(nullptr);
    traffic.push_back(row);
  }
  json["traffic"] = traffic;
  return json;
}

Json NarrativeJson(const std::optional<Narrative>& narrative) {
  if (!narrative) return Json(nullptr);
  Json json;
  json["text"] = narrative->text;
  json["missing_reason"] = narrative->missing_reason;
  json["claims"] = narrative->claims.size();
  json["unsupported_claims"] = narrative->UnsupportedCount();
  json["regenerated"] = narrative->regenerated;
  json["model"] = narrative->model;
  return json;
}

Json ComparisonBodyJson(const ProfileComparison& comparison) {
  Json json;
  json["before"] = {{"source", comparison.before.source}, {"device", comparison.before.device_name}};
  json["after"] = {{"source", comparison.after.source}, {"device", comparison.after.device_name}};
  json["same_device"] = comparison.same_device;
  json["unrelated_kernels"] = comparison.unrelated_kernels;
  json["total_before"] = JsonQuantity(comparison.total_before_ns, "ns");
  json["total_after"] = JsonQuantity(comparison.total_after_ns, "ns");
  Json pairs = Json::array();
  for (const KernelComparison& pair : comparison.pairs) {
    Json row;
    row["match"] = pair.match;
    row["before"] = KernelDiagnosisToJson(comparison.before.kernels[pair.before_index]);
    row["after"] = KernelDiagnosisToJson(comparison.after.kernels[pair.after_index]);
    row["attribution"] = AttributionJson(pair.attribution);
    Json moved = Json::array();
    for (const MetricMove& move : pair.moved) {
      Json m;
      m["metric"] = move.metric;
      m["before"] = JsonQuantity(move.before, move.unit);
      m["after"] = JsonQuantity(move.after, move.unit);
      m["noise"] = JsonQuantity(move.noise, move.unit);
      m["noise_units"] = std::isfinite(move.noise_units) ? Json(move.noise_units) : Json(nullptr);
      m["family"] = move.family;
      moved.push_back(m);
    }
    row["moved_metrics"] = moved;
    Json launch = Json::array();
    for (const MetricMove& move : pair.launch_changes) {
      launch.push_back({{"metric", move.metric},
                        {"before", JsonQuantity(move.before, move.unit)},
                        {"after", JsonQuantity(move.after, move.unit)}});
    }
    row["launch_changes"] = launch;
    row["metric_sets"] = {{"common", pair.metric_sets.common},
                          {"only_before", pair.metric_sets.only_before.size()},
                          {"only_after", pair.metric_sets.only_after.size()}};
    Json findings = Json::array();
    for (const FindingChange& change : pair.findings) {
      Json f;
      f["change"] = std::string(FindingChangeKindName(change.kind));
      f["tool"] = change.tool;
      f["title"] = change.title;
      f["severity_before"] = change.kind == FindingChangeKind::kNew
                                 ? Json(nullptr)
                                 : Json(std::string(SeverityName(change.before)));
      f["severity_after"] = change.kind == FindingChangeKind::kResolved
                                ? Json(nullptr)
                                : Json(std::string(SeverityName(change.after)));
      f["gain_before"] = JsonQuantity(change.gain_before, "fraction");
      f["gain_after"] = JsonQuantity(change.gain_after, "fraction");
      findings.push_back(f);
    }
    row["findings"] = findings;
    row["notes"] = pair.notes;
    pairs.push_back(row);
  }
  json["pairs"] = pairs;
  json["unmatched_before"] = comparison.unmatched_before;
  json["unmatched_after"] = comparison.unmatched_after;
  json["notes"] = comparison.notes;
  return json;
}

std::string ParameterText(double value) {
  return FormatNumber(value, kStyle);
}

std::string FixedText(const std::map<std::string, double>& fixed) {
  std::string text;
  for (const auto& [name, value] : fixed)
    text += (text.empty() ? "" : ", ") + name + " = " + ParameterText(value);
  return text;
}

double LevelPercent(const RooflineAnalysis& roofline, std::string_view level) {
  for (const MemoryTraffic& traffic : roofline.memory)
    if (traffic.level == level) return traffic.percent_of_peak;
  return std::nan("");
}

std::string MaybePercent(double value) {
  return std::isnan(value) ? "-" : FormatPercent(value, kStyle);
}

// One chart per swept metric, one line per series.
void WriteSweepCharts(TextDocument& doc, const SweepAnalysis& sweep) {
  struct Metric {
    const char* title;
    const char* unit;
    std::function<double(const SweepRow&)> value;
  };
  const std::vector<Metric> metrics = {
      {"time", "ns", [](const SweepRow& row) { return row.point.duration_ns; }},
      {"DRAM throughput (% of peak)", "%",
       [](const SweepRow& row) { return LevelPercent(row.point.kernel.roofline, "dram"); }},
      {"L2 throughput (% of peak)", "%",
       [](const SweepRow& row) { return LevelPercent(row.point.kernel.roofline, "l2"); }},
      {"L1 throughput (% of peak)", "%",
       [](const SweepRow& row) { return LevelPercent(row.point.kernel.roofline, "l1"); }},
      {"compute (% of peak)", "%",
       [](const SweepRow& row) { return row.point.kernel.roofline.compute_percent_of_peak; }},
      {"achieved occupancy (% of maximum warps)", "%",
       [](const SweepRow& row) { return row.point.achieved_occupancy_percent.value_or(std::nan("")); }},
  };
  bool log_x = true;
  double low = 1e300, high = 0;
  for (const SweepSeries& series : sweep.series)
    for (const SweepRow& row : series.rows) {
      log_x = log_x && row.value > 0;
      low = std::min(low, row.value);
      high = std::max(high, row.value);
    }
  log_x = log_x && high >= 8 * low;
  for (const Metric& metric : metrics) {
    std::vector<LineSeries> lines;
    bool any = false;
    for (const SweepSeries& series : sweep.series) {
      LineSeries line;
      line.name = series.fixed.empty() ? sweep.parameter : FixedText(series.fixed);
      for (const SweepRow& row : series.rows) {
        double value = metric.value(row);
        if (std::isnan(value)) continue;
        line.points.emplace_back(row.value, value);
        any = true;
      }
      lines.push_back(std::move(line));
    }
    if (!any) continue;
    doc.Chart(LineChartSvg(metric.title, sweep.parameter, metric.unit, lines, log_x,
                           std::string_view(metric.unit) == "%" ? std::optional<double>(100) : std::nullopt));
  }
}

}  // namespace

std::string SignedDuration(double nanoseconds) {
  if (nanoseconds == 0) return "0 s";
  return (nanoseconds > 0 ? "+" : "−") + FormatDuration(std::fabs(nanoseconds), kStyle);
}

std::string SignedPercent(double fraction) {
  return (fraction >= 0 ? "+" : "−") + FormatFraction(std::fabs(fraction), kStyle);
}

std::string RenderComparison(const ProfileComparison& comparison, ReportFormat format) {
  if (format == ReportFormat::kJson) return ComparisonToJson(comparison).dump(2) + "\n";
  TextDocument doc(format);
  doc.Title("kopt diff: what changed between two profiles");
  WriteComparisonBody(doc, comparison, "diff");
  WriteNarrative(doc, comparison.narrative);
  return doc.str();
}

nlohmann::ordered_json ComparisonToJson(const ProfileComparison& comparison) {
  Json json;
  json["schema"] = kDiffSchema;
  Json body = ComparisonBodyJson(comparison);
  for (auto& [key, value] : body.items()) json[key] = value;
  json["narrative"] = NarrativeJson(comparison.narrative);
  return json;
}

std::string RenderVersions(const VersionSeries& versions, ReportFormat format) {
  if (format == ReportFormat::kJson) return VersionsToJson(versions).dump(2) + "\n";
  TextDocument doc(format);
  doc.Title(fmt::format("kopt explain: {} versions ranked by time", versions.labels.size()));
  TextTable ranking;
  ranking.rows = {{"rank", "version", "time", "vs fastest"}};
  ranking.right_aligned = {true, false, true, true};
  const double fastest = versions.total_ns[versions.ranking.front()];
  for (size_t r = 0; r < versions.ranking.size(); ++r) {
    size_t i = versions.ranking[r];
    ranking.rows.push_back({std::to_string(r + 1), versions.labels[i], Duration(versions.total_ns[i]),
                            fastest > 0 ? FormatNumber(versions.total_ns[i] / fastest, kStyle) + "×" : "-"});
  }
  doc.Table(ranking);
  doc.Blank();
  for (size_t s = 0; s < versions.steps.size(); ++s) {
    doc.Heading(fmt::format("Step {}: {} → {}", s + 1, versions.labels[s], versions.labels[s + 1]));
    WriteComparisonBody(doc, versions.steps[s], fmt::format("step{}", s + 1));
  }
  WriteNarrative(doc, versions.narrative);
  return doc.str();
}

nlohmann::ordered_json VersionsToJson(const VersionSeries& versions) {
  Json json;
  json["schema"] = kVersionsSchema;
  Json list = Json::array();
  for (size_t i = 0; i < versions.labels.size(); ++i) {
    size_t rank = std::find(versions.ranking.begin(), versions.ranking.end(), i) - versions.ranking.begin();
    list.push_back({{"label", versions.labels[i]},
                    {"time", JsonQuantity(versions.total_ns[i], "ns")},
                    {"rank", rank + 1}});
  }
  json["versions"] = list;
  Json steps = Json::array();
  for (const ProfileComparison& step : versions.steps) steps.push_back(ComparisonBodyJson(step));
  json["steps"] = steps;
  json["narrative"] = NarrativeJson(versions.narrative);
  return json;
}

std::string RenderSweep(const SweepAnalysis& sweep, ReportFormat format) {
  if (format == ReportFormat::kJson) return SweepToJson(sweep).dump(2) + "\n";
  TextDocument doc(format, 130);
  size_t points = 0;
  for (const SweepSeries& series : sweep.series) points += series.rows.size();
  doc.Title(fmt::format("kopt explain: sweep of {} over {} profiles", sweep.parameter, points));
  for (const std::string& note : sweep.notes) doc.Bullet(note);
  if (!sweep.best_overall.empty()) doc.Paragraph(sweep.best_overall);
  if (!sweep.notes.empty() || !sweep.best_overall.empty()) doc.Blank();
  if (doc.html()) WriteSweepCharts(doc, sweep);
  for (const SweepSeries& series : sweep.series) {
    doc.Heading(series.fixed.empty() ? std::string("Sweep") : "Series: " + FixedText(series.fixed));
    TextTable table;
    table.rows = {
        {sweep.parameter, "time", "DRAM", "L2", "L1", "compute", "occupancy", "class", "top finding"}};
    table.right_aligned = {true, true, true, true, true, true, true, false, false};
    for (size_t i = 0; i < series.rows.size(); ++i) {
      const SweepRow& row = series.rows[i];
      const RooflineAnalysis& roofline = row.point.kernel.roofline;
      table.rows.push_back(
          {ParameterText(row.value) + (i == series.best ? " *" : ""), Duration(row.point.duration_ns),
           MaybePercent(LevelPercent(roofline, "dram")), MaybePercent(LevelPercent(roofline, "l2")),
           MaybePercent(LevelPercent(roofline, "l1")),
           FormatPercent(roofline.compute_percent_of_peak, kStyle),
           row.point.achieved_occupancy_percent ? FormatPercent(*row.point.achieved_occupancy_percent, kStyle)
                                                : "-",
           BottleneckLabel(roofline), row.top >= 0 ? row.point.kernel.findings[row.top].tool : "-"});
    }
    doc.Table(table);
    doc.Paragraph("(percent of each ceiling; occupancy: achieved warps of the maximum; * the best point)");
    doc.Subheading("Regimes");
    for (const SweepRegime& regime : series.regimes) doc.Bullet(regime.description);
    if (!series.change_points.empty()) {
      doc.Subheading("Change points");
      for (const std::string& change : series.change_points) doc.Bullet(change);
    }
    doc.Subheading(fmt::format("Best point (objective: {})", series.objective));
    doc.Paragraph(series.best_reason);
    doc.Blank();
  }
  WriteNarrative(doc, sweep.narrative);
  return doc.str();
}

nlohmann::ordered_json SweepToJson(const SweepAnalysis& sweep) {
  Json json;
  json["schema"] = kSweepSchema;
  json["parameter"] = sweep.parameter;
  Json all = Json::array();
  for (const SweepSeries& series : sweep.series) {
    Json s;
    s["fixed"] = series.fixed;
    Json rows = Json::array();
    for (const SweepRow& row : series.rows) {
      const RooflineAnalysis& roofline = row.point.kernel.roofline;
      Json r;
      r["label"] = row.point.label;
      r["value"] = row.value;
      r["time"] = JsonQuantity(row.point.duration_ns, "ns");
      Json levels;
      for (const MemoryTraffic& traffic : roofline.memory) {
        levels[traffic.level] = {{"achieved", JsonQuantity(traffic.achieved_bytes_per_second, "byte/s")},
                                 {"percent_of_peak", JsonQuantity(traffic.percent_of_peak, "%")}};
      }
      r["memory"] = levels;
      r["compute_percent_of_peak"] = JsonQuantity(roofline.compute_percent_of_peak, "%");
      r["speed_of_light"] = JsonQuantity(roofline.speed_of_light_percent, "%");
      r["achieved_occupancy"] = row.point.achieved_occupancy_percent
                                    ? JsonQuantity(*row.point.achieved_occupancy_percent, "%")
                                    : Json(nullptr);
      r["theoretical_occupancy"] = row.point.theoretical_occupancy_percent
                                       ? JsonQuantity(*row.point.theoretical_occupancy_percent, "%")
                                       : Json(nullptr);
      r["occupancy_limiter"] = row.point.occupancy_limiter;
      r["class"] = std::string(BottleneckClassName(roofline.bottleneck));
      r["top_finding"] = row.top >= 0 ? Json(row.point.kernel.findings[row.top].tool) : Json(nullptr);
      r["limiter"] = row.limiter;
      rows.push_back(r);
    }
    s["points"] = rows;
    Json regimes = Json::array();
    for (const SweepRegime& regime : series.regimes) {
      regimes.push_back({{"from", series.rows[regime.first].value},
                         {"to", series.rows[regime.last].value},
                         {"limiter", regime.limiter},
                         {"description", regime.description}});
    }
    s["regimes"] = regimes;
    s["change_points"] = series.change_points;
    s["best"] = {{"value", series.rows[series.best].value},
                 {"objective", series.objective},
                 {"reason", series.best_reason}};
    all.push_back(s);
  }
  json["series"] = all;
  json["best_overall"] = sweep.best_overall;
  json["notes"] = sweep.notes;
  json["narrative"] = NarrativeJson(sweep.narrative);
  return json;
}

std::string ComparisonDigest(const ProfileComparison& comparison, size_t max_terms) {
  std::string text = fmt::format("total time {} → {} ({})\n", Duration(comparison.total_before_ns),
                                 Duration(comparison.total_after_ns),
                                 SignedDuration(comparison.total_after_ns - comparison.total_before_ns));
  for (const KernelComparison& pair : comparison.pairs) {
    const KernelDiagnosis& before = comparison.before.kernels[pair.before_index];
    const KernelDiagnosis& after = comparison.after.kernels[pair.after_index];
    text += fmt::format("{} → {}: {} → {}, {} → {}\n", before.function_name, after.function_name,
                        Duration(before.roofline.duration_ns), Duration(after.roofline.duration_ns),
                        BottleneckLabel(before.roofline), BottleneckLabel(after.roofline));
    if (pair.attribution.available) {
      // Each factor by its parts where it has them, else whole; then the noise figure.
      std::vector<const AttributionTerm*> terms;
      for (const AttributionTerm& term : pair.attribution.terms) {
        bool has_parts = std::any_of(
            pair.attribution.terms.begin(), pair.attribution.terms.end(),
            [&](const AttributionTerm& other) { return other.factor == term.factor && !other.part.empty(); });
        if (term.part.empty() != has_parts) terms.push_back(&term);
      }
      std::stable_sort(terms.begin(), terms.end(), [](const AttributionTerm* a, const AttributionTerm* b) {
        return std::fabs(a->delta_ns) > std::fabs(b->delta_ns);
      });
      if (terms.size() > max_terms) terms.resize(max_terms);
      for (const AttributionTerm* term : terms) {
        text += fmt::format("  {}: {} → {} ({} {})\n", term->label, FactorValue(term->before, term->unit),
                            FactorValue(term->after, term->unit), SignedDuration(term->delta_ns),
                            PlusMinus(term->delta_ns, term->uncertainty_ns));
      }
      text += fmt::format(
          "  noise: stall-pass mismatch {} ({} of the change)\n", Duration(pair.attribution.pass_mismatch_ns),
          FormatFraction(pair.attribution.delta_ns != 0
                             ? pair.attribution.pass_mismatch_ns / std::fabs(pair.attribution.delta_ns)
                             : 0,
                         kStyle));
    }
    for (const FindingChange& change : pair.findings) {
      if (change.kind == FindingChangeKind::kSame) continue;
      text += fmt::format("  finding {}: {} ({})\n", FindingChangeKindName(change.kind), change.title,
                          SeverityText(change));
    }
  }
  return text;
}

}  // namespace kopt
