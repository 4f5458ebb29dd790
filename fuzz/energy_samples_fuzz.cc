// Fuzz target for the energy samples file (measure/energy_calibration.h, kopt.energy_samples/1) and a
// fit over what it parsed.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "measure/energy_calibration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) return 0;
  auto samples = kopt::EnergySamplesFromJson(json, "fuzz.json");
  if (samples.ok() && samples->size() <= 64) (void)kopt::FitEnergyCoefficients(*samples, {"G", ""});
  return 0;
}
