#include "agents/number_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/text.h"

namespace kopt::agents {
namespace {

struct UnitSpelling {
  std::string_view spelling;
  std::string_view unit;  // canonical
  double scale;           // canonical units per written unit
};

// Longer spellings first where one is a prefix of another; every match must
// end at a word boundary (see MatchUnit).
constexpr double kKibi = 1024.0;
const std::array kUnitSpellings = {
    UnitSpelling{"PFLOP/s", "FLOP/s", 1e15},
    UnitSpelling{"TFLOP/s", "FLOP/s", 1e12},
    UnitSpelling{"GFLOP/s", "FLOP/s", 1e9},
    UnitSpelling{"MFLOP/s", "FLOP/s", 1e6},
    UnitSpelling{"KFLOP/s", "FLOP/s", 1e3},
    UnitSpelling{"FLOP/s", "FLOP/s", 1},
    UnitSpelling{"PFLOPS", "FLOP/s", 1e15},
    UnitSpelling{"TFLOPS", "FLOP/s", 1e12},
    UnitSpelling{"GFLOPS", "FLOP/s", 1e9},
    UnitSpelling{"MFLOPS", "FLOP/s", 1e6},
    UnitSpelling{"FLOPS", "FLOP/s", 1},
    UnitSpelling{"FLOP/byte", "FLOP/byte", 1},
    UnitSpelling{"FLOP/B", "FLOP/byte", 1},
    UnitSpelling{"FLOPs/byte", "FLOP/byte", 1},
    UnitSpelling{"TFLOPs", "FLOP", 1e12},
    UnitSpelling{"GFLOPs", "FLOP", 1e9},
    UnitSpelling{"MFLOPs", "FLOP", 1e6},
    UnitSpelling{"TFLOP", "FLOP", 1e12},
    UnitSpelling{"GFLOP", "FLOP", 1e9},
    UnitSpelling{"MFLOP", "FLOP", 1e6},
    UnitSpelling{"KFLOP", "FLOP", 1e3},
    UnitSpelling{"FLOPs", "FLOP", 1},
    UnitSpelling{"FLOP", "FLOP", 1},
    UnitSpelling{"TB/s", "byte/s", 1e12},
    UnitSpelling{"GB/s", "byte/s", 1e9},
    UnitSpelling{"MB/s", "byte/s", 1e6},
    UnitSpelling{"KB/s", "byte/s", 1e3},
    UnitSpelling{"kB/s", "byte/s", 1e3},
    UnitSpelling{"TiB/s", "byte/s", kKibi* kKibi* kKibi* kKibi},
    UnitSpelling{"GiB/s", "byte/s", kKibi* kKibi* kKibi},
    UnitSpelling{"B/s", "byte/s", 1},
    UnitSpelling{"bytes/s", "byte/s", 1},
    UnitSpelling{"byte/s", "byte/s", 1},
    UnitSpelling{"TiB", "byte", kKibi* kKibi* kKibi* kKibi},
    UnitSpelling{"GiB", "byte", kKibi* kKibi* kKibi},
    UnitSpelling{"MiB", "byte", kKibi* kKibi},
    UnitSpelling{"KiB", "byte", kKibi},
    UnitSpelling{"TB", "byte", 1e12},
    UnitSpelling{"GB", "byte", 1e9},
    UnitSpelling{"MB", "byte", 1e6},
    UnitSpelling{"KB", "byte", 1e3},
    UnitSpelling{"kB", "byte", 1e3},
    UnitSpelling{"bytes", "byte", 1},
    UnitSpelling{"byte", "byte", 1},
    UnitSpelling{"B", "byte", 1},
    UnitSpelling{"\u00b5s", "s", 1e-6},
    UnitSpelling{"\u03bcs", "s", 1e-6},
    UnitSpelling{"usec", "s", 1e-6},
    UnitSpelling{"us", "s", 1e-6},
    UnitSpelling{"microseconds", "s", 1e-6},
    UnitSpelling{"microsecond", "s", 1e-6},
    UnitSpelling{"milliseconds", "s", 1e-3},
    UnitSpelling{"millisecond", "s", 1e-3},
    UnitSpelling{"msec", "s", 1e-3},
    UnitSpelling{"ms", "s", 1e-3},
    UnitSpelling{"nanoseconds", "s", 1e-9},
    UnitSpelling{"nanosecond", "s", 1e-9},
    UnitSpelling{"nsec", "s", 1e-9},
    UnitSpelling{"ns", "s", 1e-9},
    UnitSpelling{"seconds", "s", 1},
    UnitSpelling{"second", "s", 1},
    UnitSpelling{"sec", "s", 1},
    UnitSpelling{"s", "s", 1},
    UnitSpelling{"percentage points", "%", 1},
    UnitSpelling{"percent", "%", 1},
    UnitSpelling{"points", "%", 1},
    UnitSpelling{"pp", "%", 1},
    UnitSpelling{"%", "%", 1},
    UnitSpelling{"\u00d7", "x", 1},
    UnitSpelling{"x", "x", 1},
    UnitSpelling{"times", "x", 1},
    UnitSpelling{"GHz", "Hz", 1e9},
    UnitSpelling{"MHz", "Hz", 1e6},
    UnitSpelling{"Hz", "Hz", 1},
    UnitSpelling{"cycles", "cycle", 1},
    UnitSpelling{"cycle", "cycle", 1},
    UnitSpelling{"registers", "register", 1},
    UnitSpelling{"register", "register", 1},
    UnitSpelling{"regs", "register", 1},
    UnitSpelling{"threads", "thread", 1},
    UnitSpelling{"thread", "thread", 1},
    UnitSpelling{"blocks", "block", 1},
    UnitSpelling{"block", "block", 1},
    UnitSpelling{"CTAs", "block", 1},
    UnitSpelling{"warps", "warp", 1},
    UnitSpelling{"warp", "warp", 1},
    UnitSpelling{"SMs", "SM", 1},
    UnitSpelling{"SM", "SM", 1},
    UnitSpelling{"sectors", "sector", 1},
    UnitSpelling{"sector", "sector", 1},
    UnitSpelling{"requests", "request", 1},
    UnitSpelling{"request", "request", 1},
    UnitSpelling{"instructions", "inst", 1},
    UnitSpelling{"instruction", "inst", 1},
    UnitSpelling{"inst", "inst", 1},
    UnitSpelling{"wavefronts", "wavefront", 1},
    UnitSpelling{"bits", "bit", 1},
    UnitSpelling{"bit", "bit", 1},
    UnitSpelling{"waves", "wave", 1},
    UnitSpelling{"wave", "wave", 1},
    UnitSpelling{"launches", "launch", 1},
    UnitSpelling{"W", "W", 1},
};

struct Multiplier {
  std::string_view spelling;
  double factor;
};
const std::array kWordMultipliers = {Multiplier{" thousand", 1e3}, Multiplier{" million", 1e6},
                                     Multiplier{" billion", 1e9}};

bool IsDigit(char character) {
  return character >= '0' && character <= '9';
}
bool IsAsciiLetter(char character) {
  return (character >= 'a' && character <= 'z') || (character >= 'A' && character <= 'Z');
}
bool IsHexDigit(char character) {
  return IsDigit(character) || (character >= 'a' && character <= 'f') ||
         (character >= 'A' && character <= 'F');
}

// Byte ranges to leave alone: fenced code blocks and inline code spans.
std::vector<bool> CodeMask(std::string_view text) {
  std::vector<bool> mask(text.size(), false);
  bool in_fence = false;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = std::min(text.find('\n', line_start), text.size());
    std::string_view line = text.substr(line_start, line_end - line_start);
    size_t first = line.find_first_not_of(" \t");
    bool fence_line = first != std::string_view::npos && line.substr(first).starts_with("```");
    if (fence_line || in_fence) {
      std::fill(mask.begin() + line_start, mask.begin() + line_end, true);
      if (fence_line) in_fence = !in_fence;
    } else {
      size_t open = line.find('`');
      while (open != std::string_view::npos) {
        size_t close = line.find('`', open + 1);
        if (close == std::string_view::npos) break;
        std::fill(mask.begin() + line_start + open, mask.begin() + line_start + close + 1, true);
        open = line.find('`', close + 1);
      }
    }
    line_start = line_end + 1;
  }
  return mask;
}

size_t LineStartOf(std::string_view text, size_t position) {
  size_t newline = text.rfind('\n', position == 0 ? 0 : position - 1);
  return (newline == std::string_view::npos || position == 0) ? 0 : newline + 1;
}

// Inside `name(...)` or `name[...]` on the same line: code, not a claim.
bool InsideCallOrSubscript(std::string_view text, size_t position) {
  size_t line_start = LineStartOf(text, position);
  int depth = 0;
  for (size_t index = position; index > line_start; --index) {
    char character = text[index - 1];
    if (character == ')' || character == ']') ++depth;
    if (character == '(' || character == '[') {
      if (depth > 0) {
        --depth;
        continue;
      }
      return index >= 2 && IsIdentifierChar(text[index - 2]);
    }
  }
  return false;
}

// "1. ", "2) " at the start of a line (after blanks and bullet marks), "(3) ".
bool IsListMarker(std::string_view text, size_t start, size_t end) {
  char after = end < text.size() ? text[end] : '\0';
  bool followed_by_blank = end + 1 >= text.size() || text[end + 1] == ' ' || text[end + 1] == '\n';
  if (start > 0 && text[start - 1] == '(' && after == ')' && end - start == 1) return true;
  if ((after != '.' && after != ')') || !followed_by_blank) return false;
  for (size_t index = LineStartOf(text, start); index < start; ++index) {
    if (std::string_view(" \t#*->").find(text[index]) == std::string_view::npos) return false;
  }
  return true;
}

bool AtWordEnd(std::string_view text, size_t position) {
  return position >= text.size() || !IsIdentifierChar(text[position]);
}

// Matches a unit spelling at `position`; returns its length (0: none).
size_t MatchUnit(std::string_view text, size_t position, const UnitSpelling*& matched) {
  std::string_view rest = text.substr(position);
  for (const UnitSpelling& spelling : kUnitSpellings) {
    if (!rest.starts_with(spelling.spelling)) continue;
    size_t end = position + spelling.spelling.size();
    if (!AtWordEnd(text, end)) continue;
    // "262144×1×1": a dimension tuple, not a ratio.
    if (spelling.unit == "x" && end < text.size() && IsDigit(text[end])) continue;
    matched = &spelling;
    return spelling.spelling.size();
  }
  return 0;
}

bool IsSpace(std::string_view text, size_t position, size_t& width) {
  std::string_view rest = text.substr(position);
  if (rest.starts_with(" ") || rest.starts_with("-")) {
    width = 1;
    return true;
  }
  for (std::string_view space : {"\u00a0", "\u202f", "\u2009"}) {
    if (rest.starts_with(space)) {
      width = space.size();
      return true;
    }
  }
  return false;
}

double LetterMultiplier(char letter) {
  switch (letter) {
    case 'k':
    case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    default: return 0;
  }
}

// A unit at `position`, or a count unit with a glued SI letter ("Msector").
// Returns its length (0: none).
size_t MatchScaledUnit(std::string_view text, size_t position, ClaimToken& token) {
  const UnitSpelling* unit = nullptr;
  if (size_t length = MatchUnit(text, position, unit)) {
    token.unit = unit->unit, token.scale *= unit->scale;
    return length;
  }
  double factor = position < text.size() ? LetterMultiplier(text[position]) : 0;
  if (factor != 0 && MatchUnit(text, position + 1, unit) && unit->scale == 1 &&
      IsAsciiLetter(unit->spelling[0])) {
    token.unit = unit->unit, token.scale *= factor;
    return 1 + unit->spelling.size();
  }
  return 0;
}

// Parses the unit after a number ending at `end`: multiplier, then unit.
// Returns false when the number continues an identifier ("2D", "1st").
bool ParseUnit(std::string_view text, size_t& end, ClaimToken& token) {
  if (size_t length = MatchScaledUnit(text, end, token)) {
    end += length;
    return true;
  }
  size_t space = 0;
  // A letter multiplier glued to the number: "67.1M sectors", "2.1K".
  if (end < text.size() && LetterMultiplier(text[end]) != 0 && AtWordEnd(text, end + 1)) {
    token.scale = LetterMultiplier(text[end]);
    ++end;
    if (IsSpace(text, end, space)) {
      ClaimToken unit_token;
      size_t length = MatchScaledUnit(text, end + space, unit_token);
      if (length && unit_token.scale == 1) token.unit = unit_token.unit, end += space + length;
    }
    return true;
  }
  if (end < text.size() && IsIdentifierChar(text[end])) return false;
  for (const Multiplier& multiplier : kWordMultipliers) {
    if (text.substr(end).starts_with(multiplier.spelling) &&
        AtWordEnd(text, end + multiplier.spelling.size())) {
      token.scale = multiplier.factor, end += multiplier.spelling.size();
      break;
    }
  }
  if (IsSpace(text, end, space)) {
    if (size_t length = MatchScaledUnit(text, end + space, token)) end += space + length;
  }
  return true;
}

// Parses digits with optional thousands groups, a fraction and an exponent,
// from `position`. Returns the end, or npos for a version string (1.2.3).
size_t ParseDecimal(std::string_view text, size_t position, ClaimToken& token) {
  std::string digits;
  size_t index = position;
  while (index < text.size() && IsDigit(text[index])) digits += text[index++];
  while (index + 3 < text.size() && text[index] == ',' && IsDigit(text[index + 1]) &&
         IsDigit(text[index + 2]) && IsDigit(text[index + 3]) &&
         (index + 4 >= text.size() || !IsDigit(text[index + 4]))) {
    digits += text.substr(index + 1, 3);
    index += 4;
  }
  if (index + 1 < text.size() && text[index] == '.' && IsDigit(text[index + 1])) {
    digits += '.';
    ++index;
    while (index < text.size() && IsDigit(text[index])) {
      digits += text[index++];
      ++token.decimals;
    }
    if (index + 1 < text.size() && text[index] == '.' && IsDigit(text[index + 1]))
      return std::string_view::npos;
  }
  if (index + 1 < text.size() && (text[index] == 'e' || text[index] == 'E')) {
    size_t exponent = index + 1;
    if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) ++exponent;
    if (exponent < text.size() && IsDigit(text[exponent])) {
      size_t exponent_end = exponent;
      while (exponent_end < text.size() && IsDigit(text[exponent_end])) ++exponent_end;
      token.written =
          std::strtod(digits.c_str(), nullptr) *
          std::pow(10.0, std::strtod(std::string(text.substr(index + 1, exponent_end - index - 1)).c_str(),
                                     nullptr));
      token.decimals = 0;
      return exponent_end;
    }
  }
  token.written = std::strtod(digits.c_str(), nullptr);
  return index;
}

size_t SkipIdentifier(std::string_view text, size_t position) {
  while (position < text.size() && (IsIdentifierChar(text[position]) || text[position] == '.')) ++position;
  return position;
}

bool IsOrdinalSuffix(std::string_view text, size_t end) {
  for (std::string_view suffix : {"st", "nd", "rd", "th"}) {
    if (text.substr(end).starts_with(suffix) && AtWordEnd(text, end + 2)) return true;
  }
  return false;
}

// The unit a number's context implies: "kernel.cu:42" and "line 42" are
// source lines.
void ApplyContextUnit(std::string_view text, size_t start, ClaimToken& token) {
  if (!token.unit.empty() || token.decimals != 0) return;
  if (start >= 2 && text[start - 1] == ':' && IsIdentifierChar(text[start - 2])) {
    token.unit = "line";
    return;
  }
  std::string_view before = text.substr(0, start);
  for (std::string_view word : {"line ", "lines ", "Line ", "Lines ", "line\u00a0"}) {
    if (before.ends_with(word)) token.unit = "line";
  }
}

// Extracts the claim starting at `start` (a digit); returns where scanning
// resumes, and sets `found` when a claim was extracted.
size_t ExtractAt(std::string_view text, size_t start, ClaimToken& token, bool& found) {
  found = false;
  if (start > 0 && (IsIdentifierChar(text[start - 1]) || text[start - 1] == '.')) {
    return SkipIdentifier(text, start);
  }
  size_t end = 0;
  if (InsideCallOrSubscript(text, start)) {
    while (start < text.size() && (IsIdentifierChar(text[start]) || text[start] == '.')) ++start;
    return start;
  }
  if (text[start] == '0' && start + 2 < text.size() && (text[start + 1] == 'x' || text[start + 1] == 'X') &&
      IsHexDigit(text[start + 2])) {
    end = start + 2;
    while (end < text.size() && IsHexDigit(text[end])) ++end;
    if (!AtWordEnd(text, end)) return SkipIdentifier(text, end);
    token.written = static_cast<double>(
        std::strtoull(std::string(text.substr(start + 2, end - start - 2)).c_str(), nullptr, 16));
    token.unit = "offset";
  } else {
    end = ParseDecimal(text, start, token);
    if (end == std::string_view::npos) return SkipIdentifier(text, start);
    if (IsListMarker(text, start, end) || IsOrdinalSuffix(text, end)) return SkipIdentifier(text, end);
    if (!ParseUnit(text, end, token)) return SkipIdentifier(text, end);
    ApplyContextUnit(text, start, token);
  }
  token.offset = start;
  token.text = std::string(text.substr(start, end - start));
  found = true;
  return end;
}

// "128–256 threads": the first number of a range takes the second's unit.
void ShareRangeUnits(std::string_view text, std::vector<ClaimToken>& tokens) {
  for (size_t index = tokens.size(); index-- > 1;) {
    ClaimToken& first = tokens[index - 1];
    const ClaimToken& second = tokens[index];
    if (!first.unit.empty() || second.unit.empty()) continue;
    size_t gap_start = first.offset + first.text.size();
    if (second.offset < gap_start) continue;
    std::string_view gap = text.substr(gap_start, second.offset - gap_start);
    for (std::string_view connector : {"-", "\u2013", "\u2014", " to ", " - ", " \u2013 ", " and "}) {
      if (gap == connector) {
        first.unit = second.unit;
        first.scale = second.scale;
      }
    }
  }
}

bool UnitsCompatible(const ClaimToken& claim, const EvidenceValue& evidence, double& evidence_value) {
  evidence_value = evidence.value;
  if (claim.unit.empty()) return true;
  if (claim.unit == evidence.unit) return true;
  if ((claim.unit == "%" || claim.unit == "x") && evidence.unit.empty()) {
    if (claim.unit == "%") evidence_value = evidence.value * 100;
    return true;
  }
  // "4 bytes per sector" vs byte/sector, "32 registers" vs register/thread.
  std::string prefix = claim.unit + "/";
  return evidence.unit.starts_with(prefix) && evidence.unit != claim.unit + "/s";
}

std::string CanonicalUnit(std::string_view unit, double& factor) {
  factor = 1;
  if (unit == "ns") return factor = 1e-9, "s";
  if (unit == "us" || unit == "\u00b5s") return factor = 1e-6, "s";
  if (unit == "ms") return factor = 1e-3, "s";
  if (unit == "fraction") return factor = 100, "%";
  if (unit == "B") return "byte";
  if (unit == "B/s") return "byte/s";
  if (unit == "bytes") return "byte";
  if (unit == "\u00d7") return "x";
  if (unit == "register/thread" || unit == "registers") return "register";
  if (unit.size() > 2 && unit.ends_with("s") && unit.find('/') == std::string_view::npos && unit != "FLOPS" &&
      unit != "Hz") {
    return std::string(unit.substr(0, unit.size() - 1));  // "sectors" → "sector"
  }
  return std::string(unit);
}

}  // namespace

std::vector<ClaimToken> ExtractNumericClaims(std::string_view text) {
  std::vector<bool> code = CodeMask(text);
  std::vector<ClaimToken> tokens;
  size_t index = 0;
  while (index < text.size()) {
    if (code[index]) {
      ++index;
      continue;
    }
    if (IsAsciiLetter(text[index]) || text[index] == '_') {  // sm_90, H200, float4: one word
      while (index < text.size() && IsIdentifierChar(text[index])) ++index;
      continue;
    }
    if (!IsDigit(text[index])) {
      ++index;
      continue;
    }
    ClaimToken token;
    bool found = false;
    size_t next = ExtractAt(text, index, token, found);
    if (found) tokens.push_back(std::move(token));
    index = std::max(next, index + 1);
  }
  ShareRangeUnits(text, tokens);
  return tokens;
}

void EvidenceSet::Add(std::string label, double value, std::string_view unit) {
  if (!std::isfinite(value)) return;
  double factor = 1;
  std::string canonical = CanonicalUnit(unit, factor);
  values_.push_back(EvidenceValue{std::move(label), std::fabs(value * factor), std::move(canonical)});
}

void EvidenceSet::AddNumbersIn(const std::string& label, std::string_view text) {
  for (const ClaimToken& token : ExtractNumericClaims(text)) {
    values_.push_back(EvidenceValue{label + ": \"" + token.text + "\"", token.Value(), token.unit});
  }
}

bool ValueSupports(const ClaimToken& claim, double evidence) {
  if (!std::isfinite(evidence) || claim.scale == 0) return false;
  double magnitude = std::fabs(evidence);
  double in_written_unit = magnitude / claim.scale;
  double power = std::pow(10.0, claim.decimals);
  double rounded = std::round(in_written_unit * power) / power;
  if (std::fabs(rounded - claim.written) <= 1e-9 * std::max(1.0, claim.written)) return true;
  double claimed = claim.Value();
  if (magnitude == 0) return claimed == 0;
  return std::fabs(magnitude - claimed) <= 0.02 * magnitude;
}

const EvidenceValue* EvidenceSet::Find(const ClaimToken& claim) const {
  for (const EvidenceValue& value : values_) {
    double comparable = 0;
    if (UnitsCompatible(claim, value, comparable) && ValueSupports(claim, comparable)) return &value;
  }
  // A plain number may be a percentage written as a fraction (0.45 for 45%).
  if (claim.unit.empty()) {
    for (const EvidenceValue& value : values_) {
      if (value.unit == "%" && ValueSupports(claim, value.value / 100)) return &value;
    }
  }
  return nullptr;
}

std::vector<NumericClaim> CheckNumericClaims(std::string_view text, const EvidenceSet& evidence) {
  std::vector<NumericClaim> claims;
  for (const ClaimToken& token : ExtractNumericClaims(text)) {
    NumericClaim claim;
    claim.text = token.text;
    claim.value = token.Value();
    claim.unit = token.unit;
    claim.offset = token.offset;
    if (const EvidenceValue* match = evidence.Find(token)) {
      claim.supported = true;
      claim.evidence_label = match->label;
      claim.evidence_value = match->value;
      claim.evidence_unit = match->unit;
    }
    claims.push_back(std::move(claim));
  }
  return claims;
}

std::string MarkUnsupportedClaims(std::string_view text, const std::vector<NumericClaim>& claims) {
  std::string marked;
  size_t copied = 0;
  for (const NumericClaim& claim : claims) {
    if (claim.supported) continue;
    size_t end = std::min(claim.offset + claim.text.size(), text.size());
    if (end < copied) continue;
    marked.append(text.substr(copied, end - copied));
    marked += " [unsupported]";
    copied = end;
  }
  marked.append(text.substr(copied));
  return marked;
}

}  // namespace kopt::agents
