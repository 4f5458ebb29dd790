// A small writer of a report as terminal text, Markdown or a self-contained
// HTML page from the same calls (used by the diff, versions and sweep
// reports): a title, headings, paragraphs, bullets, tables, and (HTML only)
// inline SVG charts. Every string given is untrusted: terminal output passes
// through SanitizeForTerminal (core/terminal_text.h), Markdown through
// EscapeMarkdown / MarkdownTableCell, HTML through EscapeHtml
// (report/markup_escape.h); text tables go through report/text_table.h.
//
// Thread safety: one writer per report; not shared.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/report_format.h"
#include "report/text_table.h"

namespace kopt {

class TextDocument {
 public:
  // kTerminal, kMarkdown or kHtml (anything else writes Markdown).
  explicit TextDocument(ReportFormat format, size_t width = 100);

  void Title(std::string_view text);
  void Heading(std::string_view text);
  void Subheading(std::string_view text);
  void Paragraph(std::string_view text);
  void Bullet(std::string_view text);
  // rows[0] is the header; cells are plain text.
  void Table(const TextTable& table);
  void Blank();
  // HTML only (ignored otherwise): a chart, written as given (the SVG
  // helpers of report/svg_charts.h escape what they embed).
  void Chart(std::string_view svg);

  bool html() const { return html_; }
  // The whole report (HTML: the page, closed).
  std::string str() const;

 private:
  std::string Clean(std::string_view text) const;
  void CloseList();
  bool markdown_;
  bool html_;
  bool in_list_ = false;
  std::string title_;
  size_t width_;
  std::string out_;
};

}  // namespace kopt
