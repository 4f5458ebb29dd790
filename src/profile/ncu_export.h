// What an input file is, among the files a kopt user has at hand after
// profiling: the ncu exports (raw page, details page, source page, session
// page, --print-summary table, ncu's text output), a SASS listing, a ptxas
// report. `kopt explain` reads the raw and the details page as profiles; for
// every other kind it says what the file is and the exact command that
// exports what it needs.
//
// Recognition looks at the first lines only (the first line starting with '"'
// for the CSV kinds, so a program's stdout before the header is no obstacle).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kopt {

enum class ExportKind {
  kRawPage,      // ncu --csv --page raw
  kDetailsPage,  // ncu --csv (the default page), --page details
  kSourcePage,   // ncu --csv --page source
  kSessionPage,  // ncu --csv --page session
  kSummary,      // ncu --print-summary per-kernel (CSV or text)
  kNcuText,      // ncu without --csv
  kSassListing,  // cuobjdump -sass, nvdisasm
  kPtxasReport,  // nvcc -Xptxas -v
  kUnknown,
};

ExportKind RecognizeExport(std::string_view text);

// "an ncu source page (per-instruction counters, ncu --page source)".
std::string_view ExportKindDescription(ExportKind kind);

// The command that exports a raw page from what produced a file of `kind`.
inline constexpr std::string_view kRawPageCommand =
    "ncu --import REPORT.ncu-rep --csv --page raw --print-units base > raw.csv (from a report saved with "
    "ncu --set full -o REPORT ./app), or directly: ncu --set full --csv --page raw --print-units base ./app "
    "> "
    "raw.csv";

// For a file `kopt explain` cannot read as a profile: what it is, how it can
// still be used, and the command that exports what kopt needs. Empty for the
// raw and details pages.
std::string ExplainUnreadableExport(ExportKind kind, std::string_view file_name);

}  // namespace kopt
