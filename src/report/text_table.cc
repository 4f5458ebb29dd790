#include "report/text_table.h"

#include <algorithm>

#include "core/terminal_text.h"

namespace kopt {
namespace {

bool RightAligned(const std::vector<bool>& right_aligned, size_t column) {
  return column < right_aligned.size() && right_aligned[column];
}

}  // namespace

std::vector<std::string> AlignedTableLines(const TextTable& table, const AlignedLayout& layout) {
  std::vector<std::string> lines;
  if (table.rows.empty() || table.rows.front().empty()) return lines;
  size_t columns = table.rows.front().size();
  std::vector<size_t> widths(columns, 0);
  for (const auto& row : table.rows) {
    for (size_t column = 0; column < columns && column < row.size(); ++column) {
      widths[column] = std::max(widths[column], DisplayWidth(row[column]));
    }
  }
  size_t used = layout.indent;
  for (size_t column = 0; column + 1 < columns; ++column) used += widths[column] + 2;
  if (layout.max_width > 0) {
    size_t last_width = layout.max_width > used + 8 ? layout.max_width - used : 8;
    widths[columns - 1] = std::min(widths[columns - 1], last_width);
  }
  bool last_right = RightAligned(table.right_aligned, columns - 1);
  std::string continuation(used, ' ');
  for (size_t row_index = 0; row_index < table.rows.size(); ++row_index) {
    const auto& row = table.rows[row_index];
    std::string line(layout.indent, ' ');
    std::vector<std::string> last_lines = {""};
    for (size_t column = 0; column < columns && column < row.size(); ++column) {
      if (column + 1 == columns) {
        last_lines = layout.wrap_last && row_index > 0
                         ? WrapText(row[column], widths[column])
                         : std::vector<std::string>{Truncate(row[column], widths[column])};
        break;
      }
      bool right = RightAligned(table.right_aligned, column);
      line += (right ? PadLeft(row[column], widths[column]) : PadRight(row[column], widths[column])) + "  ";
    }
    for (size_t index = 0; index < last_lines.size(); ++index) {
      std::string cell = last_right ? PadLeft(last_lines[index], widths[columns - 1]) : last_lines[index];
      std::string text = (index == 0 ? line : continuation) + cell;
      while (!text.empty() && text.back() == ' ') text.pop_back();
      lines.push_back(std::move(text));
    }
  }
  return lines;
}

std::string MarkdownTableRow(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& cell : cells) row += " " + cell + " |";
  return row + "\n";
}

std::string MarkdownTableRule(size_t columns, const std::vector<bool>& right_aligned, MarkdownRule rule) {
  std::string text = "|";
  for (size_t column = 0; column < columns; ++column) {
    bool right = RightAligned(right_aligned, column);
    if (rule == MarkdownRule::kSpaced) {
      text += right ? " ---: |" : " --- |";
    } else {
      text += right ? "---:|" : "---|";
    }
  }
  return text + "\n";
}

std::string MarkdownTable(const TextTable& table, MarkdownRule rule) {
  if (table.rows.empty()) return "";
  std::string text = MarkdownTableRow(table.rows.front());
  text += MarkdownTableRule(table.rows.front().size(), table.right_aligned, rule);
  for (size_t index = 1; index < table.rows.size(); ++index) text += MarkdownTableRow(table.rows[index]);
  return text;
}

}  // namespace kopt
