// The one format dispatcher of kopt's commands: the output formats, their
// names on the command line and the error for an unknown one. Each command
// states which formats it writes (kExplainFormats, kTableFormats); adding a
// format is a compile error in every switch over ReportFormat until handled.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "core/status.h"

namespace kopt {

enum class ReportFormat { kTerminal, kMarkdown, kJson, kHtml, kFeedback };

// `kopt explain`: every renderer (report/renderer.h).
inline constexpr std::array<ReportFormat, 5> kExplainFormats = {ReportFormat::kTerminal,
                                                                ReportFormat::kMarkdown, ReportFormat::kJson,
                                                                ReportFormat::kHtml, ReportFormat::kFeedback};
// `kopt bench`, `kopt gpus`, `kopt rules`: a table, Markdown or JSON.
inline constexpr std::array<ReportFormat, 3> kTableFormats = {ReportFormat::kTerminal,
                                                              ReportFormat::kMarkdown, ReportFormat::kJson};

// The name of `format` on the command line: "term", "md", "json", "html", "feedback".
std::string_view ReportFormatName(ReportFormat format);

// Parses a format name ("term", "md", "json", "html", "feedback"; also
// "terminal", "markdown"; any case) that is one of `accepted` (by default
// any). InvalidInput otherwise, naming the accepted ones:
// "unknown report format 'pdf': expected one of term, md, json".
Result<ReportFormat> ParseReportFormat(std::string_view name,
                                       std::span<const ReportFormat> accepted = kExplainFormats);

// The format a command writes. `output_path`'s extension (case-insensitive)
// names html (.html/.htm), md (.md/.markdown) or json (.json); none, .txt,
// .text, .log and .out are plain text, open to any format. With `name` (-f)
// given: it parsed as ParseReportFormat does, and InvalidInput when the
// extension names another format (`-f json -o r.html`). Without: the format
// the extension names, else term; InvalidInput for any other extension
// (`-o report.pdf`) and for a format that is not `accepted`
// (`kopt bench -o r.html`), saying which are.
Result<ReportFormat> ResolveReportFormat(std::string_view name, std::string_view output_path,
                                         std::span<const ReportFormat> accepted = kExplainFormats);

// The conventional file name extension of a format: "txt", "md", "json", "html" ("txt" for feedback).
std::string_view ReportFileExtension(ReportFormat format);

}  // namespace kopt
