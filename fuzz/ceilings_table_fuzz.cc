// Fuzz target for the measured ceilings table (hw/ceilings_table.h, kopt calibrate's TOML) and the
// lookups explain makes on what it parsed.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hw/ceilings_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = kopt::ParseCeilingsTable(text, "fuzz.toml");
  if (table.ok()) {
    for (double work : {0.0, 1.0, 3e6, 5e9, 1e15}) {
      (void)kopt::AchievableDram(*table, work);
      (void)kopt::AchievableFp32(*table, work);
    }
    (void)kopt::FormatCeilingsTable(*table);
  }
  return 0;
}
