#include "report/report_output.h"

#include "core/file_io.h"

namespace kopt {

Status WriteReport(const std::string& rendered, const std::string& output_path, std::ostream& out) {
  if (output_path.empty()) {
    out << rendered;
    return Status::Ok();
  }
  return WriteFileAtomically(output_path, rendered);
}

}  // namespace kopt
