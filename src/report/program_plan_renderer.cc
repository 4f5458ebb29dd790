#include "report/program_plan_renderer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/quantity_format.h"
#include "report/json_renderer.h"
#include "report/markup_escape.h"
#include "report/narrative_section.h"
#include "report/text_document.h"

namespace kopt {
namespace {

using nlohmann::json;

std::string Share(double fraction) {
  return FormatFraction(fraction, QuantityStyle::kTrimmed);
}
std::string Time(double ns) {
  return FormatDuration(ns, QuantityStyle::kTrimmed);
}
std::string Speedup(double times) {
  return FormatNumber(times, QuantityStyle::kFixed) + "×";
}

// "kernel (program)" when the plan covers several programs.
std::string KernelLabel(const ProgramPlan& plan, size_t kernel) {
  const PlanKernel& row = plan.kernels[kernel];
  if (plan.programs.size() <= 1) return row.kernel_name;
  return row.kernel_name + " [" + plan.programs[row.program].source + "]";
}

json ProgramJson(const PlanProgram& program) {
  return {{"source", program.source},
          {"device", program.device_name},
          {"total_ns", program.total_ns},
          {"kernels", program.kernel_count},
          {"launches", program.launch_count},
          {"bound_saved_ns", program.bound_saved_ns},
          {"bound_speedup_x", program.total_ns > program.bound_saved_ns && program.total_ns > 0
                                  ? program.total_ns / (program.total_ns - program.bound_saved_ns)
                                  : 1.0},
          {"kernels_without_duration", program.kernels_without_duration}};
}

std::string RenderJson(const ProgramPlan& plan) {
  json document = {{"schema", kPlanSchema}, {"total_ns", plan.total_ns}, {"notes", plan.notes}};
  document["programs"] = json::array();
  for (const PlanProgram& program : plan.programs) document["programs"].push_back(ProgramJson(program));
  document["kernels"] = json::array();
  for (const PlanKernel& kernel : plan.kernels) {
    document["kernels"].push_back({{"program", kernel.program},
                                   {"name", kernel.kernel_name},
                                   {"grid", kernel.grid},
                                   {"block", kernel.block},
                                   {"launches", kernel.launches},
                                   {"total_ns", kernel.total_ns},
                                   {"program_share", kernel.share},
                                   {"bottleneck", kernel.bottleneck},
                                   {"top_finding", kernel.top_finding},
                                   {"bound_saved_ns", kernel.bound_saved_ns}});
  }
  document["findings"] = json::array();
  for (const PlanFinding& finding : plan.findings) {
    document["findings"].push_back({{"kernel", finding.kernel},
                                    {"id", finding.id},
                                    {"title", finding.title},
                                    {"severity", SeverityName(finding.severity)},
                                    {"confidence", finding.confidence},
                                    {"kernel_gain_share", finding.kernel_gain},
                                    {"saved_ns", finding.saved_ns},
                                    {"program_share", finding.program_share},
                                    {"program_speedup_x", finding.program_speedup},
                                    {"suggestion", finding.suggestion}});
  }
  document["root_causes"] = json::array();
  for (const RootCauseGroup& group : plan.groups) {
    document["root_causes"].push_back({{"id", group.id},
                                       {"title", group.title},
                                       {"kernels", group.kernels},
                                       {"saved_ns", group.saved_ns},
                                       {"mean_program_share", group.mean_program_share},
                                       {"suggestion", group.suggestion}});
  }
  // Explain's narrative object (report/json_renderer.h); null without --llm.
  document["narrative"] = plan.narrative ? json(NarrativeToJson(*plan.narrative)) : json(nullptr);
  return document.dump(2) + "\n";
}

// Horizontal bars of the listed kernels' shares (HTML only); labels escaped.
std::string ShareBarsSvg(const ProgramPlan& plan) {
  constexpr int kRowHeight = 18, kLabelWidth = 320, kBarWidth = 360;
  size_t rows = plan.kernels_listed;
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="share of GPU time by kernel">)",
      kLabelWidth + kBarWidth + 80, kRowHeight * rows + 10);
  for (size_t k = 0; k < rows; ++k) {
    const PlanKernel& kernel = plan.kernels[k];
    std::string label = kernel.kernel_name;
    if (label.size() > 48) label.replace(47, std::string::npos, "…");
    int y = static_cast<int>(k) * kRowHeight + 5;
    svg += fmt::format(R"(<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>)", kLabelWidth - 6,
                       y + 12, EscapeHtml(label));
    svg += fmt::format(R"(<rect x="{}" y="{}" width="{:.1f}" height="{}" fill="#4a7ab5"/>)", kLabelWidth, y,
                       kernel.share * kBarWidth, kRowHeight - 4);
    svg += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11">{}</text>)",
                       kLabelWidth + kernel.share * kBarWidth + 4, y + 12, EscapeHtml(Share(kernel.share)));
  }
  return svg + "</svg>";
}

void WritePrograms(const ProgramPlan& plan, TextDocument& document) {
  document.Heading("Programs");
  TextTable table{{{"program", "GPU", "kernel time", "kernels", "launches", "most saved", "bound"}},
                  {false, false, true, true, true, true, true}};
  for (const PlanProgram& program : plan.programs) {
    double bound = program.total_ns > program.bound_saved_ns && program.total_ns > 0
                       ? program.total_ns / (program.total_ns - program.bound_saved_ns)
                       : 1.0;
    table.rows.push_back({program.source, program.device_name, Time(program.total_ns),
                          std::to_string(program.kernel_count), std::to_string(program.launch_count),
                          Time(program.bound_saved_ns), Speedup(bound)});
  }
  document.Table(table);
}

void WriteKernels(const ProgramPlan& plan, TextDocument& document) {
  document.Heading(
      fmt::format("Where the time goes ({} of {} kernels)", plan.kernels_listed, plan.kernels.size()));
  if (document.html()) document.Chart(ShareBarsSvg(plan));
  TextTable table{{{"#", "kernel", "launches", "time", "share", "class", "top finding"}},
                  {true, false, true, true, true, false, false}};
  for (size_t k = 0; k < plan.kernels_listed; ++k) {
    const PlanKernel& kernel = plan.kernels[k];
    table.rows.push_back({std::to_string(k + 1), KernelLabel(plan, k), std::to_string(kernel.launches),
                          Time(kernel.total_ns), Share(kernel.share), kernel.bottleneck,
                          kernel.top_finding.empty() ? "-" : kernel.top_finding});
  }
  document.Table(table);
}

void WriteFindings(const ProgramPlan& plan, TextDocument& document) {
  document.Heading("Findings ranked by whole-program time saved (Amdahl)");
  if (plan.findings.empty()) {
    document.Paragraph("No finding names a saving: every kernel is healthy or lacks the metrics.");
    return;
  }
  TextTable table{{{"#", "finding", "kernel", "kernel gain", "saved", "of program", "program ×"}},
                  {true, false, false, true, true, true, true}};
  for (size_t f = 0; f < plan.findings.size(); ++f) {
    const PlanFinding& finding = plan.findings[f];
    table.rows.push_back({std::to_string(f + 1), finding.id, KernelLabel(plan, finding.kernel),
                          Share(finding.kernel_gain), Time(finding.saved_ns), Share(finding.program_share),
                          Speedup(finding.program_speedup)});
  }
  document.Table(table);
}

void WriteGroups(const ProgramPlan& plan, TextDocument& document) {
  document.Heading("Root causes shared across kernels, and what to change");
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const RootCauseGroup& group = plan.groups[g];
    std::string kernels;
    for (size_t i = 0; i < group.kernels.size() && i < 5; ++i) {
      kernels += (i ? ", " : "") + plan.kernels[group.kernels[i]].kernel_name;
    }
    if (group.kernels.size() > 5) kernels += fmt::format(", and {} more", group.kernels.size() - 5);
    document.Bullet(fmt::format("{}. {} ({}): {} kernel(s), saves {} ({} of program time{}). Kernels: {}.{}",
                                g + 1, group.title, group.id, group.kernels.size(), Time(group.saved_ns),
                                Share(group.mean_program_share),
                                plan.programs.size() > 1 ? ", mean over programs" : "", kernels,
                                group.suggestion.empty() ? "" : " Change: " + group.suggestion));
  }
}

}  // namespace

std::string RenderProgramPlan(const ProgramPlan& plan, ReportFormat format) {
  if (format == ReportFormat::kJson) return RenderJson(plan);
  TextDocument document(format == ReportFormat::kFeedback ? ReportFormat::kMarkdown : format);
  document.Title(fmt::format("kopt plan · {} program(s), {} kernels, {} of GPU kernel time",
                             plan.programs.size(), plan.kernels.size(), Time(plan.total_ns)));
  WritePrograms(plan, document);
  WriteKernels(plan, document);
  WriteFindings(plan, document);
  WriteGroups(plan, document);
  if (!plan.notes.empty()) {
    document.Heading("Notes");
    for (const std::string& note : plan.notes) document.Bullet(note);
  }
  WriteNarrativeSection(document, "Narrative (LLM; every number checked against the plan)", plan.narrative);
  return document.str();
}

}  // namespace kopt
