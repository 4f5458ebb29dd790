#include "report/report_format.h"

#include <algorithm>
#include <string>

namespace kopt {

std::string_view ReportFormatName(ReportFormat format) {
  switch (format) {
    case ReportFormat::kTerminal: return "term";
    case ReportFormat::kMarkdown: return "md";
    case ReportFormat::kJson: return "json";
    case ReportFormat::kHtml: return "html";
    case ReportFormat::kFeedback: return "feedback";
  }
  return "term";
}

Result<ReportFormat> ParseReportFormat(std::string_view name, std::span<const ReportFormat> accepted) {
  std::string choices;
  for (ReportFormat format : accepted) {
    std::string_view known = ReportFormatName(format);
    bool alias = (format == ReportFormat::kTerminal && name == "terminal") ||
                 (format == ReportFormat::kMarkdown && name == "markdown");
    if (name == known || alias) return format;
    choices += (choices.empty() ? "" : ", ") + std::string(known);
  }
  return InvalidInput("unknown report format '" + std::string(name) + "': expected one of " + choices);
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
