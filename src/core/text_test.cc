#include "core/text.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(ParseNumber, PlainAndSeparated) {
  EXPECT_DOUBLE_EQ(*ParseNumber("57664"), 57664);
  EXPECT_DOUBLE_EQ(*ParseNumber("16,384"), 16384);
  EXPECT_DOUBLE_EQ(*ParseNumber("3,198,734,508.97"), 3198734508.97);
  EXPECT_DOUBLE_EQ(*ParseNumber("-1.5e3"), -1500);
  EXPECT_DOUBLE_EQ(*ParseNumber(" 87.44 "), 87.44);
  EXPECT_DOUBLE_EQ(*ParseNumber("+2"), 2);
}

TEST(ParseNumber, RejectsNonNumbers) {
  for (const char* text : {"", "nan", "no data", "inf", "1,2", "12,34,567", "0x10", "1.2.3x", "(256, 1, 1)",
                           "1,234,56", ",123", "1e999"}) {
    EXPECT_FALSE(ParseNumber(text).has_value()) << text;
  }
}

TEST(ParseInteger, Basics) {
  EXPECT_EQ(*ParseInteger("42"), 42);
  EXPECT_FALSE(ParseInteger("4x").has_value());
  EXPECT_FALSE(ParseInteger("99999999999999999999999").has_value());
}

TEST(SplitLines, HandlesCrLfAndNoTrailingNewline) {
  auto lines = SplitLines("a\r\nb\nc");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "a");
  EXPECT_EQ(lines[2], "c");
}

TEST(LooksBinary, DetectsNulAndInvalidUtf8) {
  EXPECT_FALSE(LooksBinary("\"ID\",\"Kernel Name\"\nμs ok"));
  EXPECT_TRUE(LooksBinary(std::string("abc\0def", 7)));
  EXPECT_TRUE(LooksBinary("\xff\xfe\x01"));
}

TEST(SingleQuoted, QuotesAsIs) {
  EXPECT_EQ(SingleQuoted("app.cu"), "'app.cu'");
  EXPECT_EQ(SingleQuoted(""), "''");
  EXPECT_EQ(SingleQuoted("it's \"x\""), "'it's \"x\"'");
}

TEST(SecondsText, PrintsShortestGeneralForm) {
  EXPECT_EQ(SecondsText(600), "600");
  EXPECT_EQ(SecondsText(0.5), "0.5");
  EXPECT_EQ(SecondsText(1e-5), "1e-05");
  EXPECT_EQ(SecondsText(2.25), "2.25");
}

TEST(Abbreviate, CutsLongText) {
  EXPECT_EQ(Abbreviate("short", 10), "short");
  EXPECT_EQ(Abbreviate("abcdefghij", 5), "abcd…");
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

TEST(TextTest, Contains) {
  EXPECT_TRUE(Contains("No kernels were profiled", "kernels were"));
  EXPECT_TRUE(Contains("abc", ""));
  EXPECT_FALSE(Contains("abc", "abcd"));
  EXPECT_FALSE(Contains("", "a"));
}

TEST(TextTest, IsIdentifier) {
  EXPECT_TRUE(IsIdentifier("BLOCK_SIZE"));
  EXPECT_TRUE(IsIdentifier("_x9"));
  EXPECT_FALSE(IsIdentifier(""));
  EXPECT_FALSE(IsIdentifier("9x"));
  EXPECT_FALSE(IsIdentifier("a-b"));
  EXPECT_FALSE(IsIdentifier("caf\xc3\xa9"));
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

TEST(TextTest, ParseSignedInteger) {
  EXPECT_EQ(ParseSignedInteger(" -12 "), -12);
  EXPECT_EQ(ParseSignedInteger("+7"), 7);
  EXPECT_EQ(ParseSignedInteger("0"), 0);
  EXPECT_EQ(ParseSignedInteger(""), std::nullopt);
  EXPECT_EQ(ParseSignedInteger("1.5"), std::nullopt);
  EXPECT_EQ(ParseSignedInteger("99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseSignedInteger("1,000"), std::nullopt);
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

TEST(TextTest, SplitWords) {
  EXPECT_EQ(SplitWords("  NAME key=1\tkey=2 \r"), (std::vector<std::string_view>{"NAME", "key=1", "key=2"}));
  EXPECT_TRUE(SplitWords(" \t ").empty());
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

TEST(TextTest, DidYouMeanNamesTheNearestCandidate) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(DidYouMean("uncoalesced_load", {"uncoalesced_loads", "uncoalesced_stores"}),
            " (did you mean \"uncoalesced_loads\"?)");
  EXPECT_EQ(DidYouMean("zzzz", {"uncoalesced_loads", "tail_effect"}), "");
}

TEST(TextTest, AlternativesTextListsNamesWithOrBeforeTheLast) {
  EXPECT_EQ(AlternativesText({}), "");
  EXPECT_EQ(AlternativesText({"mcts"}), "mcts");
  EXPECT_EQ(AlternativesText({"llm", "builtin"}), "llm or builtin");
  EXPECT_EQ(AlternativesText({"scripted", "llm", "builtin"}), "scripted, llm or builtin");
}

}  // namespace
}  // namespace kopt
