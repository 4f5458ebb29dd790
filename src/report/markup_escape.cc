#include "report/markup_escape.h"

#include <algorithm>

namespace kopt {
namespace {

bool IsControl(unsigned char character) {
  return character < 0x20 || character == 0x7F;
}

// Appends `character` as Markdown text outside any markup: CR and LF as a
// space, other control characters but tab as "?".
void AppendPlain(char character, std::string& out) {
  if (character == '\n' || character == '\r') {
    out += ' ';
  } else if (IsControl(static_cast<unsigned char>(character)) && character != '\t') {
    out += '?';
  } else {
    out += character;
  }
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 8);
  for (char character : text) {
    switch (character) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      case '\t':
      case '\n': escaped += character; break;
      default:
        if (IsControl(static_cast<unsigned char>(character))) {
          escaped += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          escaped += character;
        }
    }
  }
  return escaped;
}

std::string EscapeMarkdown(std::string_view text) {
  constexpr std::string_view kSpecial = "\\`*_[]<>|&~#";
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 4);
  for (char character : text) {
    if (character == '&') {
      escaped += "&amp;";
    } else if (character == '<') {
      escaped += "&lt;";
    } else if (character == '>') {
      escaped += "&gt;";
    } else if (kSpecial.find(character) != std::string_view::npos) {
      escaped += '\\';
      escaped += character;
    } else {
      AppendPlain(character, escaped);
    }
  }
  return escaped;
}

std::string MarkdownTableCell(std::string_view text) {
  std::string cell;
  cell.reserve(text.size());
  for (char character : text) {
    if (character == '|') {
      cell += "\\|";
    } else {
      AppendPlain(character, cell);
    }
  }
  return cell;
}

std::string MarkdownCode(std::string_view text) {
  size_t longest_run = 0, run = 0;
  for (char character : text) {
    run = character == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
  }
  std::string body = MarkdownTableCell(text);
  std::string fence(longest_run + 1, '`');
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace kopt
