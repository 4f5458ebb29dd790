#include "profile/ncu_export.h"

#include <fmt/format.h>

#include "core/text.h"

namespace kopt {
namespace {

// The first `limit` lines of `text`, one at a time.
template <typename Visit>
void ForFirstLines(std::string_view text, size_t limit, Visit visit) {
  size_t position = 0;
  for (size_t count = 0; count < limit && position < text.size(); ++count) {
    size_t end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(position, end - position);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (visit(line)) return;
    position = end + 1;
  }
}

ExportKind KindOfQuotedHeader(std::string_view line) {
  // A source page: a "Kernel Name","<signature>", line, then the column
  // header "Address","Source",... (the first line alone is not enough: a
  // raw page without its ID column starts with "Kernel Name" too).
  if (StartsWith(line, "\"Address\",\"Source\"")) return ExportKind::kSourcePage;
  if (StartsWith(line, "\"Launch Attribute\"") || StartsWith(line, "\"Session Attribute\""))
    return ExportKind::kSessionPage;
  if (StartsWith(line, "\"ID\",")) {
    if (Contains(line, "\"Metric Name\"") && (Contains(line, "\"Minimum\"") || Contains(line, "\"Average\"")))
      return ExportKind::kSummary;
    if (Contains(line, "\"Section Name\"") && Contains(line, "\"Metric Name\""))
      return ExportKind::kDetailsPage;
    return ExportKind::kRawPage;
  }
  if (Contains(line, "\"Kernel Name\"") && Contains(line, "\"Invocations\"")) return ExportKind::kSummary;
  return ExportKind::kUnknown;
}

}  // namespace

ExportKind RecognizeExport(std::string_view text) {
  ExportKind kind = ExportKind::kUnknown;
  bool sass = false, ptxas = false, ncu_text = false, summary_text = false;
  ForFirstLines(text, 400, [&](std::string_view line) {
    std::string_view trimmed = TrimWhitespace(line);
    if (StartsWith(line, "\"")) {
      kind = KindOfQuotedHeader(line);
      return kind != ExportKind::kUnknown;
    }
    if (StartsWith(trimmed, "Fatbin elf code") || StartsWith(trimmed, "code for sm_") ||
        StartsWith(trimmed, ".target\tsm_") || StartsWith(trimmed, ".target sm_") ||
        (StartsWith(trimmed, "/*") && Contains(trimmed, "*/") && Contains(trimmed, ";")))
      sass = true;
    if (StartsWith(trimmed, "ptxas info") || StartsWith(trimmed, "ptxas warning")) ptxas = true;
    if (StartsWith(trimmed, "Section: ") || (Contains(line, ", Context ") && Contains(line, ", Stream ") &&
                                             Contains(line, ", Device ") && Contains(line, ", CC ")))
      ncu_text = true;
    if (Contains(line, ", Invocations ") ||
        (Contains(line, "Metric Name") && Contains(line, "Minimum") && Contains(line, "Maximum")))
      summary_text = true;
    return false;
  });
  if (kind != ExportKind::kUnknown) return kind;
  if (summary_text) return ExportKind::kSummary;
  if (ncu_text) return ExportKind::kNcuText;
  if (sass) return ExportKind::kSassListing;
  if (ptxas) return ExportKind::kPtxasReport;
  return ExportKind::kUnknown;
}

std::string_view ExportKindDescription(ExportKind kind) {
  switch (kind) {
    case ExportKind::kRawPage: return "an ncu raw page (ncu --csv --page raw)";
    case ExportKind::kDetailsPage: return "an ncu details page (ncu --csv, whose default page it is)";
    case ExportKind::kSourcePage:
      return "an ncu source page (per-instruction counters, ncu --csv --page source)";
    case ExportKind::kSessionPage:
      return "an ncu session page (device and launch settings, ncu --page session)";
    case ExportKind::kSummary: return "an ncu summary table (ncu --print-summary: aggregates over launches)";
    case ExportKind::kNcuText: return "ncu's text output (ncu without --csv)";
    case ExportKind::kSassListing: return "a SASS listing (cuobjdump -sass or nvdisasm)";
    case ExportKind::kPtxasReport: return "a ptxas report (nvcc -Xptxas -v)";
    case ExportKind::kUnknown: return "not an ncu export kopt knows";
  }
  return "not an ncu export kopt knows";
}

std::string ExplainUnreadableExport(ExportKind kind, std::string_view file_name) {
  std::string what = fmt::format("{}: this is {}, not a profile kopt explain reads (a raw or details page).",
                                 file_name, ExportKindDescription(kind));
  switch (kind) {
    case ExportKind::kRawPage:
    case ExportKind::kDetailsPage:
    case ExportKind::kUnknown: return "";
    case ExportKind::kSourcePage:
      return what + fmt::format(
                        " kopt reads it beside a raw page: kopt explain raw.csv --source-page {}. "
                        "Export the raw page with: {}",
                        file_name, kRawPageCommand);
    case ExportKind::kSassListing:
      return what + fmt::format(
                        " kopt reads it beside a raw page: kopt explain raw.csv --sass {}. Export "
                        "the raw page with: {}",
                        file_name, kRawPageCommand);
    case ExportKind::kPtxasReport:
      return what + fmt::format(
                        " kopt reads it beside a raw page: kopt explain raw.csv --ptxas {}. Export "
                        "the raw page with: {}",
                        file_name, kRawPageCommand);
    case ExportKind::kSessionPage:
    case ExportKind::kSummary:
    case ExportKind::kNcuText:
      return what + fmt::format(" It has no per-launch metrics kopt can read. Export the raw page with: {}",
                                kRawPageCommand);
  }
  return "";
}

}  // namespace kopt
