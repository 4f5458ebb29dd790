#include "optimize/change_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>

#include "core/text.h"

namespace kopt {
namespace {

// The constructs of a source in order of appearance, each once.
std::vector<std::string> Constructs(std::string_view source) {
  static const std::regex kConstruct(
      R"(#include\s*[<"][^>"]+[>"]|#pragma\s+unroll|\b(?:cute|cutlass|cub|cooperative_groups|wmma|nvcuda|cuda)(?:::[A-Za-z_]\w*)+|\b__[a-z][a-z0-9_]*\b|\b(?:float|double|int|uint|half|bfloat16|__half|__nv_bfloat16)[248]\b)");
  std::vector<std::string> found;
  std::set<std::string> seen;
  std::string text(source);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kConstruct); it != std::sregex_iterator();
       ++it) {
    std::string construct = std::regex_replace(it->str(), std::regex(R"(\s+)"), " ");
    if (seen.insert(construct).second) found.push_back(construct);
  }
  return found;
}

bool IsLibraryConstruct(const std::string& construct) {
  return StartsWith(construct, "cute::") || StartsWith(construct, "cutlass::") ||
         construct.find("<cute/") != std::string::npos || construct.find("<cutlass/") != std::string::npos;
}

}  // namespace

SourceChange DescribeSourceChange(std::string_view parent, std::string_view child) {
  SourceChange change;
  change.lines = CountChangedLines(parent, child);
  std::vector<std::string> before = Constructs(parent);
  std::set<std::string> known(before.begin(), before.end());
  for (const std::string& construct : Constructs(child)) {
    if (known.count(construct) == 0 && change.new_constructs.size() < kMaxConstructs) {
      change.new_constructs.push_back(construct);
    }
    if (IsLibraryConstruct(construct) && change.library_constructs.size() < kMaxConstructs) {
      change.library_constructs.push_back(construct);
    }
  }
  return change;
}

std::string FormatSourceChange(const SourceChange& change) {
  std::string text = fmt::format("+{} -{} lines", change.lines.added_lines, change.lines.removed_lines);
  if (!change.new_constructs.empty())
    text += fmt::format("; new: {}", fmt::join(change.new_constructs, ", "));
  return text;
}

std::string StatedChange(std::string_view response_text, size_t max_chars) {
  size_t fence = response_text.find("```");
  std::string prose(TrimWhitespace(response_text.substr(0, fence)));
  if (prose.empty()) return "";
  // The first sentence: up to ". " / ".\n" or the first blank line.
  size_t end = prose.size();
  for (std::string_view stop : {". ", ".\n", "\n\n"}) {
    size_t at = prose.find(stop);
    if (at != std::string::npos) end = std::min(end, stop[0] == '.' ? at + 1 : at);
  }
  std::string sentence = prose.substr(0, end);
  std::replace(sentence.begin(), sentence.end(), '\n', ' ');
  if (sentence.size() <= max_chars) return sentence;
  size_t cut = sentence.rfind(' ', max_chars);
  return sentence.substr(0, cut == std::string::npos || cut == 0 ? max_chars : cut) + "…";
}

}  // namespace kopt
