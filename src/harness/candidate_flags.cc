#include "harness/candidate_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "core/text.h"

namespace kopt {
namespace {

constexpr std::string_view kDirective = "kopt:nvcc";

constexpr std::string_view kAcceptedForms =
    "-use_fast_math, -prec-div=true|false, -prec-sqrt=true|false, -ftz=true|false, -fmad=true|false, "
    "-maxrregcount=N (16..255), -Xptxas=-dlcm=ca|cg|cs, -Xptxas=-dscm=cg|cs|wt, -Xptxas=-O0..3, "
    "--extra-device-vectorization";

bool IsMaxRegisterCount(std::string_view flag) {
  constexpr std::string_view kPrefix = "-maxrregcount=";
  if (flag.substr(0, kPrefix.size()) != kPrefix) return false;
  std::string_view digits = flag.substr(kPrefix.size());
  int value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return error == std::errc() && end == digits.data() + digits.size() && value >= 16 && value <= 255;
}

// The text after "// kopt:nvcc" on a line, or nullopt when the line has none.
std::optional<std::string_view> FlagsOfLine(std::string_view line) {
  size_t comment = line.find("//");
  if (comment == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(comment + 2);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (rest.substr(0, kDirective.size()) != kDirective) return std::nullopt;
  rest.remove_prefix(kDirective.size());
  if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') return std::nullopt;
  return rest;
}

}  // namespace

bool IsAllowedCandidateFlag(std::string_view flag) {
  static constexpr std::array<std::string_view, 16> kExact = {
      "-use_fast_math",     "--use_fast_math",    "-prec-div=true",      "-prec-div=false",
      "-prec-sqrt=true",    "-prec-sqrt=false",   "-ftz=true",           "-ftz=false",
      "-fmad=true",         "-fmad=false",        "-Xptxas=-dlcm=ca",    "-Xptxas=-dlcm=cg",
      "-Xptxas=-dlcm=cs",   "-Xptxas=-dscm=cg",   "-Xptxas=-dscm=cs",    "-Xptxas=-dscm=wt",
  };
  static constexpr std::array<std::string_view, 5> kMore = {
      "-Xptxas=-O0", "-Xptxas=-O1", "-Xptxas=-O2", "-Xptxas=-O3", "--extra-device-vectorization"};
  if (std::find(kExact.begin(), kExact.end(), flag) != kExact.end()) return true;
  if (std::find(kMore.begin(), kMore.end(), flag) != kMore.end()) return true;
  return IsMaxRegisterCount(flag);
}

Result<std::vector<std::string>> CandidateCompileFlags(std::string_view source, std::string_view file) {
  std::vector<std::string> flags;
  size_t start = 0;
  for (int line_number = 1; start <= source.size(); ++line_number) {
    size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    std::optional<std::string_view> text = FlagsOfLine(source.substr(start, end - start));
    start = end + 1;
    if (!text) continue;
    std::vector<std::string_view> words = SplitWords(*text);
    if (words.empty()) {
      return InvalidInput(fmt::format("{}:{}: kopt:nvcc names no flag; accepted: {}", file, line_number,
                                      kAcceptedForms));
    }
    for (size_t i = 0; i < words.size(); ++i) {
      std::string flag(words[i]);
      if (flag == "-Xptxas" && i + 1 < words.size()) flag = "-Xptxas=" + std::string(words[++i]);
      if (!IsAllowedCandidateFlag(flag)) {
        return InvalidInput(fmt::format("{}:{}: kopt:nvcc {}: not an accepted flag; accepted: {}", file,
                                        line_number, flag, kAcceptedForms));
      }
      if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(std::move(flag));
    }
  }
  return flags;
}

std::string CandidateFlagsLine(const std::vector<std::string>& flags) {
  return fmt::format("// {} {}", kDirective, fmt::join(flags, " "));
}

}  // namespace kopt
