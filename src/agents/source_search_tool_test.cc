#include "agents/source_search_tool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixture_reader.h"

namespace kopt::agents {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

SourceTree Fixture(SourceSearchLimits limits = {}) {
  Result<SourceTree> tree = SourceTree::Open((FixtureDirectory() / "source_tree").string(), limits);
  EXPECT_TRUE(tree.ok()) << tree.status().message();
  return std::move(tree).value();
}

ToolAnswer Call(const SourceTree& tree, const std::string& name, const std::string& arguments) {
  return ExecuteSourceSearchTool(tree, {"call_1", name, arguments});
}

TEST(SourceSearchToolTest, IndexesRegularFilesSortedAndSkipsHiddenDirectories) {
  SourceTree tree = Fixture();
  EXPECT_EQ(tree.file_count(), 9u);  // README, 7 sources, data.bin; not .hidden/
  Result<SourceSearchResult> all = tree.Search(".", SourceSearchKind::kName, 50);
  ASSERT_TRUE(all.ok());
  std::vector<std::string> paths;
  for (const SourceSearchHit& hit : all->hits) paths.push_back(hit.path);
  EXPECT_THAT(paths, Not(::testing::Contains(HasSubstr("hidden"))));
}

TEST(SourceSearchToolTest, TextSearchGivesPathLineAndExcerptInPathOrder) {
  SourceTree tree = Fixture();
  Result<SourceSearchResult> result = tree.Search("make_layout", SourceSearchKind::kText, 20);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->hits.size(), 4u);  // sgemm_tiled.cu, then three lines of layout.hpp; not data.bin
  EXPECT_EQ(result->hits[0].path, "examples/cute/sgemm_tiled.cu");
  EXPECT_EQ(result->hits[0].line, 6);
  EXPECT_EQ(result->hits[0].excerpt, "auto layout = make_layout(8);");
  EXPECT_EQ(result->hits[1].path, "include/cute/layout.hpp");
  EXPECT_EQ(result->hits[1].line, 14);
  EXPECT_EQ(result->hits[3].line, 20);
  EXPECT_FALSE(result->truncated);
  // Case-sensitive, literal.
  EXPECT_TRUE(tree.Search("MAKE_LAYOUT", SourceSearchKind::kText, 20)->hits.empty());
  EXPECT_TRUE(tree.Search("make_.*", SourceSearchKind::kText, 20)->hits.empty());
}

TEST(SourceSearchToolTest, NameSearchRanksExactFileNamesFirst) {
  SourceTree tree = Fixture();
  Result<SourceSearchResult> result = tree.Search("LAYOUT.hpp", SourceSearchKind::kName, 20);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->hits.size(), 1u);
  EXPECT_EQ(result->hits[0].path, "include/cute/layout.hpp");
  EXPECT_EQ(result->hits[0].line, 0);
  EXPECT_EQ(result->hits[0].excerpt, "(23 lines)");
  Result<SourceSearchResult> atom = tree.Search("atom", SourceSearchKind::kName, 20);
  ASSERT_TRUE(atom.ok());
  ASSERT_EQ(atom->hits.size(), 1u);  // include/cute/atom/copy_atom.hpp: file name contains it
  Result<SourceSearchResult> cute = tree.Search("cute", SourceSearchKind::kName, 20);
  ASSERT_TRUE(cute.ok());
  ASSERT_EQ(cute->hits.size(), 5u);
  EXPECT_EQ(cute->hits[0].path, "examples/cute/data.bin");  // all rank 2: by path
}

TEST(SourceSearchToolTest, ResultsAreBounded) {
  SourceSearchLimits limits;
  limits.max_results = 2;
  limits.max_excerpt_bytes = 10;
  SourceTree tree = Fixture(limits);
  Result<SourceSearchResult> result = tree.Search("make_layout", SourceSearchKind::kText, 500);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->hits.size(), 2u);
  EXPECT_TRUE(result->truncated);
  EXPECT_EQ(result->hits[0].excerpt, "auto layou…");
  ToolAnswer answer = Call(tree, "search_source", R"({"query":"make_layout","max_results":1})");
  EXPECT_FALSE(answer.is_error);
  EXPECT_THAT(answer.text, StartsWith("1 match for \"make_layout\" (text search over 9 files)\n"
                                      "examples/cute/sgemm_tiled.cu:6: auto layou…\n"));
  EXPECT_THAT(answer.text, HasSubstr("more matches not shown"));
}

TEST(SourceSearchToolTest, ReadGivesNumberedLinesWithinTheLimits) {
  SourceTree tree = Fixture();
  Result<std::string> text = tree.Read("include/cute/layout.hpp", 13, 2);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text,
            "include/cute/layout.hpp lines 13-14 of 23\n"
            "13: template <class Shape, class Stride>\n"
            "14: CUTE_HOST_DEVICE constexpr auto make_layout(Shape const& shape, Stride const& stride) {\n");
  SourceSearchLimits limits;
  limits.max_read_lines = 3;
  limits.max_read_bytes = 40;
  SourceTree small = Fixture(limits);
  Result<std::string> bounded = small.Read("include/cute/layout.hpp", 1, 100);
  ASSERT_TRUE(bounded.ok());
  EXPECT_EQ(*bounded,
            "include/cute/layout.hpp lines 1-1 of 23\n1: #pragma once\n"
            "(stopped at the read limit; continue with first_line 2)\n");
  Result<std::string> end = tree.Read("./include/cutlass/cutlass.h", 5, 100);
  ASSERT_TRUE(end.ok());
  EXPECT_THAT(*end, StartsWith("include/cutlass/cutlass.h lines 5-7 of 7\n"));
  EXPECT_THAT(*end, Not(HasSubstr("stopped")));
  EXPECT_FALSE(tree.Read("include/cutlass/cutlass.h", 8, 1).ok());
  EXPECT_FALSE(tree.Read("include/cutlass/cutlass.h", 1, 0).ok());
  EXPECT_FALSE(tree.Read("examples/cute/data.bin", 1, 1).ok());
}

TEST(SourceSearchToolTest, PathsOutsideTheTreeAreRefused) {
  SourceTree tree = Fixture();
  for (const char* path : {"../source_tree/README.md", "/etc/passwd", "include/../../fixture_reader.h",
                           "include/cute/../../../../etc/passwd", ".hidden/secret.txt", "include", ""}) {
    ToolAnswer answer = Call(tree, "read_source", nlohmann::json{{"path", path}}.dump());
    EXPECT_TRUE(answer.is_error) << path;
    EXPECT_THAT(answer.text, Not(HasSubstr("root:"))) << path;
  }
  // A symbolic link inside the tree is not followed (it may point anywhere).
  fs::path root = fs::path(::testing::TempDir()) / ("kopt_source_tree_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "include");
  std::ofstream(root / "include" / "ok.h") << "int ok;\n";
  fs::create_symlink("/etc/passwd", root / "include" / "passwd.h");
  fs::create_directory_symlink("/etc", root / "etc");
  Result<SourceTree> linked = SourceTree::Open(root.string());
  ASSERT_TRUE(linked.ok());
  EXPECT_EQ(linked->file_count(), 1u);
  EXPECT_TRUE(Call(*linked, "read_source", R"({"path":"include/passwd.h"})").is_error);
  EXPECT_TRUE(Call(*linked, "read_source", R"({"path":"etc/passwd"})").is_error);
  EXPECT_TRUE(linked->Search("root", SourceSearchKind::kText, 10)->hits.empty());
  fs::remove_all(root);
}

TEST(SourceSearchToolTest, MalformedCallsAreErrorAnswersThatSayWhatIsExpected) {
  SourceTree tree = Fixture();
  EXPECT_THAT(Call(tree, "rm_rf", "{}").text, HasSubstr("the tools are search_source and read_source"));
  EXPECT_THAT(Call(tree, "search_source", "not json").text, HasSubstr("must be a JSON object"));
  EXPECT_THAT(Call(tree, "search_source", R"({"query":""})").text, HasSubstr("non-empty string"));
  EXPECT_THAT(Call(tree, "search_source", R"({"query":"x","kind":"regex"})").text, HasSubstr("\"name\""));
  EXPECT_THAT(Call(tree, "search_source", R"({"query":"x","max_results":"many"})").text,
              HasSubstr("must be an integer"));
  EXPECT_THAT(Call(tree, "read_source", R"({"path":"include/cute/layout.hpp","first_line":1e9})").text,
              HasSubstr("must be an integer"));
  ToolAnswer huge =
      Call(tree, "read_source", R"({"path":"include/cute/layout.hpp","line_count":99999999999})");
  EXPECT_FALSE(huge.is_error);
  EXPECT_THAT(huge.text, StartsWith("include/cute/layout.hpp lines 1-23 of 23\n"));
}

TEST(SourceSearchToolTest, TheSameCallGivesTheSameBytesAndTheDefinitionsStateTheLimits) {
  SourceTree tree = Fixture();
  std::string first = Call(tree, "search_source", R"({"query":"cute","kind":"name"})").text;
  EXPECT_EQ(Call(tree, "search_source", R"({"query":"cute","kind":"name"})").text, first);
  std::vector<llm::ToolDefinition> tools = SourceSearchToolDefinitions(tree, "the fixture tree");
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0].name, "search_source");
  EXPECT_EQ(tools[1].name, "read_source");
  EXPECT_THAT(tools[0].description, HasSubstr("the fixture tree (9 files)"));
  EXPECT_THAT(tools[1].description, HasSubstr("200 numbered lines and 16384 bytes"));
  EXPECT_TRUE(nlohmann::json::parse(tools[1].parameters_schema).is_object());
}

TEST(SourceSearchToolTest, AMissingRootIsNotFound) {
  Result<SourceTree> missing = SourceTree::Open("/nonexistent/cutlass");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_FALSE(SourceTree::Open((FixtureDirectory() / "source_tree" / "README.md").string()).ok());
}

}  // namespace
}  // namespace kopt::agents
