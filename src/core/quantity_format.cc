#include "core/quantity_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace kopt {
namespace {

struct Prefix {
  double factor;
  std::string_view symbol;
};

// Every prefix either style uses, largest first.
constexpr std::array<Prefix, 11> kPrefixes = {{{1e18, "E"},
                                               {1e15, "P"},
                                               {1e12, "T"},
                                               {1e9, "G"},
                                               {1e6, "M"},
                                               {1e3, "K"},
                                               {1, ""},
                                               {1e-3, "m"},
                                               {1e-6, "µ"},
                                               {1e-9, "n"},
                                               {1e-12, "p"}}};
constexpr size_t kFixedLargest = 1;  // kFixed scales with P..(none)
constexpr size_t kFixedSmallest = 6;

// kFixed durations, in nanoseconds: the first whose threshold |value| reaches.
struct DurationUnit {
  double threshold;
  double divisor;
  std::string_view suffix;
};
constexpr std::array<DurationUnit, 4> kFixedDurations = {
    {{0.9995e9, 1e9, " s"}, {0.9995e6, 1e6, " ms"}, {0.9995e3, 1e3, " µs"}, {0, 1, " ns"}}};

// kFixed digits: three significant digits for |value| in [1, 1000), trailing zeros kept.
std::string FixedDigits(double value) {
  double magnitude = std::fabs(value);
  if (magnitude >= 100 || magnitude == 0) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.2f}", value);
}

// Drops trailing zeros after a decimal point: "4.80" → "4.8", "12.0" → "12".
std::string StripTrailingZeros(std::string text) {
  if (text.find('.') == std::string::npos || text.find('e') != std::string::npos) return text;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

std::string TrimmedDigits(double value) {
  constexpr int kSignificant = 3;
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  double magnitude = std::fabs(value);
  if (magnitude < 1e-3 || magnitude >= 1e15) return fmt::format("{:.{}g}", value, kSignificant);
  if (value == std::round(value) && magnitude >= std::pow(10.0, kSignificant - 1)) {
    return fmt::format("{:.0f}", value);
  }
  int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  int decimals = std::max(0, kSignificant - 1 - exponent);
  return StripTrailingZeros(fmt::format("{:.{}f}", value, decimals));
}

std::string FixedScaled(double value, std::string_view unit) {
  double magnitude = std::fabs(value);
  for (size_t index = kFixedLargest; index <= kFixedSmallest; ++index) {
    const Prefix& prefix = kPrefixes[index];
    if (magnitude >= prefix.factor * 0.9995) {
      return fmt::format("{} {}{}", FixedDigits(value / prefix.factor), prefix.symbol, unit);
    }
  }
  return fmt::format("{} {}", FixedDigits(value), unit);
}

// Index into kPrefixes of the largest prefix not above `magnitude`.
size_t PrefixIndexFor(double magnitude) {
  for (size_t index = 0; index < kPrefixes.size(); ++index) {
    if (magnitude >= kPrefixes[index].factor) return index;
  }
  return kPrefixes.size() - 1;
}

std::string TrimmedScaled(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "n/a";
  std::string_view separator = unit.empty() ? "" : " ";
  if (value == 0) return fmt::format("0{}{}", separator, unit);
  size_t index = PrefixIndexFor(std::fabs(value));
  double scaled = value / kPrefixes[index].factor;
  // Rounding to three digits can reach 1000 (999.96 → "1000"): take the next prefix.
  if (std::fabs(scaled) >= 999.5 && index > 0) {
    --index;
    scaled = value / kPrefixes[index].factor;
  }
  return fmt::format("{}{}{}{}", TrimmedDigits(scaled), separator, kPrefixes[index].symbol, unit);
}

}  // namespace

std::string FormatNumber(double value, QuantityStyle style) {
  switch (style) {
    case QuantityStyle::kFixed: return FixedDigits(value);
    case QuantityStyle::kTrimmed: return TrimmedDigits(value);
  }
  return TrimmedDigits(value);
}

std::string FormatScaled(double value, std::string_view unit, QuantityStyle style) {
  switch (style) {
    case QuantityStyle::kFixed: return FixedScaled(value, unit);
    case QuantityStyle::kTrimmed: return TrimmedScaled(value, unit);
  }
  return TrimmedScaled(value, unit);
}

std::string FormatDuration(double nanoseconds, QuantityStyle style) {
  if (style == QuantityStyle::kTrimmed) return TrimmedScaled(nanoseconds * 1e-9, "s");
  double magnitude = std::fabs(nanoseconds);
  for (const DurationUnit& unit : kFixedDurations) {
    if (magnitude >= unit.threshold)
      return FixedDigits(nanoseconds / unit.divisor) + std::string(unit.suffix);
  }
  return FixedDigits(nanoseconds) + " ns";  // NaN
}

std::string FormatBytes(double bytes, QuantityStyle style) {
  return FormatScaled(bytes, "B", style);
}
std::string FormatBandwidth(double bytes_per_second, QuantityStyle style) {
  return FormatScaled(bytes_per_second, "B/s", style);
}
std::string FormatOperations(double operations, QuantityStyle style) {
  return FormatScaled(operations, "FLOP", style);
}
std::string FormatRate(double operations_per_second, QuantityStyle style) {
  return FormatScaled(operations_per_second, "FLOP/s", style);
}
std::string FormatIntensity(double flop_per_byte, QuantityStyle style) {
  return FormatNumber(flop_per_byte, style) + " FLOP/B";
}

std::string FormatPercent(double percent, QuantityStyle style) {
  if (style == QuantityStyle::kFixed) return fmt::format("{:.1f}%", percent);
  if (!std::isfinite(percent)) return "n/a";
  if (std::fabs(percent) >= 100) return fmt::format("{:.0f}%", percent);
  return fmt::format("{:.1f}%", percent);
}

std::string FormatFraction(double fraction, QuantityStyle style) {
  return FormatPercent(fraction * 100, style);
}

std::string FormatMeasurement(double value, std::string_view unit, QuantityStyle style) {
  if (unit == "%") return FormatPercent(value, style);
  if (unit == "ns") return FormatDuration(value, style);
  if (unit == "s") return FormatScaled(value, "s", style);
  if (unit == "byte" || unit == "B") return FormatBytes(value, style);
  if (unit == "byte/s" || unit == "B/s") return FormatBandwidth(value, style);
  if (unit == "FLOP" || unit == "FLOP/s") return FormatScaled(value, unit, style);
  if (unit == "fraction") return FormatFraction(value, style);
  if (unit.empty())
    return std::fabs(value) >= 1e6 ? FormatScaled(value, "", style) : FormatNumber(value, style);
  if (std::fabs(value) >= 1e6) return FormatScaled(value, unit, style);
  return fmt::format("{} {}", FormatNumber(value, style), unit);
}

}  // namespace kopt
