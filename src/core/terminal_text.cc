#include "core/terminal_text.h"

#include <algorithm>

namespace kopt {
namespace {

// Length in bytes of the UTF-8 sequence starting with `lead`.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // a stray continuation byte counts as one character
}

bool IsContinuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

// The length of the valid UTF-8 sequence at `position` (2..4 bytes, not
// overlong, not a surrogate, at most U+10FFFF), 0 when there is none.
size_t ValidSequenceLength(std::string_view text, size_t position) {
  auto lead = static_cast<unsigned char>(text[position]);
  size_t length = SequenceLength(lead);
  if (length < 2 || position + length > text.size()) return 0;
  for (size_t index = 1; index < length; ++index) {
    if (!IsContinuation(static_cast<unsigned char>(text[position + index]))) return 0;
  }
  auto second = static_cast<unsigned char>(text[position + 1]);
  if (length == 2 && lead < 0xC2) return 0;                                        // overlong
  if (length == 3 && lead == 0xE0 && second < 0xA0) return 0;                      // overlong
  if (length == 3 && lead == 0xED && second >= 0xA0) return 0;                     // surrogate
  if (length == 4 && lead == 0xF0 && second < 0x90) return 0;                      // overlong
  if (length == 4 && (lead > 0xF4 || (lead == 0xF4 && second >= 0x90))) return 0;  // above U+10FFFF
  return length;
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

// Appends `word` to `lines`, splitting it into pieces of at most `width`: after a '.', '_', '/',
// '-' or ',' where one is in the piece's last two thirds (a metric name breaks between its parts,
// "…pct_of_peak_sustained_" / "active", not mid-part), else at the width.
void AppendLongWord(std::string_view word, size_t width, std::vector<std::string>& lines) {
  std::string piece;
  size_t piece_width = 0;
  for (size_t position = 0; position < word.size();) {
    TextUnit unit = NextUnit(word, position);
    if (piece_width + unit.width > width) {
      size_t cut = piece.find_last_of("._/-,");
      if (cut != std::string::npos && DisplayWidth(std::string_view(piece).substr(0, cut + 1)) * 3 >= width) {
        lines.push_back(piece.substr(0, cut + 1));
        piece.erase(0, cut + 1);
        piece_width = DisplayWidth(piece);
      } else {
        lines.push_back(piece);
        piece.clear();
        piece_width = 0;
      }
    }
    piece += word.substr(position, unit.length);
    piece_width += unit.width;
    position += unit.length;
  }
  lines.push_back(piece);
}

}  // namespace

std::string SanitizeForTerminal(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (size_t position = 0; position < text.size();) {
    auto byte = static_cast<unsigned char>(text[position]);
    if (byte < 0x80) {
      if (byte == '\n') {
        clean += ' ';
      } else if (IsControl(byte) && byte != '\t') {
        clean += '?';
      } else {
        clean += static_cast<char>(byte);
      }
      ++position;
      continue;
    }
    size_t length = ValidSequenceLength(text, position);
    auto second = length > 0 ? static_cast<unsigned char>(text[position + 1]) : 0;
    if (length == 0 || (byte == 0xC2 && second <= 0x9F)) {  // invalid, or C1 U+0080..U+009F
      clean += '?';
      position += length == 0 ? 1 : length;
      continue;
    }
    clean.append(text.substr(position, length));
    position += length;
  }
  return clean;
}

std::string SanitizeLinesForTerminal(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    clean += SanitizeForTerminal(text.substr(start, end - start));
    if (end < text.size()) clean += '\n';
    start = end + 1;
  }
  return clean;
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

std::vector<std::string> WrapHanging(std::string_view first_prefix, std::string_view text, size_t width) {
  size_t indent = DisplayWidth(first_prefix);
  size_t available = width > indent + 20 ? width - indent : 20;
  std::vector<std::string> lines = WrapText(text, available);
  for (size_t index = 0; index < lines.size(); ++index)
    lines[index] = (index == 0 ? std::string(first_prefix) : std::string(indent, ' ')) + lines[index];
  return lines;
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

}  // namespace kopt
