#include "report/bench_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "report/baseline_speedups.h"
#include "report/markup_escape.h"
#include "report/report_format.h"
#include "report/text_table.h"

namespace kopt {
namespace {

using nlohmann::json;

json Quantity(double value, const char* unit) {
  return {{"value", value}, {"unit", unit}};
}

json OptionalQuantity(const std::optional<double>& value, const char* unit) {
  return value ? Quantity(*value, unit) : json(nullptr);
}

json TimingToJson(const runner::TimingEvent& timing) {
  return {{"median", Quantity(timing.median_s, "s")},
          {"q1", Quantity(timing.q1_s, "s")},
          {"q3", Quantity(timing.q3_s, "s")},
          {"mean", Quantity(timing.mean_s, "s")},
          {"min", Quantity(timing.min_s, "s")},
          {"max", Quantity(timing.max_s, "s")},
          {"relative_stdev", Quantity(timing.relative_stdev, "fraction")},
          {"samples", Quantity(static_cast<double>(timing.samples), "sample")},
          {"gpu_time", Quantity(timing.gpu_seconds, "s")},
          {"device_wide_median", Quantity(timing.device_wide_median_s, "s")},
          {"sm_clock_mean", Quantity(timing.sm_clock_mean_mhz * 1e6, "Hz")},
          {"throttled_samples_discarded",
           Quantity(static_cast<double>(timing.throttled_samples_discarded), "sample")},
          {"input_sets", Quantity(static_cast<double>(timing.input_sets), "set")},
          {"stop_reason", timing.stop_reason},
          {"cold", timing.cold}};
}

json EnergyToJson(const runner::EnergyEvent& energy) {
  if (!energy.available) return {{"available", false}, {"reason", energy.reason}};
  return {{"available", true},
          {"per_launch", Quantity(energy.joules_per_launch, "J")},
          {"per_launch_stdev", Quantity(energy.joules_per_launch_stdev, "J")},
          {"dynamic_per_launch", Quantity(energy.dynamic_joules_per_launch, "J")},
          {"idle_power", Quantity(energy.idle_watts, "W")},
          {"mean_power", Quantity(energy.mean_watts, "W")},
          {"power_sample", Quantity(energy.power_sample_watts, "W")},
          {"windows", Quantity(static_cast<double>(energy.windows), "window")},
          {"launches_per_window", Quantity(static_cast<double>(energy.launches_per_window), "launch")}};
}

json MeasureToJson(const MeasurementEntry& entry) {
  json measure = {{"time", Quantity(entry.measure_seconds, "s")}};
  if (entry.phases) {
    const ParentPhases& phases = *entry.phases;
    measure["parent"] = {{"channel", phases.channel},
                         {"prepare", Quantity(phases.prepare, "s")},
                         {"receive", Quantity(phases.receive, "s")},
                         {"judge", Quantity(phases.judge, "s")},
                         {"store", Quantity(phases.store, "s")},
                         {"prejudged", phases.prejudged}};
  }
  return measure;
}

// The entry's median when it is ok: what the "vs" ratios divide.
std::optional<double> OkMedian(const MeasurementEntry& entry) {
  if (!entry.timing || entry.status != MeasureStatus::kOk) return std::nullopt;
  return entry.timing->median_s;
}

json EntryToJson(const MeasurementEntry& entry, const std::optional<TaskBaselines>& baselines) {
  return {{"name", entry.name},
          {"path", entry.path},
          {"hash", entry.hash},
          {"role", std::string(EntryRoleName(entry.role))},
          {"status", std::string(MeasureStatusName(entry.status))},
          {"kind", entry.KindName().empty() ? json(nullptr) : json(entry.KindName())},
          {"message", entry.message},
          {"detail", entry.detail},
          {"compile",
           {{"status", std::string(entry.compile ? CompileOutcomeName(*entry.compile) : std::string_view())},
            {"time", Quantity(entry.compile_seconds, "s")},
            {"cached", entry.compile_cached}}},
          {"measure", MeasureToJson(entry)},
          {"checks",
           {{"passed", Quantity(static_cast<double>(entry.checks_passed), "round")},
            {"total", Quantity(static_cast<double>(entry.checks_total), "round")}}},
          {"timing", entry.timing ? TimingToJson(*entry.timing) : json(nullptr)},
          {"energy", entry.energy ? EnergyToJson(*entry.energy) : json(nullptr)},
          {"speedup", OptionalQuantity(entry.speedup, "ratio")},
          {"speedup_against", SpeedupsAgainstJson(baselines, OkMedian(entry))},
          {"suspect_fast", entry.suspect_fast},
          {"resumed_from_run", entry.resumed_from_run ? json(*entry.resumed_from_run) : json(nullptr)}};
}

// ---- the table shared by the terminal and Markdown formats ----

std::string StatusText(const MeasurementEntry& entry) {
  std::string status(MeasureStatusName(entry.status));
  std::string kind = entry.KindName();
  if (kind.empty()) return status;
  return status + ": " + kind;
}

std::string EnergyText(const MeasurementEntry& entry) {
  if (!entry.energy) return "-";
  if (!entry.energy->available) return "unavailable";
  double joules = entry.energy->joules_per_launch;
  // Joules per launch are small: milli-, micro-, nanojoules, three significant digits.
  const char* units[] = {"J", "mJ", "µJ", "nJ"};
  int unit = 0;
  while (unit < 3 && joules != 0 && std::fabs(joules) < 0.9995) {
    joules *= 1000;
    ++unit;
  }
  int decimals = std::fabs(joules) >= 99.95 ? 0 : std::fabs(joules) >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f} {}", joules, decimals, units[unit]);
}

std::string Flags(const MeasurementEntry& entry) {
  std::vector<std::string> flags;
  if (entry.suspect_fast) flags.push_back("SUSPECT_FAST");
  if (entry.resumed_from_run) flags.push_back("stored(run " + std::to_string(*entry.resumed_from_run) + ")");
  if (entry.timing && entry.timing->stop_reason == "timeout") flags.push_back("noisy");
  if (entry.timing && entry.timing->throttled_samples_discarded > 0) flags.push_back("throttled");
  if (entry.compile_cached) flags.push_back("cached");
  std::string text;
  for (const std::string& flag : flags) text += (text.empty() ? "" : " ") + flag;
  return text.empty() ? "-" : text;
}

std::string RatioText(std::optional<double> ratio) {
  return ratio ? fmt::format("{:.2f}x", *ratio) : "-";
}

// With PyTorch baselines, their speedups come first and the reference's
// (for an imported KernelBench task: the bridge) is labelled as such.
std::vector<std::string> Row(const MeasurementEntry& entry, const std::optional<TaskBaselines>& baselines) {
  std::string median = "-", iqr = "-", noise = "-", samples = "-";
  if (entry.timing) {
    median = FormatSeconds(entry.timing->median_s);
    iqr = FormatSeconds(entry.timing->q1_s) + " - " + FormatSeconds(entry.timing->q3_s);
    noise = fmt::format("{:.2f}%", entry.timing->relative_stdev * 100);
    samples = std::to_string(entry.timing->samples);
  }
  std::vector<std::string> row = {entry.name, StatusText(entry), median, iqr, noise, samples};
  if (baselines) {
    for (PytorchBaseline kind : kPytorchBaselines)
      row.push_back(RatioText(SpeedupAgainst(baselines->Get(kind), OkMedian(entry))));
  }
  row.push_back(RatioText(entry.speedup));
  row.push_back(EnergyText(entry));
  row.push_back(Flags(entry));
  return row;
}

std::vector<std::string> Header(const std::optional<TaskBaselines>& baselines) {
  std::vector<std::string> header = {"candidate", "status", "median", "IQR", "rel.stdev", "samples"};
  if (baselines) {
    for (PytorchBaseline kind : kPytorchBaselines)
      header.push_back("vs " + std::string(PytorchBaselineTitle(kind)));
  }
  header.push_back(baselines ? "vs reference" : "speedup");
  header.push_back("energy/launch");
  header.push_back("flags");
  return header;
}

std::vector<const MeasurementEntry*> Rows(const MeasurementReport& report) {
  std::vector<const MeasurementEntry*> rows = {&report.reference};
  for (const MeasurementEntry& entry : report.candidates) rows.push_back(&entry);
  if (report.reference_end) rows.push_back(&*report.reference_end);
  return rows;
}

// Lines below the table: failures with their messages, drift, floor, notes.
std::vector<std::string> Footer(const MeasurementReport& report) {
  std::vector<std::string> lines;
  for (const MeasurementEntry* entry : Rows(report)) {
    if (entry->status == MeasureStatus::kOk || entry->status == MeasureStatus::kCompiled) continue;
    std::string line = entry->name + ": " + StatusText(*entry);
    if (!entry->message.empty()) line += ": " + entry->message;
    lines.push_back(line);
  }
  std::vector<std::string> energy_reasons;  // each distinct reason once, in row order
  for (const MeasurementEntry* entry : Rows(report)) {
    if (!entry->energy || entry->energy->available) continue;
    if (std::find(energy_reasons.begin(), energy_reasons.end(), entry->energy->reason) ==
        energy_reasons.end()) {
      energy_reasons.push_back(entry->energy->reason);
    }
  }
  for (const std::string& reason : energy_reasons) lines.push_back("energy unavailable: " + reason);
  if (report.reference_drift) {
    lines.push_back(
        fmt::format("reference re-timed at the end: drift {:+.2f}%", *report.reference_drift * 100));
  }
  if (report.floor_seconds > 0) {
    lines.push_back("roofline floor: " + FormatSeconds(report.floor_seconds) + " (" +
                    (report.task_flops > 0 ? FormatOperations(report.task_flops, QuantityStyle::kFixed) + ", "
                                           : std::string()) +
                    FormatBytes(report.task_min_bytes, QuantityStyle::kFixed) + " moved at least)");
  }
  if (report.pytorch_baselines) {
    for (std::string& line : PytorchBaselineLines(*report.pytorch_baselines, report.gpu))
      lines.push_back(std::move(line));
  }
  for (const std::string& note : report.notes) lines.push_back("note: " + note);
  return lines;
}

std::string Title(const MeasurementReport& report) {
  std::string title = "kopt bench: task " + report.task + " (" + report.task_directory + ")";
  if (!report.gpu.empty()) title += " on " + report.gpu;
  title += ", " + report.architecture + ", run " + std::to_string(report.run_id) + " in " + report.workspace;
  return title;
}

// The table with every cell passed through `clean`.
TextTable Table(const MeasurementReport& report, std::string (*clean)(std::string_view)) {
  TextTable table;
  table.rows.push_back(Header(report.pytorch_baselines));
  for (const MeasurementEntry* entry : Rows(report))
    table.rows.push_back(Row(*entry, report.pytorch_baselines));
  for (auto& row : table.rows) {
    for (std::string& cell : row) cell = clean(cell);
  }
  return table;
}

// Candidate names, messages and compiler text are untrusted: sanitized.
void RenderTerminal(const MeasurementReport& report, std::ostream& out) {
  out << SanitizeForTerminal(Title(report)) << "\n\n";
  for (const std::string& line : AlignedTableLines(Table(report, SanitizeForTerminal), {}))
    out << line << "\n";
  std::vector<std::string> footer = Footer(report);
  if (!footer.empty()) out << "\n";
  for (const std::string& line : footer) out << SanitizeLinesForTerminal(line) << "\n";
}

void RenderMarkdown(const MeasurementReport& report, std::ostream& out) {
  out << "# " << MarkdownTableCell(Title(report)) << "\n\n";
  TextTable table = Table(report, MarkdownTableCell);
  // Text columns (candidate, status, flags) left, numbers right.
  table.right_aligned.assign(table.rows.front().size(), true);
  table.right_aligned[0] = table.right_aligned[1] = table.right_aligned.back() = false;
  out << MarkdownTable(table, MarkdownRule::kSpaced);
  std::vector<std::string> footer = Footer(report);
  if (!footer.empty()) out << "\n";
  for (const std::string& line : footer) out << "- " << MarkdownTableCell(line) << "\n";
}

}  // namespace

std::string FormatSeconds(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) return seconds == 0 ? "0 s" : "-";
  return FormatDuration(seconds * 1e9, QuantityStyle::kFixed);
}

json BenchReportToJson(const MeasurementReport& report) {
  json candidates = json::array();
  for (const MeasurementEntry& entry : report.candidates)
    candidates.push_back(EntryToJson(entry, report.pytorch_baselines));
  return {
      {"schema_version", kBenchSchema},
      {"command", "bench"},
      {"task",
       {{"name", report.task},
        {"directory", report.task_directory},
        {"flops", report.task_flops > 0 ? Quantity(report.task_flops, "FLOP") : json(nullptr)},
        {"min_bytes", Quantity(report.task_min_bytes, "byte")}}},
      {"device", {{"name", report.gpu}, {"architecture", report.architecture}}},
      {"run",
       {{"id", report.run_id},
        {"started", report.started},
        {"workspace", report.workspace},
        {"settings_hash", report.settings_hash},
        {"settings", report.settings},
        {"seeds", report.seeds},
        {"compile_only", report.compile_only}}},
      {"roofline_floor", report.floor_seconds > 0 ? Quantity(report.floor_seconds, "s") : json(nullptr)},
      {"reference", EntryToJson(report.reference, report.pytorch_baselines)},
      {"reference_end",
       report.reference_end ? EntryToJson(*report.reference_end, report.pytorch_baselines) : json(nullptr)},
      {"pytorch_baselines", PytorchBaselinesJson(report.pytorch_baselines)},
      {"reference_drift", OptionalQuantity(report.reference_drift, "fraction")},
      {"candidates", candidates},
      {"notes", report.notes}};
}

Status RenderBenchReport(const MeasurementReport& report, const std::string& format, std::ostream& out) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat parsed, ParseReportFormat(format, kTableFormats));
  switch (parsed) {
    case ReportFormat::kTerminal: RenderTerminal(report, out); break;
    case ReportFormat::kMarkdown: RenderMarkdown(report, out); break;
    case ReportFormat::kJson:
      out << BenchReportToJson(report).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      break;
    case ReportFormat::kHtml:
    case ReportFormat::kFeedback: return Internal("bench writes no " + std::string(ReportFormatName(parsed)));
  }
  return Status::Ok();
}

}  // namespace kopt
