#include "report/text_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kopt {
namespace {

TEST(TextTableTest, AlignsColumnsByCodePoints) {
  TextTable table{{{"name", "time", "note"}, {"a", "57.7 µs", "x"}, {"longer", "1 s", ""}},
                  {false, true, false}};
  std::vector<std::string> lines = AlignedTableLines(table, {});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "name       time  note");
  EXPECT_EQ(lines[1], "a       57.7 µs  x");
  EXPECT_EQ(lines[2], "longer      1 s");  // trailing spaces removed
}

TEST(TextTableTest, IndentsAndRightAlignsTheLastColumn) {
  TextTable table{{{"GPU", "SMs"}, {"h100", "132"}, {"t4", "40"}}, {false, true}};
  std::vector<std::string> lines = AlignedTableLines(table, {.indent = 2});
  EXPECT_EQ(lines[1], "  h100  132");
  EXPECT_EQ(lines[2], "  t4     40");
}

TEST(TextTableTest, CutsOrWrapsTheLastColumnToTheWidth) {
  TextTable table{{{"k", "text"}, {"1", "the quick brown fox jumps over"}}, {}};
  std::vector<std::string> cut = AlignedTableLines(table, {.max_width = 15});
  EXPECT_EQ(cut[1], "1  the quick b…");
  std::vector<std::string> wrapped = AlignedTableLines(table, {.max_width = 15, .wrap_last = true});
  ASSERT_GE(wrapped.size(), 3u);
  EXPECT_EQ(wrapped[1], "1  the quick");
  EXPECT_EQ(wrapped[2], "   brown fox");
}

TEST(TextTableTest, ColourCodesTakeNoWidth) {
  TextTable table{{{"a", "b"}, {"\x1b[1mx\x1b[0m", "y"}, {"zz", "w"}}, {}};
  std::vector<std::string> lines = AlignedTableLines(table, {});
  EXPECT_EQ(lines[1], "\x1b[1mx\x1b[0m   y");
  EXPECT_EQ(lines[2], "zz  w");
}

TEST(TextTableTest, WritesMarkdownTables) {
  TextTable table{{{"name", "value"}, {"a", "1"}}, {false, true}};
  EXPECT_EQ(MarkdownTable(table, MarkdownRule::kSpaced), "| name | value |\n| --- | ---: |\n| a | 1 |\n");
  EXPECT_EQ(MarkdownTable(table, MarkdownRule::kCompact), "| name | value |\n|---|---:|\n| a | 1 |\n");
  EXPECT_EQ(MarkdownTableRow({}), "|\n");
}

}  // namespace
}  // namespace kopt
