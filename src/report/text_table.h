// The one table helper of kopt's text outputs: aligned columns for a
// terminal (explain, bench, gpus) and GitHub-flavoured Markdown tables
// (explain, bench, gpus). Cells are written as given: sanitize them for a
// terminal (SanitizeForTerminal) or escape them for Markdown first.
//
// Thread safety: values and pure functions.
#pragma once

#include <string>
#include <vector>

namespace kopt {

// A table: rows[0] is the header. right_aligned[c] puts column c's cells at
// its right edge (missing entries: left). A row shorter than the header
// leaves its last cells empty.
struct TextTable {
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_aligned;
};

struct AlignedLayout {
  size_t indent = 0;  // spaces before every line
  // The width of a line: the last column (keep long free text there) is cut
  // with "…" to fit it, at least 8 columns wide. 0: no limit.
  size_t max_width = 0;
  bool wrap_last = false;  // wrap the last column onto continuation lines instead of cutting it
};

// The table as terminal lines: each column as wide as its widest cell
// (DisplayWidth: code points, colour codes count zero), two spaces between
// columns, trailing spaces removed. A wrapped last column continues on lines
// indented to its start; the header's is cut, never wrapped, so lines[0] is
// always the header.
std::vector<std::string> AlignedTableLines(const TextTable& table, const AlignedLayout& layout);

// How a Markdown alignment rule is spaced: "| --- | ---: |" or "|---|---:|".
enum class MarkdownRule { kSpaced, kCompact };

// "| a | b |\n": the cells joined into one Markdown table row.
std::string MarkdownTableRow(const std::vector<std::string>& cells);

// The row under a Markdown table's header for `columns` columns, "---:" for
// the right-aligned ones; ends with "\n".
std::string MarkdownTableRule(size_t columns, const std::vector<bool>& right_aligned, MarkdownRule rule);

// The whole table: header row, rule, rows.
std::string MarkdownTable(const TextTable& table, MarkdownRule rule);

}  // namespace kopt
