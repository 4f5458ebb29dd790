#include "report/text_document.h"

#include <fmt/format.h>

#include "core/terminal_text.h"
#include "report/markup_escape.h"

namespace kopt {

namespace {

constexpr std::string_view kPageStyle =
    "body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em auto;max-width:70em;color:#111827}"
    "table{border-collapse:collapse;margin:0.5em 0 1em}td,th{border:1px solid #d1d5db;padding:3px 8px;"
    "font-size:13px;text-align:left}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "h2{border-bottom:2px solid #e5e7eb;margin-top:1.6em}svg.chart{display:block;margin:0.5em 0}";

}  // namespace

TextDocument::TextDocument(ReportFormat format, size_t width)
    : markdown_(format != ReportFormat::kTerminal && format != ReportFormat::kHtml),
      html_(format == ReportFormat::kHtml),
      width_(width) {}

std::string TextDocument::Clean(std::string_view text) const {
  return html_ ? EscapeHtml(text) : markdown_ ? EscapeMarkdown(text) : SanitizeForTerminal(text);
}

void TextDocument::CloseList() {
  if (html_ && in_list_) out_ += "</ul>\n";
  in_list_ = false;
}

void TextDocument::Title(std::string_view text) {
  CloseList();
  if (html_) {
    title_ = std::string(text);
    out_ += "<h1>" + Clean(text) + "</h1>\n";
    return;
  }
  out_ += markdown_ ? "# " + Clean(text) + "\n\n" : Clean(text) + "\n\n";
}

void TextDocument::Heading(std::string_view text) {
  CloseList();
  if (html_) {
    out_ += "<h2>" + Clean(text) + "</h2>\n";
    return;
  }
  out_ += markdown_ ? "## " + Clean(text) + "\n\n" : Clean(text) + "\n";
}

void TextDocument::Subheading(std::string_view text) {
  CloseList();
  if (html_) {
    out_ += "<h3>" + Clean(text) + "</h3>\n";
    return;
  }
  out_ += markdown_ ? "### " + Clean(text) + "\n\n" : "  " + Clean(text) + "\n";
}

void TextDocument::Chart(std::string_view svg) {
  CloseList();
  if (html_) out_ += std::string(svg) + "\n";
}

std::string TextDocument::str() const {
  if (!html_) return out_;
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + EscapeHtml(title_) +
         "</title><style>" + std::string(kPageStyle) + "</style></head>\n<body>\n" + out_ +
         (in_list_ ? "</ul>\n" : "") + "</body></html>\n";
}

void TextDocument::Paragraph(std::string_view text) {
  CloseList();
  if (html_) {
    out_ += "<p>" + Clean(text) + "</p>\n";
    return;
  }
  if (markdown_) {
    out_ += Clean(text) + "\n\n";
    return;
  }
  for (const std::string& line : WrapText(SanitizeForTerminal(text), width_ - 2)) out_ += "  " + line + "\n";
}

void TextDocument::Bullet(std::string_view text) {
  if (html_) {
    if (!in_list_) out_ += "<ul>\n";
    in_list_ = true;
    out_ += "<li>" + Clean(text) + "</li>\n";
    return;
  }
  if (markdown_) {
    out_ += "- " + Clean(text) + "\n";
    return;
  }
  bool first = true;
  for (const std::string& line : WrapText(SanitizeForTerminal(text), width_ - 6)) {
    out_ += (first ? "  - " : "    ") + line + "\n";
    first = false;
  }
}

void TextDocument::Table(const TextTable& table) {
  CloseList();
  if (html_) {
    out_ += "<table>\n";
    for (size_t r = 0; r < table.rows.size(); ++r) {
      out_ += "<tr>";
      for (size_t c = 0; c < table.rows[r].size(); ++c) {
        bool numeric = c < table.right_aligned.size() && table.right_aligned[c];
        const char* tag = r == 0 ? "th" : "td";
        out_ +=
            fmt::format("<{}{}>{}</{}>", tag, numeric ? " class=\"n\"" : "", Clean(table.rows[r][c]), tag);
      }
      out_ += "</tr>\n";
    }
    out_ += "</table>\n";
    return;
  }
  TextTable clean = table;
  for (auto& row : clean.rows)
    for (std::string& cell : row) cell = markdown_ ? MarkdownTableCell(cell) : SanitizeForTerminal(cell);
  if (markdown_) {
    out_ += MarkdownTable(clean, MarkdownRule::kSpaced) + "\n";
    return;
  }
  AlignedLayout layout;
  layout.indent = 2;
  layout.max_width = width_;
  for (const std::string& line : AlignedTableLines(clean, layout)) out_ += line + "\n";
}

void TextDocument::Blank() {
  if (!markdown_ && !html_) out_ += "\n";
}

}  // namespace kopt
