// Fuzz target for the ncu raw-page CSV parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "profile/ncu_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto launches = kopt::ParseNcuRawCsv(text, "fuzz.csv");
  if (launches.ok()) {
    for (const auto& launch : *launches) {
      (void)launch.Metric("gpu__time_duration.sum");
      (void)launch.FunctionName();
    }
  }
  return 0;
}
