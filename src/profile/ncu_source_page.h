// Parser for Nsight Compute's source page exported as CSV with SASS
// (`ncu --import r.ncu-rep --csv --page source --print-source sass`).
//
// Format (ncu 2025.3.1, seen on the H200): per kernel, a line
// `"Kernel Name","<demangled name>",` then a header line ("Address",
// "Source", "Warp Stall Sampling (All Samples)", ..., "stall_long_sb", ...,
// "stall_long_sb (Not Issued)", ...) and one row per SASS instruction. Several
// kernels may follow each other. Columns vary with the sections collected and
// may be trimmed: only "Address" and "Source" are required; a column that is
// absent leaves its field empty (nullopt), never zero.
//
// Input is untrusted (fuzzed: fuzz/ncu_source_page_fuzz.cc). Errors name the
// file, line and column.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

struct SourcePageRow {
  unsigned long long address = 0;       // absolute PC as ncu prints it
  unsigned long long offset = 0;        // address minus the kernel's first address: the SASS offset
  std::string source;                   // the SASS text, e.g. "LDG.E R3, desc[UR6][R2.64]"
  std::optional<double> stall_samples;  // Warp Stall Sampling (All Samples)
  std::optional<double> stall_samples_not_issued;  // Warp Stall Sampling (Not-issued Samples)
  std::optional<double> instructions_executed;
  std::optional<double> thread_instructions_executed;
  std::optional<double> l2_sectors_global, l2_sectors_global_ideal, l2_sectors_global_excessive;
  std::optional<double> l1_wavefronts_shared, l1_wavefronts_shared_ideal, l1_wavefronts_shared_excessive;
  std::map<std::string, double> stall_reason_samples;  // "long_sb" → samples (All Samples columns)
};

struct SourcePage {
  std::string kernel_name;  // demangled, as ncu prints it
  std::vector<SourcePageRow> rows;
  double TotalStallSamples() const;
};

Result<std::vector<SourcePage>> ParseNcuSourcePage(std::string_view text, std::string_view file_name);

// The page whose kernel's FunctionNameOf equals `function_name`, or nullptr.
const SourcePage* FindSourcePage(const std::vector<SourcePage>& pages, std::string_view function_name);

}  // namespace kopt
