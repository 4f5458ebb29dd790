#include "report/report_format.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include "core/text.h"

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

Result<ReportFormat> ResolveReportFormat(std::string_view name, std::string_view output_path,
                                         std::span<const ReportFormat> accepted) {
  if (!name.empty()) return ParseReportFormat(name, accepted);
  std::string extension = ToLowerAscii(std::filesystem::path(output_path).extension().string());
  ReportFormat inferred = ReportFormat::kTerminal;
  if (extension == ".html" || extension == ".htm") inferred = ReportFormat::kHtml;
  if (extension == ".md" || extension == ".markdown") inferred = ReportFormat::kMarkdown;
  if (extension == ".json") inferred = ReportFormat::kJson;
  if (std::find(accepted.begin(), accepted.end(), inferred) != accepted.end()) return inferred;
  std::string choices;
  for (ReportFormat format : accepted)
    choices += (choices.empty() ? "" : ", ") + std::string(ReportFormatName(format));
  return InvalidInput("-o " + std::string(output_path) + ": the extension asks for " +
                      std::string(ReportFormatName(inferred)) +
                      ", which this command does not write (it writes " + choices +
                      "); give -f or another extension");
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
