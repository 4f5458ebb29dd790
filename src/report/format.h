// Text helpers shared by the renderers: numbers with units, escaping for
// HTML, Markdown and terminals, and UTF-8 aware wrapping and padding.
//
// Numbers are printed with three significant digits and a decimal (SI) prefix
// chosen from the magnitude, as ncu does (K = 1000): 4.81 TB/s, 57.7 µs,
// 1.2 GFLOP.
// Trailing zeros after the decimal point are dropped ("4.8 TB/s").
// Non-finite values print as "n/a".
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kopt::report {

// A plain number with `significant` digits, no exponent between 1e-3 and 1e6,
// integers as integers ("32", "0.125", "13.9", "1.5e+09").
std::string FormatNumber(double value, int significant = 3);

// `value` of `unit` with an SI prefix on the unit: (4.81e12, "B/s") →
// "4.81 TB/s"; (0.000057664, "s") → "57.7 µs". Prefixes from p to E.
std::string FormatScaled(double value, std::string_view unit);

std::string FormatDuration(double nanoseconds);        // "57.7 µs", "850 ns", "1.2 s"
std::string FormatBytes(double bytes);                 // "222 MB"
std::string FormatBandwidth(double bytes_per_second);  // "4.81 TB/s"
std::string FormatOperations(double operations);       // "1.2 GFLOP"
std::string FormatRate(double operations_per_second);  // "20.8 TFLOP/s"
std::string FormatIntensity(double flop_per_byte);     // "0.167 FLOP/B"
std::string FormatPercent(double percent);             // 80.08 → "80.1%"
std::string FormatFraction(double fraction);           // 0.887 → "88.7%"

// A measurement in one of ncu's base units ("byte", "byte/s", "ns", "%",
// "sector", "inst", "", ...) formatted for people: bytes and rates as above,
// durations with a time prefix, percentages with "%", other units after the
// number with an SI prefix for large magnitudes ("1.2 Msector").
std::string FormatMeasurement(double value, std::string_view unit);

// Escapes &, <, >, " and ' for HTML text and attribute values (and SVG).
// Control characters other than tab and newline become U+FFFD.
std::string EscapeHtml(std::string_view text);

// Escapes Markdown punctuation (\ ` * _ [ ] < > | & ~ #) so untrusted text
// renders literally; newlines become spaces.
std::string EscapeMarkdown(std::string_view text);

// A Markdown code span that shows `text` literally, also inside table cells
// ("|" is escaped, newlines become spaces, backticks get a longer fence).
std::string MarkdownCode(std::string_view text);

// Replaces control characters (ESC, CR, BEL, ... but not tab) with "?", so an
// untrusted string cannot move the cursor or change colours on a terminal.
// Newlines become spaces.
std::string SanitizeForTerminal(std::string_view text);

// The number of code points in a UTF-8 string: its width on a terminal for
// the characters kopt prints (no wide CJK characters are assumed). ANSI
// escape sequences (ESC [ ... letter) count as zero width: the renderers add
// them only after SanitizeForTerminal removed any from untrusted text.
size_t DisplayWidth(std::string_view text);

// Pads with spaces on the right (left for PadLeft) to `width` code points.
std::string PadRight(std::string_view text, size_t width);
std::string PadLeft(std::string_view text, size_t width);

// Cuts `text` to at most `width` code points, marking a cut with "…".
std::string Truncate(std::string_view text, size_t width);

// Splits `text` into lines of at most `width` code points at spaces; words
// longer than a line are split. Never returns an empty vector.
std::vector<std::string> WrapText(std::string_view text, size_t width);

}  // namespace kopt::report
