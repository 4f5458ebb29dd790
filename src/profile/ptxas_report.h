// Parser for the ptxas resource report (`nvcc -Xptxas -v`, also with
// `-warn-spills`). Tolerates older toolkits that print `cmem[N]` fields and
// newer ones that print "used N barriers".
//
// Input is untrusted text (fuzzed: fuzz/ptxas_report_fuzz.cc). Lines that are
// not ptxas lines (nvcc warnings, compiler errors) are ignored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

struct PtxasFunctionReport {
  std::string mangled_name;  // "_Z5saxpyPKfPffi"
  std::string demangled_name;
  std::string architecture;             // "sm_90"
  int registers = 0;                    // per thread
  int barriers = 0;                     // named barriers used
  long long shared_memory_bytes = 0;    // static smem per block
  long long constant_memory_bytes = 0;  // cmem[0] where printed (older toolkits)
  long long stack_frame_bytes = 0;      // per thread
  long long cumulative_stack_bytes = 0;
  long long spill_store_bytes = 0;
  long long spill_load_bytes = 0;
  bool HasSpills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

struct PtxasReport {
  long long global_memory_bytes = 0;  // "N bytes gmem"
  std::vector<PtxasFunctionReport> functions;
  std::vector<std::string> warnings;  // "ptxas warning : ..." lines verbatim
};

// Parses the report; an input with no "ptxas info" line is an error naming `file_name`.
Result<PtxasReport> ParsePtxasReport(std::string_view text, std::string_view file_name);

// The function whose demangled name's FunctionNameOf equals `function_name`, or nullptr.
const PtxasFunctionReport* FindPtxasFunction(const PtxasReport& report, std::string_view function_name);

}  // namespace kopt
