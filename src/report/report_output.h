// Where a rendered report goes: a stream, or a file written whole to a
// temporary file and renamed into place (core/file_io.h), so that a reader
// never sees half a report.
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"

namespace kopt {

// `rendered` to `out` when output_path is empty, else atomically to output_path.
Status WriteReport(const std::string& rendered, const std::string& output_path, std::ostream& out);

}  // namespace kopt
