#include "report/format.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kopt::report {
namespace {

TEST(RenderFormatTest, NumbersWithUnits) {
  EXPECT_EQ(FormatBandwidth(4.81e12), "4.81 TB/s");
  EXPECT_EQ(FormatDuration(57664), "57.7 µs");
  EXPECT_EQ(FormatDuration(850), "850 ns");
  EXPECT_EQ(FormatDuration(1.2e9), "1.2 s");
  EXPECT_EQ(FormatOperations(1.2e9), "1.2 GFLOP");
  EXPECT_EQ(FormatRate(66.9e12), "66.9 TFLOP/s");
  EXPECT_EQ(FormatBytes(221.9e6), "222 MB");
  EXPECT_EQ(FormatBytes(4096), "4.1 KB");
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatIntensity(0.16667), "0.167 FLOP/B");
  EXPECT_EQ(FormatPercent(80.08), "80.1%");
  EXPECT_EQ(FormatPercent(100), "100%");
  EXPECT_EQ(FormatFraction(0.887), "88.7%");
  EXPECT_EQ(FormatNumber(32), "32");
  EXPECT_EQ(FormatNumber(13.907), "13.9");
  EXPECT_EQ(FormatNumber(57664), "57664");
  EXPECT_EQ(FormatNumber(NAN), "n/a");
}

TEST(RenderFormatTest, RoundingMovesToTheNextPrefix) {
  EXPECT_EQ(FormatBandwidth(999.96e9), "1 TB/s");
  EXPECT_EQ(FormatDuration(999.9), "1 µs");
}

TEST(RenderFormatTest, MeasurementsInBaseUnits) {
  EXPECT_EQ(FormatMeasurement(80, "%"), "80.0%");
  EXPECT_EQ(FormatMeasurement(57664, "ns"), "57.7 µs");
  EXPECT_EQ(FormatMeasurement(2.15e9, "byte"), "2.15 GB");
  EXPECT_EQ(FormatMeasurement(3.85e12, "byte/s"), "3.85 TB/s");
  EXPECT_EQ(FormatMeasurement(32, "sector/request"), "32 sector/request");
  EXPECT_EQ(FormatMeasurement(1.2e6, "sector"), "1.2 Msector");
  EXPECT_EQ(FormatMeasurement(7.2, ""), "7.2");
}

TEST(RenderFormatTest, EscapesHtml) {
  EXPECT_EQ(EscapeHtml("<script>alert(1)</script> & \"q\" 'a'"),
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39;");
  EXPECT_EQ(EscapeHtml("a\x1b[31m"), "a\xEF\xBF\xBD[31m");
  EXPECT_EQ(EscapeHtml("µs"), "µs");
}

TEST(RenderFormatTest, EscapesMarkdown) {
  EXPECT_EQ(EscapeMarkdown("a*b_c|d <x> & `t`"), "a\\*b\\_c\\|d &lt;x&gt; &amp; \\`t\\`");
  EXPECT_EQ(EscapeMarkdown("line\nbreak"), "line break");
  EXPECT_EQ(MarkdownCode("float*, int"), "`float*, int`");
  EXPECT_EQ(MarkdownCode("a|b"), "`a\\|b`");
  EXPECT_EQ(MarkdownCode("has `tick`"), "`` has `tick` ``");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");
}

TEST(RenderFormatTest, SanitizesTerminalText) {
  EXPECT_EQ(SanitizeForTerminal("k\x1b[2J\x07\r\nx"), "k?[2J?? x");
  EXPECT_EQ(SanitizeForTerminal("csi\xC2\x9B"
                                "31m"),
            "csi?31m");
  EXPECT_EQ(SanitizeForTerminal("µs ×"), "µs ×");
}

TEST(RenderFormatTest, WidthsIgnoreEscapesAndCountCodePoints) {
  EXPECT_EQ(DisplayWidth("57.7 µs"), 7u);
  EXPECT_EQ(DisplayWidth("\x1b[1;31mred\x1b[0m"), 3u);
  EXPECT_EQ(PadRight("µs", 4), "µs  ");
  EXPECT_EQ(PadLeft("µs", 4), "  µs");
  EXPECT_EQ(Truncate("abcdef", 4), "abc…");
  EXPECT_EQ(Truncate("abc", 4), "abc");
}

TEST(RenderFormatTest, WrapsAtSpacesAndSplitsLongWords) {
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

}  // namespace
}  // namespace kopt::report
