// The one formatter of human-readable quantities: numbers with SI prefixes
// and units ("4.81 TB/s", "57.7 µs", "1.2 GFLOP"), percentages and ncu
// measurements. Every caller names the style it prints in; there is no
// default, so two outputs cannot drift apart by accident.
//
// Both styles print three significant digits and choose the prefix from the
// magnitude, as ncu does (K = 1000); a value that rounds up to 1000 moves to
// the next prefix (999.96e9 B/s → "1.00 TB/s" / "1 TB/s"). They differ in:
//
//                       QuantityStyle::kFixed     QuantityStyle::kTrimmed
//   trailing zeros      kept: "57.0 µs", "1.50 GB"  dropped: "57 µs", "1.5 GB"
//   prefixes            K..P (n, µ, m for seconds)  p..E
//   below the smallest  "0.50 B", "0.25 ns"         "500 mB", "250 ps"
//   percent ≥ 100       "100.0%"                    "100%"
//   NaN, infinity       as fmt prints them ("nan")  "n/a"
//
// kFixed is the style of the analysis' reason sentences and of `kopt bench`;
// kTrimmed the style of the explain renderers and the evidence digest.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kopt {

enum class QuantityStyle { kFixed, kTrimmed };

// A plain number with three significant digits: kFixed "32.0", "0.50",
// "57664"; kTrimmed "32", "0.125", "57664", with no exponent between 1e-3
// and 1e15 ("1.5e+15" beyond).
std::string FormatNumber(double value, QuantityStyle style);

// `value` of `unit` with an SI prefix on the unit: (4.81e12, "B/s") →
// "4.81 TB/s". kTrimmed writes no space before an empty unit ("1.2M").
std::string FormatScaled(double value, std::string_view unit, QuantityStyle style);

std::string FormatDuration(double nanoseconds, QuantityStyle style);        // "57.7 µs", "850 ns"
std::string FormatBytes(double bytes, QuantityStyle style);                 // "222 MB"
std::string FormatBandwidth(double bytes_per_second, QuantityStyle style);  // "4.81 TB/s"
std::string FormatOperations(double operations, QuantityStyle style);       // "1.2 GFLOP"
std::string FormatRate(double operations_per_second, QuantityStyle style);  // "20.8 TFLOP/s"
std::string FormatIntensity(double flop_per_byte, QuantityStyle style);     // "0.167 FLOP/B"
std::string FormatPercent(double percent, QuantityStyle style);             // 80.08 → "80.1%"
std::string FormatFraction(double fraction, QuantityStyle style);           // 0.887 → "88.7%"

// A measurement in one of ncu's base units ("byte", "byte/s", "ns", "s", "%",
// "fraction", "sector", "inst", "", ...) formatted for people: bytes, rates
// and durations as above, percentages with "%", other units after the number
// with an SI prefix for magnitudes from 1e6 ("1.2 Msector").
std::string FormatMeasurement(double value, std::string_view unit, QuantityStyle style);

}  // namespace kopt
