// Text for a terminal: the one sanitizer of untrusted text, and widths,
// padding, cutting and wrapping that count code points.
//
// Every string kopt did not write itself (kernel, candidate and file names,
// compiler and profiler output, LLM text, error messages quoting input) goes
// through SanitizeForTerminal before it reaches a terminal, so it cannot move
// the cursor, clear the screen, retitle the window or change colours. kopt's
// own colour codes are added after sanitizing, and the width functions count
// them as zero columns.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kopt {

// Replaces every control character with "?": C0 (ESC, CR, BEL, backspace, ...;
// tab is kept, a newline becomes a space), DEL, C1 (U+0080..U+009F, which
// includes the one-character CSI U+009B) and any byte that is not part of a
// valid UTF-8 sequence (a raw 0x9B is CSI on an 8-bit terminal). An ANSI
// escape sequence so loses its ESC and shows as inert text ("?[2J").
std::string SanitizeForTerminal(std::string_view text);

// SanitizeForTerminal for text of several lines (an error message quoting a
// compiler, a log line): each line sanitized, the newlines kept.
std::string SanitizeLinesForTerminal(std::string_view text);

// The number of code points in a UTF-8 string: its width on a terminal for
// the characters kopt prints (no wide CJK characters are assumed). ANSI
// escape sequences (ESC [ ... letter) count as zero width: kopt adds them
// only after SanitizeForTerminal removed any from untrusted text.
size_t DisplayWidth(std::string_view text);

// Pads with spaces on the right (left for PadLeft) to `width` code points.
std::string PadRight(std::string_view text, size_t width);
std::string PadLeft(std::string_view text, size_t width);

// Cuts `text` to at most `width` code points, marking a cut with "…".
std::string Truncate(std::string_view text, size_t width);

// Splits `text` into lines of at most `width` code points at spaces; words
// longer than a line are split. Never returns an empty vector.
std::vector<std::string> WrapText(std::string_view text, size_t width);

// `text` wrapped to lines of `width` code points: the first after `first_prefix`, the
// continuation lines indented to the prefix's width (at least 20 code points of text per line).
std::vector<std::string> WrapHanging(std::string_view first_prefix, std::string_view text, size_t width);

}  // namespace kopt
