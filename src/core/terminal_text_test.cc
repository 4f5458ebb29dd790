#include "core/terminal_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kopt {
namespace {

TEST(TerminalTextTest, SanitizesTerminalText) {
  EXPECT_EQ(SanitizeForTerminal("k\x1b[2J\x07\r\nx"), "k?[2J?? x");
  EXPECT_EQ(SanitizeForTerminal("csi\xC2\x9B"
                                "31m"),
            "csi?31m");
  EXPECT_EQ(SanitizeForTerminal("µs ×"), "µs ×");
}

// Hostile strings as a candidate name, a compiler message or LLM text could
// carry them: none may reach the terminal with a control character left.
TEST(TerminalTextTest, NeutralizesHostileStrings) {
  EXPECT_EQ(SanitizeForTerminal("\x1b]0;pwned\x07title"), "?]0;pwned?title");  // OSC: retitle the window
  EXPECT_EQ(SanitizeForTerminal("ok\rFAIL"), "ok?FAIL");                       // carriage return overwrite
  EXPECT_EQ(SanitizeForTerminal("beep\x07\x07"), "beep??");                    // BEL
  EXPECT_EQ(SanitizeForTerminal("raw\x9b"
                                "2J"),
            "raw?2J");  // a raw 8-bit CSI byte
  EXPECT_EQ(SanitizeForTerminal("\x1b[31mred\x1b[0m"), "?[31mred?[0m");
  EXPECT_EQ(SanitizeForTerminal("back\bspace\x7f"), "back?space?");
  EXPECT_EQ(SanitizeForTerminal("tab\tkept"), "tab\tkept");
  EXPECT_EQ(SanitizeForTerminal("cut\xE2\x96"), "cut??");    // truncated UTF-8
  EXPECT_EQ(SanitizeForTerminal("over\xC0\x9B"), "over??");  // overlong encoding of CSI
  EXPECT_EQ(SanitizeForTerminal("bar █ µ ✓"), "bar █ µ ✓");  // valid UTF-8 whose bytes include 0x80..0x9F
  std::string all;
  for (int byte = 0; byte < 256; ++byte) all += static_cast<char>(byte);
  std::string clean = SanitizeForTerminal(all);
  for (char character : clean) {
    auto byte = static_cast<unsigned char>(character);
    EXPECT_FALSE((byte < 0x20 && byte != '\t') || byte == 0x7F || (byte >= 0x80 && byte <= 0x9F))
        << int(byte);
  }
  EXPECT_EQ(DisplayWidth(clean), clean.size());
}

TEST(TerminalTextTest, SanitizesLinesKeepingNewlines) {
  EXPECT_EQ(SanitizeLinesForTerminal("a.cu(3): error\x1b[2J\nb\r\n"), "a.cu(3): error?[2J\nb?\n");
  EXPECT_EQ(SanitizeLinesForTerminal(""), "");
}

TEST(TerminalTextTest, WidthsIgnoreEscapesAndCountCodePoints) {
  EXPECT_EQ(DisplayWidth("57.7 µs"), 7u);
  EXPECT_EQ(DisplayWidth("\x1b[1;31mred\x1b[0m"), 3u);
  EXPECT_EQ(PadRight("µs", 4), "µs  ");
  EXPECT_EQ(PadLeft("µs", 4), "  µs");
  EXPECT_EQ(Truncate("abcdef", 4), "abc…");
  EXPECT_EQ(Truncate("abc", 4), "abc");
}

TEST(TerminalTextTest, WrapsAtSpacesAndSplitsLongWords) {
  std::vector<std::string> lines = WrapText("the quick brown fox jumps", 10);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "the quick");
  EXPECT_EQ(lines[1], "brown fox");
  EXPECT_EQ(lines[2], "jumps");
  lines = WrapText("abcdefghijklmnopqrstuvwxy", 10);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "uvwxy");
  EXPECT_EQ(WrapText("", 10).size(), 1u);
}

TEST(TerminalTextTest, WrapHangingIndentsContinuationsUnderTheText) {
  std::vector<std::string> lines =
      WrapHanging("    trigger: ", "one two three four five six seven eight nine ten eleven", 40);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "    trigger: one two three four five six");
  EXPECT_EQ(lines[1], "             seven eight nine ten eleven");
}

// A metric name too long for its column breaks between its parts, never mid-word (issue 35).
TEST(TerminalTextTest, LongMetricNamesBreakBetweenTheirParts) {
  std::vector<std::string> lines =
      WrapText("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", 40);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "sm__inst_executed_pipe_fma.avg.pct_of_");
  EXPECT_EQ(lines[1], "peak_sustained_active");
}

}  // namespace
}  // namespace kopt
