#include "suite/suite_state.h"

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "suite/suite_test_util.h"

namespace kopt::suite {
namespace {

SuiteManifest Manifest() {
  SuiteManifest manifest;
  manifest.name = "s";
  manifest.problems = {{"a", "/tasks/a", "level1"}, {"b", "/tasks/b", "level2"}};
  manifest.optimize_arguments = {"--max-evaluations", "4"};
  return manifest;
}

WorkStatus Work(const std::string& key, WorkState state) {
  WorkStatus status;
  status.key = key;
  status.state = state;
  status.placement = "gpu 0";
  if (state == WorkState::kSucceeded) status.exit_code = 0;
  return status;
}

TEST(SuiteStateTest, JournalSurvivesReopeningAndATornLastLine) {
  ScratchDirectory scratch;
  std::string directory = SuiteDirectory(scratch.path(), "s");
  Result<SuiteState> state = OpenSuite(directory, Manifest());
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_TRUE(JournalStarted(*state, Work("a", WorkState::kRunning)).ok());
  ASSERT_TRUE(JournalEnded(*state, Work("a", WorkState::kSucceeded), 1).ok());
  ASSERT_TRUE(JournalStarted(*state, Work("b", WorkState::kRunning)).ok());
  // A kill in the middle of the next append.
  std::string journal = directory + "/suite.journal";
  std::string text = *ReadWholeFile(journal);
  WriteText(journal, text + R"({"schema": "kopt.suite.journal", "event": "ended", "key": "b", "st)");

  Result<SuiteState> reopened = OpenSuite(directory, SuiteManifest{});  // no tasks: resume
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  EXPECT_EQ(reopened->manifest.problems, Manifest().problems);
  ASSERT_TRUE(reopened->journal.at("a").ended.has_value());
  EXPECT_EQ(reopened->journal.at("a").ended->state, WorkState::kSucceeded);
  EXPECT_EQ(reopened->journal.at("a").run_id, 1);
  EXPECT_FALSE(reopened->journal.at("b").ended.has_value());  // pending: run again
  EXPECT_EQ(reopened->journal.at("b").attempts, 1);
  // The next line after the torn tail is read back whole.
  ASSERT_TRUE(JournalEnded(*reopened, Work("b", WorkState::kFailed), std::nullopt).ok());
  Result<SuiteState> again = ReadSuite(directory);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->journal.at("b").ended->state, WorkState::kFailed);
}

TEST(SuiteStateTest, RefusesOtherWorkUnderTheSameNameAndACorruptLine) {
  ScratchDirectory scratch;
  std::string directory = SuiteDirectory(scratch.path(), "s");
  ASSERT_TRUE(OpenSuite(directory, Manifest()).ok());
  SuiteManifest other = Manifest();
  other.optimize_arguments = {"--max-evaluations", "8"};
  Result<SuiteState> refused = OpenSuite(directory, other);
  EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(refused.status().message().find("other optimize arguments"), std::string::npos);
  EXPECT_EQ(OpenSuite(SuiteDirectory(scratch.path(), "none"), SuiteManifest{}).status().kind(),
            ErrorKind::kNotFound);
  WriteText(directory + "/suite.journal", "not json\n{\"also\": 1}\n");
  Result<SuiteState> corrupt = ReadSuite(directory);
  EXPECT_EQ(corrupt.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(corrupt.status().message().find("suite.journal:1"), std::string::npos);
}

}  // namespace
}  // namespace kopt::suite
