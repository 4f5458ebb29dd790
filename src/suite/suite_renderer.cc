#include "suite/suite_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/quantity_format.h"
#include "report/svg_charts.h"
#include "report/text_document.h"

namespace kopt::suite {
namespace {

using nlohmann::json;

std::string Speedup(const std::optional<double>& speedup) {
  return speedup ? fmt::format("{:.2f}×", *speedup) : "-";
}

std::string Usd(double dollars, bool known) {
  return fmt::format("{:.2f}{}", dollars, known ? "" : "+");
}

std::string ThresholdName(double threshold) {
  return FormatNumber(threshold, QuantityStyle::kTrimmed);
}

std::string VerdictSummary(const ProblemResult& result) {
  std::string text;
  for (const auto& [status, count] : result.verdicts) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count, status);
  }
  return text.empty() ? "-" : text;
}

std::string BaselineCell(const BaselineResult& baseline, bool correct) {
  if (!baseline.time_s) return baseline.note.empty() ? "-" : baseline.note;
  return correct ? Speedup(baseline.speedup) : "-";
}

TextTable ProblemTable(const SuiteReport& report) {
  TextTable table;
  std::vector<std::string> header = {"problem", "level", "outcome", "correct", "best"};
  for (BaselineKind kind : kBaselineColumns) header.push_back("vs " + std::string(BaselineTitle(kind)));
  for (const char* title : {"evals", "tokens", "USD", "GPU-s", "verdicts"}) header.push_back(title);
  table.rows.push_back(header);
  table.right_aligned = {false, false, false, false, false, true, true,
                         true,  true,  true,  true,  true,  true, false};
  for (const ProblemResult& result : report.problems) {
    std::vector<std::string> row = {
        result.problem.key, result.problem.level, std::string(ProblemOutcomeName(result.outcome)),
        result.correct ? "yes" : "no", result.best_node.empty() ? "-" : result.best_node};
    for (const BaselineResult& baseline : result.baselines)
      row.push_back(BaselineCell(baseline, result.correct));
    row.push_back(std::to_string(result.evaluations));
    row.push_back(std::to_string(result.llm_tokens));
    row.push_back(Usd(result.llm_cost_usd, result.llm_cost_known));
    row.push_back(fmt::format("{:.1f}", result.gpu_seconds));
    row.push_back(VerdictSummary(result));
    table.rows.push_back(std::move(row));
  }
  return table;
}

TextTable CoverageTable(const SuiteReport& report) {
  TextTable table;
  table.rows.push_back(
      {"group", "problems", "finished", "failed", "correct", "coverage", "tokens", "USD", "GPU-s"});
  table.right_aligned = {false, true, true, true, true, true, true, true, true};
  for (const GroupSummary& group : report.groups) {
    double coverage = group.problems ? static_cast<double>(group.finished) / group.problems : 0;
    table.rows.push_back({group.group, std::to_string(group.problems), std::to_string(group.finished),
                          std::to_string(group.failed), std::to_string(group.correct),
                          FormatFraction(coverage, QuantityStyle::kFixed), std::to_string(group.llm_tokens),
                          fmt::format("{:.2f}", group.llm_cost_usd),
                          fmt::format("{:.1f}", group.gpu_seconds)});
  }
  return table;
}

TextTable FastTable(const SuiteReport& report) {
  TextTable table;
  std::vector<std::string> header = {"group", "against"};
  for (double threshold : kFastThresholds) header.push_back("fast_" + ThresholdName(threshold));
  header.push_back("geomean");
  table.rows.push_back(header);
  table.right_aligned = {false, false, true, true, true, true, true};
  for (const GroupSummary& group : report.groups) {
    for (size_t column = 0; column < kBaselineColumns.size(); ++column) {
      BaselineKind kind = kBaselineColumns[column];
      std::vector<std::string> row = {group.group, std::string(BaselineTitle(kind))};
      if (group.measured[column] == 0) {
        row.insert(row.end(), kFastThresholds.size(), "-");
        row.push_back("not measured");
      } else {
        for (double fraction : group.fast[column])
          row.push_back(FormatFraction(fraction, QuantityStyle::kFixed));
        row.push_back(group.geomean[column] ? fmt::format("{} (n={})", Speedup(group.geomean[column]),
                                                          group.geomean_count[column])
                                            : "-");
      }
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

// The fast_p curve of the whole suite per measured baseline: the fraction of
// problems correct and faster than p, for p over the observed speedups.
std::string FastCurveSvg(const SuiteReport& report) {
  std::vector<LineSeries> series;
  for (BaselineKind kind : kBaselineColumns) {
    std::vector<double> speedups;
    for (const ProblemResult& result : report.problems) {
      if (result.correct && result.baseline(kind).speedup) speedups.push_back(*result.baseline(kind).speedup);
    }
    if (speedups.empty()) continue;
    std::sort(speedups.begin(), speedups.end());
    LineSeries line;
    line.name = "vs " + std::string(BaselineTitle(kind));
    double total = static_cast<double>(report.problems.size());
    for (size_t index = 0; index < speedups.size(); ++index) {
      // Just below speedups[index]: that problem and every faster one count.
      line.points.emplace_back(speedups[index], static_cast<double>(speedups.size() - index) / total);
    }
    series.push_back(std::move(line));
  }
  if (series.empty()) return "";
  return LineChartSvg("fast_p: problems correct and faster than p", "p (speedup)", "fraction", series, true,
                      1.0);
}

std::string RenderText(const SuiteReport& report, ReportFormat format) {
  TextDocument doc(format, 160);
  doc.Title("kopt suite: " + report.name);
  std::string arguments;
  for (const std::string& argument : report.optimize_arguments) arguments += " " + argument;
  doc.Paragraph(fmt::format("{} problems; each: kopt optimize{} ({})", report.problems.size(), arguments,
                            report.directory));
  doc.Heading("Coverage and cost");
  doc.Table(CoverageTable(report));
  doc.Heading("fast_p and geometric mean speedup");
  doc.Paragraph(
      "fast_p: the fraction of all the group's problems that are correct and faster than p× the baseline; "
      "geomean over the correct problems with that baseline. Baselines absent from a problem's "
      "baselines.json are not measured, never guessed.");
  doc.Table(FastTable(report));
  std::string chart = FastCurveSvg(report);
  if (!chart.empty()) doc.Chart(chart);
  doc.Heading("Problems");
  doc.Table(ProblemTable(report));
  return doc.str();
}

json OptionalNumber(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json ProblemJson(const ProblemResult& result) {
  json baselines = json::object();
  for (const BaselineResult& baseline : result.baselines) {
    json entry = {{"time_s", OptionalNumber(baseline.time_s)}, {"speedup", OptionalNumber(baseline.speedup)}};
    if (!baseline.note.empty()) entry["note"] = baseline.note;
    baselines[std::string(BaselineName(baseline.kind))] = entry;
  }
  return {{"key", result.problem.key},
          {"level", result.problem.level},
          {"task_directory", result.problem.task_directory},
          {"outcome", ProblemOutcomeName(result.outcome)},
          {"detail", result.detail},
          {"run", result.run_id ? json(*result.run_id) : json(nullptr)},
          {"attempts", result.attempts},
          {"correct", result.correct},
          {"best_node", result.best_node},
          {"best_time_s", OptionalNumber(result.best_time_s)},
          {"baselines", baselines},
          {"evaluations", result.evaluations},
          {"verdicts", result.verdicts},
          {"llm_tokens", result.llm_tokens},
          {"llm_cost_usd", result.llm_cost_usd},
          {"llm_cost_known", result.llm_cost_known},
          {"gpu_seconds", result.gpu_seconds},
          {"wall_seconds", result.wall_seconds}};
}

json GroupJson(const GroupSummary& group) {
  json against = json::object();
  for (size_t column = 0; column < kBaselineColumns.size(); ++column) {
    json fast = json::object();
    for (size_t threshold = 0; threshold < kFastThresholds.size(); ++threshold)
      fast[ThresholdName(kFastThresholds[threshold])] = group.fast[column][threshold];
    against[std::string(BaselineName(kBaselineColumns[column]))] = {
        {"fast_p_fraction", fast},
        {"geomean_speedup", OptionalNumber(group.geomean[column])},
        {"geomean_problems", group.geomean_count[column]},
        {"measured_problems", group.measured[column]}};
  }
  return {{"group", group.group},
          {"problems", group.problems},
          {"finished", group.finished},
          {"failed", group.failed},
          {"correct", group.correct},
          {"coverage_fraction", group.problems ? static_cast<double>(group.finished) / group.problems : 0.0},
          {"against", against},
          {"llm_tokens", group.llm_tokens},
          {"llm_cost_usd", group.llm_cost_usd},
          {"gpu_seconds", group.gpu_seconds}};
}

std::string RenderJson(const SuiteReport& report) {
  json columns = json::array();
  for (BaselineKind kind : kBaselineColumns) columns.push_back(BaselineName(kind));
  json document = {{"schema", "kopt.suite.report"},
                   {"schema_version", kSuiteReportSchemaVersion},
                   {"name", report.name},
                   {"directory", report.directory},
                   {"optimize_arguments", report.optimize_arguments},
                   {"baseline_columns", columns},
                   {"problems", json::array()},
                   {"groups", json::array()}};
  for (const ProblemResult& result : report.problems) document["problems"].push_back(ProblemJson(result));
  for (const GroupSummary& group : report.groups) document["groups"].push_back(GroupJson(group));
  return document.dump(2) + "\n";
}

}  // namespace

Result<std::string> RenderSuiteReport(const SuiteReport& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::kTerminal:
    case ReportFormat::kMarkdown:
    case ReportFormat::kHtml: return RenderText(report, format);
    case ReportFormat::kJson: return RenderJson(report);
    case ReportFormat::kFeedback: break;
  }
  return InvalidInput("kopt suite writes term, md, json or html");
}

std::string FormatSuiteProgressLine(const SuiteReport& report) {
  int64_t done = 0, failed = 0, running = 0, pending = 0, tokens = 0;
  double dollars = 0, gpu_seconds = 0;
  for (const ProblemResult& result : report.problems) {
    done += result.outcome == ProblemOutcome::kFinished || result.outcome == ProblemOutcome::kFailed;
    failed += result.outcome == ProblemOutcome::kFailed;
    running += result.outcome == ProblemOutcome::kRunning;
    pending += result.outcome == ProblemOutcome::kPending || result.outcome == ProblemOutcome::kStarted;
    tokens += result.llm_tokens;
    dollars += result.llm_cost_usd;
    gpu_seconds += result.gpu_seconds;
  }
  std::string best = "no correct candidate yet";
  for (BaselineKind kind : kBaselineColumns) {
    const ProblemResult* leader = nullptr;
    for (const ProblemResult& result : report.problems) {
      const std::optional<double>& speedup = result.baseline(kind).speedup;
      if (result.correct && speedup && (!leader || *speedup > *leader->baseline(kind).speedup))
        leader = &result;
    }
    if (leader == nullptr) continue;
    best = fmt::format("best {} vs {} ({})", Speedup(leader->baseline(kind).speedup), BaselineTitle(kind),
                       leader->problem.key);
    break;
  }
  return fmt::format(
      "suite {}: {}/{} done ({} failed), {} running, {} pending · {} · {} tokens {:.2f} USD {:.1f} GPU-s",
      report.name, done, report.problems.size(), failed, running, pending, best, tokens, dollars,
      gpu_seconds);
}

}  // namespace kopt::suite
