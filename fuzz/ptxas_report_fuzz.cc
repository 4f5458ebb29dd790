// Fuzz target for the ptxas resource report parser (nvcc -Xptxas -v output).
// Besides "no crash", checks that every parsed size is non-negative.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "profile/ptxas_report.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = kopt::ParsePtxasReport(text, "fuzz.ptxas");
  if (!report.ok()) {
    Check(!report.status().message().empty());
    return 0;
  }
  Check(report->global_memory_bytes >= 0);
  for (const kopt::PtxasFunctionReport& function : report->functions) {
    Check(!function.mangled_name.empty());
    Check(function.registers >= 0 && function.barriers >= 0);
    Check(function.shared_memory_bytes >= 0 && function.constant_memory_bytes >= 0);
    Check(function.stack_frame_bytes >= 0 && function.cumulative_stack_bytes >= 0);
    Check(function.spill_store_bytes >= 0 && function.spill_load_bytes >= 0);
  }
  (void)kopt::FindPtxasFunction(*report, "saxpy");
  return 0;
}
