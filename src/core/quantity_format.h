// Human-readable quantities with SI prefixes and units: "4.81 TB/s",
// "57.7 µs", "1.23 GFLOP", "67 TFLOP/s". Three significant digits. Used by the
// analysis (reason sentences) and every renderer. Pure functions.
#pragma once

#include <string>

namespace kopt {

std::string FormatWithPrefix(double value, const std::string& unit);  // "1.5 Gbyte" style for any unit
std::string FormatBytes(double bytes);                                // "128 MB"
std::string FormatBytesPerSecond(double bytes_per_second);            // "4.81 TB/s"
std::string FormatFlops(double operations);                           // "2.15 GFLOP"
std::string FormatFlopsPerSecond(double operations_per_second);       // "67 TFLOP/s"
std::string FormatDuration(double nanoseconds);                       // "57.7 µs"
std::string FormatPercent(double percent);                            // "75.3%"

}  // namespace kopt
