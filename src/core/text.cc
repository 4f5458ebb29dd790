#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kopt {

std::string_view TrimWhitespace(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

std::string ToLowerAscii(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::optional<int64_t> ParseSignedInteger(std::string_view text) {
  text = TrimWhitespace(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool IsIdentifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
  for (char c : text) {
    if (!IsIdentifierChar(c)) return false;
  }
  return true;
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

Status ForEachLine(std::string_view text, const std::function<Status(std::string_view, size_t)>& visit) {
  size_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    KOPT_RETURN_IF_ERROR(visit(text.substr(start, end - start), ++line_number));
    start = end + 1;
  }
  return Status::Ok();
}

namespace {

// Copies `text` without thousands separators into `out`; false when a
// separator is misplaced (groups after the first must have exactly 3 digits).
bool RemoveThousandsSeparators(std::string_view text, std::string& out) {
  size_t integer_end = text.find_first_of(".eE");
  if (integer_end == std::string_view::npos) integer_end = text.size();
  std::string_view integer_part = text.substr(0, integer_end);
  if (integer_part.find(',') == std::string_view::npos) {
    out.assign(text);
    return true;
  }
  size_t digits_since_separator = 0;
  bool seen_separator = false;
  bool seen_digit = false;
  for (char c : integer_part) {
    if (c == ',') {
      if (!seen_digit || (seen_separator && digits_since_separator != 3)) return false;
      if (!seen_separator && digits_since_separator > 3) return false;
      seen_separator = true;
      digits_since_separator = 0;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      seen_digit = true;
      ++digits_since_separator;
    }
    out.push_back(c);
  }
  if (digits_since_separator != 3) return false;
  out.append(text.substr(integer_end));
  return text.substr(integer_end).find(',') == std::string_view::npos;
}

}  // namespace

std::optional<double> ParseNumber(std::string_view text) {
  text = TrimWhitespace(text);
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string cleaned;
  cleaned.reserve(text.size());
  if (!RemoveThousandsSeparators(text, cleaned)) return std::nullopt;
  std::string_view view = cleaned;
  if (!view.empty() && view.front() == '+') view.remove_prefix(1);
  if (view.empty()) return std::nullopt;
  // Only plain decimal notation: reject hex, inf and nan spellings.
  for (char c : view) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' ||
          c == 'E')) {
      return std::nullopt;
    }
  }
  double value = 0;
  auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (error != std::errc() || end != view.data() + view.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<long long> ParseInteger(std::string_view text) {
  text = TrimWhitespace(text);
  if (text.empty()) return std::nullopt;
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string CountText(size_t count, std::string_view singular, std::string_view plural) {
  return std::to_string(count) + " " + std::string(count == 1 ? singular : plural);
}

std::string AlternativesText(const std::vector<std::string_view>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

std::optional<CompressionFormat> RecognizeCompression(std::string_view bytes) {
  struct Magic {
    std::string_view bytes;
    CompressionFormat format;
  };
  static constexpr Magic kMagics[] = {
      {std::string_view("\x1f\x8b", 2), {"gzip", "gzip -dk FILE"}},
      {"BZh", {"bzip2", "bzip2 -dk FILE"}},
      {std::string_view("\xfd"
                        "7zXZ\x00",
                        6),
       {"xz", "xz -dk FILE"}},
      {std::string_view("\x28\xb5\x2f\xfd", 4), {"zstd", "zstd -d FILE"}},
      {std::string_view("PK\x03\x04", 4), {"zip", "unzip FILE"}},
  };
  for (const Magic& magic : kMagics) {
    if (bytes.substr(0, magic.bytes.size()) == magic.bytes) return magic.format;
  }
  return std::nullopt;
}

std::string_view StripUtf8ByteOrderMark(std::string_view bytes) {
  constexpr std::string_view kMark = "\xEF\xBB\xBF";
  return bytes.substr(0, kMark.size()) == kMark ? bytes.substr(kMark.size()) : bytes;
}

bool LooksBinary(std::string_view bytes) {
  std::string_view head = bytes.substr(0, 8192);
  size_t i = 0;
  while (i < head.size()) {
    auto byte = static_cast<unsigned char>(head[i]);
    if (byte == 0) return true;
    if (byte < 0x80) {
      ++i;
      continue;
    }
    int continuation = byte >= 0xF8 ? -1 : byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : -1;
    if (continuation < 0) return true;
    if (i + continuation >= head.size()) break;  // cut at the window edge
    for (int k = 1; k <= continuation; ++k) {
      if ((static_cast<unsigned char>(head[i + k]) & 0xC0) != 0x80) return true;
    }
    i += continuation + 1;
  }
  return false;
}

size_t EditDistance(std::string_view first, std::string_view second) {
  std::vector<size_t> row(second.size() + 1);
  for (size_t column = 0; column <= second.size(); ++column) row[column] = column;
  for (size_t line = 1; line <= first.size(); ++line) {
    size_t diagonal = row[0];
    row[0] = line;
    for (size_t column = 1; column <= second.size(); ++column) {
      size_t above = row[column];
      size_t substitution = diagonal + (first[line - 1] == second[column - 1] ? 0 : 1);
      row[column] = std::min({above + 1, row[column - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[second.size()];
}

std::string DidYouMean(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (std::string_view candidate : candidates) {
    size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best.empty() ? "" : " (did you mean \"" + std::string(best) + "\"?)";
}

std::string Abbreviate(std::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  if (max_chars == 0) return "";
  return std::string(text.substr(0, max_chars - 1)) + "…";
}

std::string SingleQuoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace kopt
