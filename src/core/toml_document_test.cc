#include "core/toml_document.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(TomlDocumentTest, ParsesATableAndKeepsLines) {
  Result<toml::table> table = ParseTomlDocument("a = 1\n\n[b]\nc = \"x\"\n", "t.toml");
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ((*table)["a"].value<int64_t>(), 1);
  ASSERT_NE((*table)["b"]["c"].node(), nullptr);
  EXPECT_EQ(TomlLine(*(*table)["b"]["c"].node()), 4);
}

TEST(TomlDocumentTest, ASyntaxErrorNamesFileLineAndColumn) {
  Result<toml::table> table = ParseTomlDocument("a = 1\nb = = 2\n", "t.toml");
  ASSERT_FALSE(table.ok());
  EXPECT_THAT(table.status().message(), ::testing::StartsWith("t.toml:2:"));
  EXPECT_EQ(table.status().kind(), ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace kopt
