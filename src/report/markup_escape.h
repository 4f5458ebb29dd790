// Escaping of untrusted text for the markup formats: HTML (and SVG) and
// Markdown. Terminal text has its own sanitizer (core/terminal_text.h).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kopt {

// Escapes &, <, >, " and ' for HTML text and attribute values (and SVG).
// Control characters other than tab and newline become U+FFFD.
std::string EscapeHtml(std::string_view text);

// Escapes Markdown punctuation (\ ` * _ [ ] < > | & ~ #) so untrusted text
// renders literally; newlines become spaces.
std::string EscapeMarkdown(std::string_view text);

// A Markdown code span that shows `text` literally, also inside table cells
// ("|" is escaped, newlines become spaces, backticks get a longer fence).
std::string MarkdownCode(std::string_view text);

// Text that keeps a Markdown table row intact and nothing more: "|" becomes
// "\|", CR and LF become spaces, other control characters but tab "?". For
// cells and lines of plain text (numbers, names) that need no other escaping.
std::string MarkdownTableCell(std::string_view text);

}  // namespace kopt
