#include "core/text_diff.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::HasSubstr;

TEST(TextDiffTest, EqualTextsHaveNoDiff) { EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n", "x", "y"), ""); }

TEST(TextDiffTest, AChangedLineIsOneRemovalAndOneAddition) {
  std::string before = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";
  std::string after = "one\ntwo\nthree\nFOUR\nfive\nsix\nseven\neight\n";
  std::string diff = UnifiedDiff(before, after, "n1.cu", "n2.cu");
  EXPECT_THAT(diff, HasSubstr("--- n1.cu\n+++ n2.cu\n"));
  EXPECT_THAT(diff, HasSubstr("@@ -1,7 +1,7 @@"));
  EXPECT_THAT(diff, HasSubstr("-four\n"));
  EXPECT_THAT(diff, HasSubstr("+FOUR\n"));
  DiffStatistics counts = CountChangedLines(before, after);
  EXPECT_EQ(counts.added_lines, 1);
  EXPECT_EQ(counts.removed_lines, 1);
}

TEST(TextDiffTest, AddedLinesAreCounted) {
  DiffStatistics counts = CountChangedLines("a\n", "a\nb\nc\n");
  EXPECT_EQ(counts.added_lines, 2);
  EXPECT_EQ(counts.removed_lines, 0);
}

}  // namespace
}  // namespace kopt
