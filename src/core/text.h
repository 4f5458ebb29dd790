// Small text utilities shared by the parsers. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

std::string_view TrimWhitespace(std::string_view text);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
bool Contains(std::string_view text, std::string_view part);
// ASCII letters lowered; other bytes (UTF-8 included) unchanged.
std::string ToLowerAscii(std::string_view text);
// A character of a C/C++ identifier: ASCII letter, digit or '_' (not locale-dependent).
bool IsIdentifierChar(char c);
// A whole C/C++ identifier: non-empty, identifier characters, not starting with a digit.
bool IsIdentifier(std::string_view text);
std::vector<std::string_view> SplitLines(std::string_view text);  // handles \n and \r\n
// The whitespace-separated words of `text` (runs of spaces, tabs, \r, \n split; none empty).
std::vector<std::string_view> SplitWords(std::string_view text);

// Calls `visit` for every line of `text` (without its '\n'; a '\r' before it
// is kept) with its 1-based number; stops at and returns the first non-OK status.
Status ForEachLine(std::string_view text, const std::function<Status(std::string_view, size_t)>& visit);

// Parses a decimal number as printed by profilers: optional sign, thousands
// separators (",") between digit groups, optional fraction and exponent.
// Returns nullopt for anything else ("nan", "no data", "", "1,2", "0x10").
std::optional<double> ParseNumber(std::string_view text);

// Parses a non-negative integer without separators. nullopt on overflow or junk.
std::optional<long long> ParseInteger(std::string_view text);
// Parses a whole signed 64-bit integer: optional surrounding whitespace, an
// optional '+' or '-', digits. nullopt on overflow or anything else.
std::optional<int64_t> ParseSignedInteger(std::string_view text);

// True when the bytes look like binary data (NUL bytes or invalid UTF-8 in the
// first few kilobytes): used to reject binary files with a clear message.
bool LooksBinary(std::string_view bytes);

// A compressed file's format, recognized by its magic bytes: name ("gzip")
// and the command that decompresses FILE beside itself ("gzip -dk FILE").
struct CompressionFormat {
  std::string_view name;
  std::string_view decompress_command;
};
// The format `bytes` start with (gzip, bzip2, xz, zstd, zip), or nullopt.
std::optional<CompressionFormat> RecognizeCompression(std::string_view bytes);

// The bytes without a leading UTF-8 byte order mark (EF BB BF), as some
// editors and spreadsheet programs write CSV.
std::string_view StripUtf8ByteOrderMark(std::string_view bytes);

// "1 launch", "3 launches": the count with the noun in its number.
std::string CountText(size_t count, std::string_view singular, std::string_view plural);

// "a, b or c" ("a" alone, "a or b"): the names a message offers, as a registry's rows list them.
std::string AlternativesText(const std::vector<std::string_view>& names);

// Levenshtein distance (insertions, deletions, substitutions of bytes).
size_t EditDistance(std::string_view first, std::string_view second);

// " (did you mean \"x\"?)" for the candidate nearest `word` when it is within a small edit
// distance (about a third of the word, at least 2), else "": the hint of "unknown name" messages.
std::string DidYouMean(std::string_view word, const std::vector<std::string_view>& candidates);

// Shortens `text` to at most `max_chars` characters, marking the cut with "…".
std::string Abbreviate(std::string_view text, size_t max_chars);

// 'text': a name in a message (a path, a program, a regex), as it is: nothing escaped.
std::string SingleQuoted(std::string_view text);

// A number of seconds as printf's "%g" writes it, without a unit ("0.5", "600", "1e-05"): a
// time limit in a message.
std::string SecondsText(double seconds);

}  // namespace kopt
