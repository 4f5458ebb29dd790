// Fuzz target for the energy model's coefficient table (hw/energy_coefficients.h, kopt calibrate
// --energy's TOML) and a prediction with what it parsed.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/energy_model.h"
#include "hw/energy_coefficients.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = kopt::ParseEnergyCoefficients(text, "fuzz.energy.toml");
  if (table.ok()) {
    kopt::EnergyCounts counts;
    for (double& value : counts.values) value = 1e6;
    (void)kopt::PredictEnergy(counts, *table);
    (void)kopt::FormatEnergyCoefficients(*table);
  }
  return 0;
}
