#include "report/format.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace kopt::report {
namespace {

struct Prefix {
  double factor;
  std::string_view symbol;
};

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

// Drops trailing zeros after a decimal point: "4.80" → "4.8", "12.0" → "12".
std::string StripTrailingZeros(std::string text) {
  if (text.find('.') == std::string::npos || text.find('e') != std::string::npos) return text;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Index into kPrefixes of the largest prefix not above |value|.
size_t PrefixIndexFor(double magnitude) {
  for (size_t index = 0; index < kPrefixes.size(); ++index) {
    if (magnitude >= kPrefixes[index].factor) return index;
  }
  return kPrefixes.size() - 1;
}

// Length in bytes of the UTF-8 sequence starting with `lead`.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // a stray continuation byte counts as one character
}

bool IsControl(unsigned char character) {
  return character < 0x20 || character == 0x7F;
}

// Splits a UTF-8 string into its code points (invalid bytes stay single).
std::vector<std::string_view> CodePoints(std::string_view text) {
  std::vector<std::string_view> points;
  for (size_t position = 0; position < text.size();) {
    size_t length =
        std::min(SequenceLength(static_cast<unsigned char>(text[position])), text.size() - position);
    points.push_back(text.substr(position, length));
    position += length;
  }
  return points;
}

// One printable unit of text: a UTF-8 code point (width 1) or an ANSI escape
// sequence ESC [ ... letter (width 0).
struct TextUnit {
  size_t length;
  size_t width;
};

TextUnit NextUnit(std::string_view text, size_t position) {
  if (text[position] == '\x1b' && position + 1 < text.size() && text[position + 1] == '[') {
    size_t end = text.find_first_of("ABCDEFGHJKSTfmnsu", position + 2);
    return {end == std::string_view::npos ? text.size() - position : end + 1 - position, 0};
  }
  return {std::min(SequenceLength(static_cast<unsigned char>(text[position])), text.size() - position), 1};
}

// Appends `word` to `lines`, splitting it into pieces of at most `width`.
void AppendLongWord(std::string_view word, size_t width, std::vector<std::string>& lines) {
  std::string piece;
  size_t piece_width = 0;
  for (size_t position = 0; position < word.size();) {
    TextUnit unit = NextUnit(word, position);
    if (piece_width + unit.width > width) {
      lines.push_back(piece);
      piece.clear();
      piece_width = 0;
    }
    piece += word.substr(position, unit.length);
    piece_width += unit.width;
    position += unit.length;
  }
  lines.push_back(piece);
}

}  // namespace

std::string FormatNumber(double value, int significant) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  double magnitude = std::fabs(value);
  if (magnitude < 1e-3 || magnitude >= 1e15) return fmt::format("{:.{}g}", value, significant);
  if (value == std::round(value) && magnitude >= std::pow(10.0, significant - 1)) {
    return fmt::format("{:.0f}", value);
  }
  int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  int decimals = std::max(0, significant - 1 - exponent);
  return StripTrailingZeros(fmt::format("{:.{}f}", value, decimals));
}

std::string FormatScaled(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "n/a";
  std::string separator = unit.empty() ? "" : " ";
  if (value == 0) return fmt::format("0{}{}", separator, unit);
  size_t index = PrefixIndexFor(std::fabs(value));
  double scaled = value / kPrefixes[index].factor;
  // Rounding to three digits can reach 1000 (999.96 → "1000"): take the next prefix.
  if (std::fabs(scaled) >= 999.5 && index > 0) {
    --index;
    scaled = value / kPrefixes[index].factor;
  }
  return fmt::format("{}{}{}{}", FormatNumber(scaled), separator, kPrefixes[index].symbol, unit);
}

std::string FormatDuration(double nanoseconds) {
  return FormatScaled(nanoseconds * 1e-9, "s");
}
std::string FormatBytes(double bytes) {
  return FormatScaled(bytes, "B");
}
std::string FormatBandwidth(double bytes_per_second) {
  return FormatScaled(bytes_per_second, "B/s");
}
std::string FormatOperations(double operations) {
  return FormatScaled(operations, "FLOP");
}
std::string FormatRate(double operations_per_second) {
  return FormatScaled(operations_per_second, "FLOP/s");
}
std::string FormatIntensity(double flop_per_byte) {
  return FormatNumber(flop_per_byte) + " FLOP/B";
}

std::string FormatPercent(double percent) {
  if (!std::isfinite(percent)) return "n/a";
  if (std::fabs(percent) >= 100) return fmt::format("{:.0f}%", percent);
  return fmt::format("{:.1f}%", percent);
}

std::string FormatFraction(double fraction) {
  return FormatPercent(fraction * 100);
}

std::string FormatMeasurement(double value, std::string_view unit) {
  if (unit == "%") return FormatPercent(value);
  if (unit == "ns") return FormatDuration(value);
  if (unit == "s") return FormatScaled(value, "s");
  if (unit == "byte" || unit == "B") return FormatBytes(value);
  if (unit == "byte/s" || unit == "B/s") return FormatBandwidth(value);
  if (unit == "FLOP" || unit == "FLOP/s") return FormatScaled(value, unit);
  if (unit == "fraction") return FormatFraction(value);
  if (unit.empty()) return std::fabs(value) >= 1e6 ? FormatScaled(value, "") : FormatNumber(value);
  if (std::fabs(value) >= 1e6) return FormatScaled(value, unit);
  return fmt::format("{} {}", FormatNumber(value), unit);
}

std::string EscapeHtml(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 8);
  for (char character : text) {
    switch (character) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      case '\t':
      case '\n': escaped += character; break;
      default:
        if (IsControl(static_cast<unsigned char>(character))) {
          escaped += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          escaped += character;
        }
    }
  }
  return escaped;
}

std::string EscapeMarkdown(std::string_view text) {
  constexpr std::string_view kSpecial = "\\`*_[]<>|&~#";
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 4);
  for (char character : text) {
    if (character == '&') {
      escaped += "&amp;";
    } else if (character == '<') {
      escaped += "&lt;";
    } else if (character == '>') {
      escaped += "&gt;";
    } else if (kSpecial.find(character) != std::string_view::npos) {
      escaped += '\\';
      escaped += character;
    } else if (character == '\n' || character == '\r') {
      escaped += ' ';
    } else if (IsControl(static_cast<unsigned char>(character)) && character != '\t') {
      escaped += '?';
    } else {
      escaped += character;
    }
  }
  return escaped;
}

std::string MarkdownCode(std::string_view text) {
  std::string body;
  size_t longest_run = 0, run = 0;
  for (char character : text) {
    run = character == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
    if (character == '|') {
      body += "\\|";
    } else if (character == '\n' || character == '\r') {
      body += ' ';
    } else if (IsControl(static_cast<unsigned char>(character)) && character != '\t') {
      body += '?';
    } else {
      body += character;
    }
  }
  std::string fence(longest_run + 1, '`');
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string SanitizeForTerminal(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char character : text) {
    if (character == '\n') {
      clean += ' ';
    } else if (IsControl(static_cast<unsigned char>(character)) && character != '\t') {
      clean += '?';
    } else {
      clean += character;
    }
  }
  // C1 control characters (U+0080..U+009F, UTF-8 C2 80..C2 9F) include CSI.
  std::string result;
  result.reserve(clean.size());
  for (size_t index = 0; index < clean.size(); ++index) {
    auto byte = static_cast<unsigned char>(clean[index]);
    auto next = index + 1 < clean.size() ? static_cast<unsigned char>(clean[index + 1]) : 0;
    if (byte == 0xC2 && next >= 0x80 && next <= 0x9F) {
      result += '?';
      ++index;
    } else {
      result += clean[index];
    }
  }
  return result;
}

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (size_t position = 0; position < text.size();) {
    TextUnit unit = NextUnit(text, position);
    position += unit.length;
    width += unit.width;
  }
  return width;
}

std::string PadRight(std::string_view text, size_t width) {
  size_t current = DisplayWidth(text);
  return std::string(text) + std::string(current < width ? width - current : 0, ' ');
}

std::string PadLeft(std::string_view text, size_t width) {
  size_t current = DisplayWidth(text);
  return std::string(current < width ? width - current : 0, ' ') + std::string(text);
}

std::string Truncate(std::string_view text, size_t width) {
  std::vector<std::string_view> points = CodePoints(text);
  if (points.size() <= width) return std::string(text);
  if (width == 0) return "";
  std::string cut;
  for (size_t index = 0; index + 1 < width; ++index) cut += points[index];
  return cut + "…";
}

std::vector<std::string> WrapText(std::string_view text, size_t width) {
  width = std::max<size_t>(width, 1);
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    size_t needed = DisplayWidth(line) + (line.empty() ? 0 : 1) + DisplayWidth(word);
    if (needed <= width) {
      line += (line.empty() ? "" : " ") + std::string(word);
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line.clear();
    if (DisplayWidth(word) <= width) {
      line = std::string(word);
    } else {
      AppendLongWord(word, width, lines);
      line = lines.back();
      lines.pop_back();
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace kopt::report
