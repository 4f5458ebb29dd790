#include "suite/suite_plan.h"

#include <gtest/gtest.h>

#include "suite/suite_test_util.h"

namespace kopt::suite {
namespace {

std::vector<std::string> Keys(const std::vector<SuiteProblem>& problems) {
  std::vector<std::string> keys;
  for (const SuiteProblem& problem : problems) keys.push_back(problem.key);
  return keys;
}

TEST(SuitePlanTest, ExpandsLevelDirectoriesListsAndGlobsOnceEach) {
  ScratchDirectory scratch;
  MakeTaskDirectory(scratch / "level1/b_relu");
  MakeTaskDirectory(scratch / "level1/a_matmul");
  MakeTaskDirectory(scratch / "level2/c_fused");
  MakeTaskDirectory(scratch / "flat/kb_level3_9_vgg");
  WriteText(scratch / "flat/kb_level3_9_vgg/kernelbench.json", R"({"level": 3})");
  WriteText(scratch / "list.txt", "# the level-2 problem\nlevel2/c_fused\n\nlevel1/a_matmul  # again\n");
  Result<std::vector<SuiteProblem>> problems =
      ExpandSuiteTasks({scratch / "level1", scratch / "list.txt", scratch / "flat/kb_*"});
  ASSERT_TRUE(problems.ok()) << problems.status().message();
  EXPECT_EQ(Keys(*problems), (std::vector<std::string>{"a_matmul", "b_relu", "c_fused", "kb_level3_9_vgg"}));
  EXPECT_EQ((*problems)[0].level, "level1");
  EXPECT_EQ((*problems)[2].level, "level2");
  EXPECT_EQ((*problems)[3].level, "level3");  // from kernelbench.json, not the parent's name
  EXPECT_EQ((*problems)[0].task_directory, scratch / "level1/a_matmul");
}

TEST(SuitePlanTest, RefusesWhatNamesNothingAndTwoProblemsOfOneName) {
  ScratchDirectory scratch;
  MakeTaskDirectory(scratch / "x/relu");
  MakeTaskDirectory(scratch / "y/relu");
  std::filesystem::create_directories(scratch / "empty");
  Result<std::vector<SuiteProblem>> missing = ExpandSuiteTasks({scratch / "nothing"});
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(missing.status().message().find("nothing"), std::string::npos);
  EXPECT_EQ(ExpandSuiteTasks({scratch / "empty"}).status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(ExpandSuiteTasks({scratch / "z*"}).status().kind(), ErrorKind::kNotFound);
  Result<std::vector<SuiteProblem>> twice = ExpandSuiteTasks({scratch / "x/relu", scratch / "y/relu"});
  EXPECT_EQ(twice.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(twice.status().message().find("two problems named relu"), std::string::npos);
  WriteText(scratch / "bad_list.txt", "x/relu\nmissing_task\n");
  Result<std::vector<SuiteProblem>> bad_line = ExpandSuiteTasks({scratch / "bad_list.txt"});
  EXPECT_NE(bad_line.status().message().find("bad_list.txt:2"), std::string::npos)
      << bad_line.status().message();
}

}  // namespace
}  // namespace kopt::suite
