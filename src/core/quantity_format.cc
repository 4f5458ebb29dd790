#include "core/quantity_format.h"

#include <fmt/format.h>

#include <cmath>

namespace kopt {
namespace {

std::string ThreeSignificantDigits(double value) {
  double magnitude = std::fabs(value);
  if (magnitude >= 100 || magnitude == 0) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.2f}", value);
}

}  // namespace

std::string FormatWithPrefix(double value, const std::string& unit) {
  static const struct {
    double factor;
    const char* prefix;
  } kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1, ""}};
  double magnitude = std::fabs(value);
  for (const auto& entry : kPrefixes) {
    if (magnitude >= entry.factor * 0.9995) {
      return ThreeSignificantDigits(value / entry.factor) + " " + entry.prefix + unit;
    }
  }
  return ThreeSignificantDigits(value) + " " + unit;
}

std::string FormatBytes(double bytes) {
  return FormatWithPrefix(bytes, "B");
}
std::string FormatBytesPerSecond(double bytes_per_second) {
  return FormatWithPrefix(bytes_per_second, "B/s");
}
std::string FormatFlops(double operations) {
  return FormatWithPrefix(operations, "FLOP");
}
std::string FormatFlopsPerSecond(double operations_per_second) {
  return FormatWithPrefix(operations_per_second, "FLOP/s");
}

std::string FormatDuration(double nanoseconds) {
  double magnitude = std::fabs(nanoseconds);
  if (magnitude >= 0.9995e9) return ThreeSignificantDigits(nanoseconds / 1e9) + " s";
  if (magnitude >= 0.9995e6) return ThreeSignificantDigits(nanoseconds / 1e6) + " ms";
  if (magnitude >= 0.9995e3) return ThreeSignificantDigits(nanoseconds / 1e3) + " µs";
  return ThreeSignificantDigits(nanoseconds) + " ns";
}

std::string FormatPercent(double percent) {
  return fmt::format("{:.1f}%", percent);
}

}  // namespace kopt
