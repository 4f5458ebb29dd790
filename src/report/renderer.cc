#include "report/renderer.h"

#include <string>

namespace kopt {

Result<ReportFormat> ParseReportFormat(std::string_view name) {
  if (name == "term" || name == "terminal") return ReportFormat::kTerminal;
  if (name == "md" || name == "markdown") return ReportFormat::kMarkdown;
  if (name == "json") return ReportFormat::kJson;
  if (name == "html") return ReportFormat::kHtml;
  return InvalidInput("unknown report format '" + std::string(name) +
                      "': expected one of term, md, json, html");
}

std::unique_ptr<Renderer> MakeRenderer(ReportFormat format, const RenderOptions& options) {
  switch (format) {
    case ReportFormat::kTerminal: return MakeTerminalRenderer(options);
    case ReportFormat::kMarkdown: return MakeMarkdownRenderer(options);
    case ReportFormat::kJson: return MakeJsonRenderer(options);
    case ReportFormat::kHtml: return MakeHtmlRenderer(options);
  }
  return MakeTerminalRenderer(options);
}

std::string_view ReportFileExtension(ReportFormat format) {
  switch (format) {
    case ReportFormat::kTerminal: return "txt";
    case ReportFormat::kMarkdown: return "md";
    case ReportFormat::kJson: return "json";
    case ReportFormat::kHtml: return "html";
  }
  return "txt";
}

}  // namespace kopt
