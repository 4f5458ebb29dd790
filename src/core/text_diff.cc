#include "core/text_diff.h"

#include <dtl/dtl.hpp>
#include <sstream>
#include <vector>

#include "core/text.h"

namespace kopt {
namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  for (std::string_view line : SplitLines(text)) lines.emplace_back(line);
  return lines;
}

}  // namespace

std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view before_name,
                        std::string_view after_name) {
  if (before == after) return "";
  std::vector<std::string> before_lines = Lines(before);
  std::vector<std::string> after_lines = Lines(after);
  dtl::Diff<std::string> diff(before_lines, after_lines);
  diff.onHuge();
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  out << "--- " << before_name << "\n+++ " << after_name << "\n";
  diff.printUnifiedFormat(out);
  return out.str();
}

DiffStatistics CountChangedLines(std::string_view before, std::string_view after) {
  std::vector<std::string> before_lines = Lines(before);
  std::vector<std::string> after_lines = Lines(after);
  dtl::Diff<std::string> diff(before_lines, after_lines);
  diff.onHuge();
  diff.compose();
  DiffStatistics statistics;
  for (const auto& element : diff.getSes().getSequence()) {
    if (element.second.type == dtl::SES_ADD) ++statistics.added_lines;
    if (element.second.type == dtl::SES_DELETE) ++statistics.removed_lines;
  }
  return statistics;
}

}  // namespace kopt
