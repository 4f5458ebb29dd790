#include "report/markup_escape.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(MarkupEscapeTest, EscapesHtml) {
  EXPECT_EQ(EscapeHtml("<script>alert(1)</script> & \"q\" 'a'"),
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39;");
  EXPECT_EQ(EscapeHtml("a\x1b[31m"), "a\xEF\xBF\xBD[31m");
  EXPECT_EQ(EscapeHtml("µs"), "µs");
}

TEST(MarkupEscapeTest, EscapesMarkdown) {
  EXPECT_EQ(EscapeMarkdown("a*b_c|d <x> & `t`"), "a\\*b\\_c\\|d &lt;x&gt; &amp; \\`t\\`");
  EXPECT_EQ(EscapeMarkdown("line\nbreak"), "line break");
  EXPECT_EQ(MarkdownCode("float*, int"), "`float*, int`");
  EXPECT_EQ(MarkdownCode("a|b"), "`a\\|b`");
  EXPECT_EQ(MarkdownCode("has `tick`"), "`` has `tick` ``");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");
}

TEST(MarkupEscapeTest, TableCellsKeepTheRowIntact) {
  EXPECT_EQ(MarkdownTableCell("a|b\r\nc"), "a\\|b  c");
  EXPECT_EQ(MarkdownTableCell("esc\x1b[31m\ttab"), "esc?[31m\ttab");
  EXPECT_EQ(MarkdownTableCell("*kept* _as is_"), "*kept* _as is_");
}

}  // namespace
}  // namespace kopt
