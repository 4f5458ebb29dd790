// Parser for Nsight Compute raw-page CSV exports (`ncu --csv --page raw`),
// with or without `--print-units base`.
//
// Format (seen with ncu 2025.3.1 on the H200): row 1 holds the headers, the
// 11 fixed columns "ID" … "CC" and then one column per metric; row 2 holds the
// units (empty for the fixed columns); every further row is one profiled
// launch. Fields are double-quoted; numbers may carry thousands separators.
// Any number of kernels and launches per file. Values are converted to base
// units (core/units.h). An empty cell, or text such as "n/a", makes the
// metric absent for that launch, never zero. Non-numeric cells (device name,
// cache config) are kept as text.
//
// Lines that are not ncu's (a program's own stdout printed into the export,
// before the header or between rows; "==PROF==" lines) are skipped
// (core/csv_reader.h BlankUnquotedLines).
//
// Errors name the file, the line and the column: a missing fixed column, a
// row whose field count differs from the header, an unterminated quote, a
// binary or empty file; another kind of export (profile/ncu_export.h) is
// named, with the command that writes the raw page.
//
// Thread safety: pure function; the returned launches share one immutable schema.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "profile/kernel_launch.h"

namespace kopt {

// A column whose unit kopt does not know (core/units.h IsKnownUnit: "furlong")
// is left out (its metric absent) with a note in `notes` when given; a
// negative duration (a metric in ns) is an error.
Result<std::vector<KernelLaunch>> ParseNcuRawCsv(std::string_view text, std::string_view file_name,
                                                 std::vector<std::string>* notes = nullptr);

}  // namespace kopt
