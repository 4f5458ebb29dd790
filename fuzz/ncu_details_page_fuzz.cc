// Fuzz target for the ncu details-page CSV parser and the export recognizer
// (what `kopt explain` runs on any CSV it is given), with the blanking of a
// program's stdout lines in front of them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/csv_reader.h"
#include "profile/ncu_details_page.h"
#include "profile/ncu_export.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::ExportKind kind = kopt::RecognizeExport(text);
  (void)kopt::ExplainUnreadableExport(kind, "fuzz.csv");
  std::string storage;
  kopt::QuotedCsvText quoted = kopt::BlankUnquotedLines(text, storage);
  auto launches = kopt::ParseNcuDetailsCsv(quoted.text, "fuzz.csv");
  if (launches.ok()) {
    for (const kopt::KernelLaunch& launch : *launches) {
      (void)launch.Metric("gpu__time_duration.sum");
      (void)launch.Metric("dram__bytes.sum");
      (void)launch.FunctionName();
    }
  }
  return 0;
}
