// Fuzz target for what the calibration microbenchmarks print (measure/calibration.h): the program's
// stdout and ncu's raw page of its copies.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "measure/calibration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)kopt::ParseCalibrateBenchOutput(text);
  (void)kopt::ParseCalibrateNcuCopies(text, "fuzz.csv");
  return 0;
}
