#include "report/renderer.h"

#include <string>

namespace kopt {

Result<ReportFormat> ParseReportFormat(std::string_view name) {
  if (name == "term" || name == "terminal") return ReportFormat::kTerminal;
  if (name == "md" || name == "markdown") return ReportFormat::kMarkdown;
  if (name == "json") return ReportFormat::kJson;
  if (name == "html") return ReportFormat::kHtml;
  if (name == "feedback") return ReportFormat::kFeedback;
  return InvalidInput("unknown report format '" + std::string(name) +
                      "': expected one of term, md, json, html, feedback");
}

std::unique_ptr<Renderer> MakeRenderer(ReportFormat format, const RenderOptions& options) {
  switch (format) {
    case ReportFormat::kTerminal: return MakeTerminalRenderer(options);
    case ReportFormat::kMarkdown: return MakeMarkdownRenderer(options);
    case ReportFormat::kJson: return MakeJsonRenderer(options);
    case ReportFormat::kHtml: return MakeHtmlRenderer(options);
    case ReportFormat::kFeedback: return MakeFeedbackRenderer(options);
  }
  return MakeTerminalRenderer(options);
}

std::string_view ReportFileExtension(ReportFormat format) {
  switch (format) {
    case ReportFormat::kTerminal: return "txt";
    case ReportFormat::kMarkdown: return "md";
    case ReportFormat::kJson: return "json";
    case ReportFormat::kHtml: return "html";
    case ReportFormat::kFeedback: return "txt";
  }
  return "txt";
}

}  // namespace kopt
