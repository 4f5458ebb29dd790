#include "core/units.h"

#include <array>
#include <utility>

namespace kopt {
namespace {

// Unit words that may carry a decimal prefix in ncu's auto-scaled output.
constexpr std::array<std::string_view, 14> kScalableWords = {
    "byte",   "hz",      "inst",  "cycle",    "sector", "sectors",  "warp",
    "thread", "request", "block", "branches", "sample", "register", "pass"};

double PrefixFactor(char prefix) {
  switch (prefix) {
    case 'K':
    case 'k': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    default: return 0;
  }
}

// Time words relative to the base time unit `to` ("ns" for durations, "s" in
// rates): returns the factor that converts one `word` into `to`.
std::optional<double> SecondsIn(std::string_view word) {
  if (word == "s" || word == "second") return 1.0;
  if (word == "ms" || word == "msecond") return 1e-3;
  if (word == "us" || word == "usecond") return 1e-6;
  if (word == "ns" || word == "nsecond") return 1e-9;
  return std::nullopt;
}

// Splits one unit word ("Mbyte", "Ghz", "byte") into (factor, base word).
std::pair<double, std::string> NormalizeWord(std::string_view word) {
  for (std::string_view base : kScalableWords) {
    if (word == base) return {1.0, std::string(base)};
    if (word.size() == base.size() + 1 && word.substr(1) == base) {
      double factor = PrefixFactor(word[0]);
      if (factor != 0) return {factor, std::string(base)};
    }
  }
  return {1.0, std::string(word)};
}

bool IsKnownWord(std::string_view word) {
  if (SecondsIn(word) || word == "SM" || word == "cluster" || word == "%") return true;
  for (std::string_view base : kScalableWords) {
    if (word == base) return true;
    if (word.size() == base.size() + 1 && word.substr(1) == base && PrefixFactor(word[0]) != 0) return true;
  }
  return false;
}

}  // namespace

bool IsKnownUnit(std::string_view unit) {
  if (unit.empty() || unit == "%") return true;
  size_t slash = unit.find('/');
  if (slash == std::string_view::npos) return IsKnownWord(unit);
  std::string_view denominator = unit.substr(slash + 1);
  return denominator.find('/') == std::string_view::npos && IsKnownWord(unit.substr(0, slash)) &&
         IsKnownWord(denominator);
}

BaseQuantity ToBaseUnits(double value, std::string_view unit) {
  if (unit.empty() || unit == "%") return {value, std::string(unit)};
  size_t slash = unit.find('/');
  std::string_view numerator = unit.substr(0, slash);
  std::string_view denominator = slash == std::string_view::npos ? "" : unit.substr(slash + 1);
  if (denominator.find('/') != std::string_view::npos) return {value, std::string(unit)};

  double factor = 1.0;
  std::string result;
  if (auto seconds = SecondsIn(numerator); seconds && denominator.empty()) {
    factor = *seconds / 1e-9;  // durations in ns
    result = "ns";
  } else {
    auto [word_factor, word] = NormalizeWord(numerator);
    factor = word_factor;
    result = word;
  }
  if (!denominator.empty()) {
    if (auto seconds = SecondsIn(denominator)) {
      factor /= *seconds;  // per ns → per s
      result += "/s";
    } else {
      auto [word_factor, word] = NormalizeWord(denominator);
      factor /= word_factor;
      result += "/" + word;
    }
  }
  return {value * factor, result};
}

}  // namespace kopt
