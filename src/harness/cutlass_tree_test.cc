#include "harness/cutlass_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/fake_command_runner_test_util.h"
#include "fixture_reader.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

fs::path FixtureTree() {
  return fs::canonical(FixtureDirectory() / "source_tree");
}

TEST(CutlassTreeTest, ATreeRootOrItsIncludeDirectory) {
  FakeCommandRunner runner;
  for (fs::path given : {FixtureTree(), FixtureTree() / "include"}) {
    Result<CutlassTree> tree = LocateCutlass(given.string(), runner);
    ASSERT_TRUE(tree.ok()) << tree.status().message();
    EXPECT_EQ(tree->root, FixtureTree().string());
    EXPECT_THAT(tree->include_directories, ElementsAre((FixtureTree() / "include").string(),
                                                       (FixtureTree() / "tools/util/include").string()));
    EXPECT_EQ(tree->version, "4.2.0");
    EXPECT_EQ(DescribeCutlassTree(*tree), "the CUTLASS 4.2.0 / CuTe source tree");
  }
  EXPECT_TRUE(runner.CommandsOf("python3").empty());
  Result<CutlassTree> wrong = LocateCutlass((FixtureTree() / "examples").string(), runner);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().kind(), ErrorKind::kNotFound);
  EXPECT_THAT(wrong.status().message(), HasSubstr("include/cutlass/cutlass.h"));
}

TEST(CutlassTreeTest, ThePipWheelIsFoundThroughPython) {
  fs::path site = fs::path(::testing::TempDir()) / ("kopt_cutlass_site_" + std::to_string(::getpid()));
  fs::remove_all(site);
  fs::create_directories(site / "cutlass_library");
  fs::copy(FixtureTree(), site / "cutlass_library" / "source", fs::copy_options::recursive);
  FakeCommandRunner runner;
  runner.OnCommand("python3", {"-c"}, ExitedWith(0, (site / "cutlass_library").string() + "\n"));
  Result<CutlassTree> tree = LocateCutlass(kCutlassFromPip, runner);
  ASSERT_TRUE(tree.ok()) << tree.status().message();
  EXPECT_EQ(tree->root, fs::canonical(site / "cutlass_library" / "source").string());
  EXPECT_EQ(tree->include_directories.size(), 2u);
  ASSERT_EQ(runner.CommandsOf("python3").size(), 1u);
  EXPECT_THAT(runner.CommandsOf("python3")[0].argv.at(2), HasSubstr("find_spec('cutlass_library')"));
  fs::remove_all(site);
}

TEST(CutlassTreeTest, NoWheelOrNoPythonSaysHowToInstallIt) {
  FakeCommandRunner runner;
  runner.OnCommand("python3", {"-c"}, ExitedWith(0, "\n"));
  Result<CutlassTree> none = LocateCutlass(kCutlassFromPip, runner);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("pip install nvidia-cutlass"));
  runner.RemoveProgram("python3");
  Result<CutlassTree> no_python = LocateCutlass(kCutlassFromPip, runner);
  ASSERT_FALSE(no_python.ok());
  EXPECT_THAT(no_python.status().message(), HasSubstr("python3 is not on PATH"));
}

}  // namespace
}  // namespace kopt
