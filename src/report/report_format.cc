#include "report/report_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
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

Result<ReportFormat> ParseReportFormat(std::string_view given, std::span<const ReportFormat> accepted) {
  std::string name = ToLowerAscii(given);
  std::string choices;
  for (ReportFormat format : accepted) {
    std::string_view known = ReportFormatName(format);
    bool alias = (format == ReportFormat::kTerminal && name == "terminal") ||
                 (format == ReportFormat::kMarkdown && name == "markdown");
    if (name == known || alias) return format;
    choices += (choices.empty() ? "" : ", ") + std::string(known);
  }
  return InvalidInput("unknown report format '" + std::string(given) + "': expected one of " + choices);
}

namespace {

// What an output file's extension (lower case, with its dot) says.
struct ExtensionMeaning {
  std::optional<ReportFormat> format;  // .html/.htm, .md/.markdown, .json
  bool plain_text = false;             // none, .txt, .text, .log, .out: any format may go there
};

ExtensionMeaning MeaningOf(const std::string& extension) {
  if (extension == ".html" || extension == ".htm") return {ReportFormat::kHtml};
  if (extension == ".md" || extension == ".markdown") return {ReportFormat::kMarkdown};
  if (extension == ".json") return {ReportFormat::kJson};
  bool plain = extension.empty() || extension == ".txt" || extension == ".text" || extension == ".log" ||
               extension == ".out";
  return {std::nullopt, plain};
}

std::string FormatChoices(std::span<const ReportFormat> accepted) {
  std::string choices;
  for (ReportFormat format : accepted)
    choices += (choices.empty() ? "" : ", ") + std::string(ReportFormatName(format));
  return choices;
}

}  // namespace

Result<ReportFormat> ResolveReportFormat(std::string_view name, std::string_view output_path,
                                         std::span<const ReportFormat> accepted) {
  std::string extension = ToLowerAscii(std::filesystem::path(output_path).extension().string());
  ExtensionMeaning meaning = MeaningOf(extension);
  if (!name.empty()) {
    KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(name, accepted));
    if (meaning.format && *meaning.format != format) {
      return InvalidInput(fmt::format(
          "-f {} -o {}: the extension {} is for {} output, not {}; name the file *.{} or leave out -f",
          std::string(name), std::string(output_path), extension, ReportFormatName(*meaning.format),
          ReportFormatName(format), ReportFileExtension(format)));
    }
    return format;
  }
  if (!meaning.format && !meaning.plain_text) {
    return InvalidInput(fmt::format(
        "-o {}: kopt does not write {} files; it writes {} (chosen by the extension: .txt, .md, .json, "
        ".html); give -f FORMAT to write that format under this name",
        std::string(output_path), extension, FormatChoices(accepted)));
  }
  ReportFormat inferred = meaning.format.value_or(ReportFormat::kTerminal);
  if (std::find(accepted.begin(), accepted.end(), inferred) != accepted.end()) return inferred;
  return InvalidInput("-o " + std::string(output_path) + ": the extension asks for " +
                      std::string(ReportFormatName(inferred)) +
                      ", which this command does not write (it writes " + FormatChoices(accepted) +
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
