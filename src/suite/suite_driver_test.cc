#include "suite/suite_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "suite/suite_state.h"
#include "suite/suite_test_util.h"

namespace kopt::suite {
namespace {

// Runs each work in two polls (queued → running → succeeded); at the end it
// writes the run state kopt optimize would have written, with one verified
// child per problem, twice as fast as the reference.
class FakeExecutor : public Executor {
 public:
  std::string_view Name() const override { return "fake"; }
  int Capacity() const override { return 1; }
  Status Submit(const ProblemWork& work) override {
    submitted.push_back(work);
    WorkStatus status;
    status.key = work.key;
    works_.push_back(status);
    return Status::Ok();
  }
  Result<std::vector<WorkStatus>> Poll() override {
    for (WorkStatus& status : works_) {
      if (status.state == WorkState::kRunning) {
        status.state = WorkState::kSucceeded;
        status.exit_code = 0;
        const ProblemWork& work = *std::find_if(submitted.begin(), submitted.end(),
                                                [&](const ProblemWork& w) { return w.key == status.key; });
        auto workspace = std::find(work.command.begin(), work.command.end(), "--workspace");
        WriteRunState(*(workspace + 1), MakeRunState(1, 2e-3, {1e-3}));
        break;  // one at a time
      }
      if (status.state == WorkState::kQueued) {
        status.state = WorkState::kRunning;
        status.placement = "gpu 0";
        break;
      }
    }
    return works_;
  }
  Status Cancel(const std::string&) override { return Status::Ok(); }
  Status CancelAll() override { return Status::Ok(); }
  void Forget(const std::string& key) override {
    std::erase_if(works_, [&](const WorkStatus& status) { return status.key == key; });
  }
  Result<std::vector<WorkStatus>> Attach(const std::string&) override { return std::vector<WorkStatus>{}; }

  std::vector<ProblemWork> submitted;

 private:
  std::vector<WorkStatus> works_;
};

SuiteRunSettings Settings(const ScratchDirectory& scratch) {
  SuiteRunSettings settings;
  settings.workspace = scratch / "ws";
  settings.name = "s";
  settings.kopt_program = "/opt/kopt";
  settings.optimize_arguments = {"--max-evaluations", "3"};
  for (const char* key : {"a", "b", "c"}) {
    MakeTaskDirectory(scratch / (std::string("tasks/") + key));
    settings.problems.push_back({key, scratch / (std::string("tasks/") + key), "level1"});
  }
  return settings;
}

TEST(SuiteDriverTest, RunsEveryProblemOnceAndJournalsIt) {
  ScratchDirectory scratch;
  SuiteRunSettings settings = Settings(scratch);
  FakeExecutor executor;
  SuiteEnvironment environment;
  environment.executor = &executor;
  environment.sleep = [](double) {};
  int progress_lines = 0;
  environment.progress = [&](const SuiteReport&) { ++progress_lines; };
  Result<SuiteReport> report = RunSuite(settings, environment);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(executor.submitted.size(), 3u);
  EXPECT_EQ(executor.submitted[0].command,
            (std::vector<std::string>{"/opt/kopt", "optimize", scratch / "tasks/a", "--workspace",
                                      ProblemWorkspace(SuiteDirectory(settings.workspace, "s"), "a"),
                                      "--quiet", "--max-evaluations", "3"}));
  EXPECT_GT(progress_lines, 3);
  for (const ProblemResult& result : report->problems) {
    EXPECT_EQ(result.outcome, ProblemOutcome::kFinished) << result.problem.key;
    EXPECT_DOUBLE_EQ(*result.baseline(BaselineKind::kReference).speedup, 2.0);
    EXPECT_EQ(result.attempts, 1);
  }
  // Again: nothing left to run.
  FakeExecutor second;
  environment.executor = &second;
  settings.problems.clear();  // resume by name
  ASSERT_TRUE(RunSuite(settings, environment).ok());
  EXPECT_TRUE(second.submitted.empty());
}

TEST(SuiteDriverTest, ResumesWhatWasNotEndedWithTheProblemsOwnRun) {
  ScratchDirectory scratch;
  SuiteRunSettings settings = Settings(scratch);
  std::string directory = SuiteDirectory(settings.workspace, "s");
  SuiteManifest manifest;
  manifest.name = "s";
  manifest.problems = settings.problems;
  manifest.optimize_arguments = settings.optimize_arguments;
  Result<SuiteState> state = OpenSuite(directory, manifest);
  ASSERT_TRUE(state.ok());
  // a ended before the kill; b was running (its optimize run 4 on disk); c never started.
  WorkStatus a;
  a.key = "a";
  a.state = WorkState::kRunning;
  ASSERT_TRUE(JournalStarted(*state, a).ok());
  a.state = WorkState::kSucceeded;
  ASSERT_TRUE(JournalEnded(*state, a, 1).ok());
  WriteRunState(ProblemWorkspace(directory, "a"), MakeRunState(1, 2e-3, {1e-3}));
  WorkStatus b;
  b.key = "b";
  b.state = WorkState::kRunning;
  ASSERT_TRUE(JournalStarted(*state, b).ok());
  WriteRunState(ProblemWorkspace(directory, "b"), MakeRunState(4, 2e-3, {}));

  FakeExecutor executor;
  SuiteEnvironment environment;
  environment.executor = &executor;
  environment.sleep = [](double) {};
  Result<SuiteReport> report = RunSuite(settings, environment);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(executor.submitted.size(), 2u);
  EXPECT_EQ(executor.submitted[0].key, "b");
  EXPECT_EQ(executor.submitted[0].command[2], "--resume");
  EXPECT_EQ(executor.submitted[0].command[3], "4");
  EXPECT_EQ(executor.submitted[1].key, "c");
  EXPECT_EQ(report->problems[1].attempts, 2);
  EXPECT_EQ(report->problems[0].attempts, 1);
}

}  // namespace
}  // namespace kopt::suite
