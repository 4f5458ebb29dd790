#include "suite/slurm_executor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/fake_command_runner_test_util.h"
#include "core/file_io.h"

namespace kopt::suite {
namespace {

class SlurmExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("kopt_slurm_executor_test_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
    runner_.OnCommand("sbatch", {}, ExitedWith(0, "500\n"));
    Queue("");
    runner_.OnCommand("scancel", {}, ExitedWith(0, ""));
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  void Queue(const std::string& lines) { runner_.OnCommand("squeue", {}, ExitedWith(0, lines)); }

  std::unique_ptr<Executor> Make(SlurmSettings slurm = {}) {
    SlurmExecutorSettings settings;
    settings.slurm = slurm;
    settings.suite_directory = directory_.string();
    settings.continuation_command = [](const ProblemWork& work) {
      std::vector<std::string> command = work.command;
      command.push_back("--resume");
      command.push_back("1");
      return command;
    };
    settings.clock = [] { return 1.0; };
    auto executor = MakeSlurmExecutor(settings, runner_);
    EXPECT_TRUE(executor.ok()) << executor.status().message();
    return std::move(*executor);
  }

  ProblemWork Work(const std::string& key) {
    ProblemWork work;
    work.key = key;
    work.command = {"/usr/bin/kopt", "optimize", "tasks/" + key, "--workspace", "w/" + key};
    work.log_path = (directory_ / (key + ".log")).string();
    return work;
  }

  // Writes what the attempt script writes: its started and exit records.
  void Record(int work_index, int attempt, const std::string& exit_record, bool started = true) {
    std::string base =
        (directory_ / "slurm" / "work" / std::to_string(work_index) / ("attempt-" + std::to_string(attempt)))
            .string();
    if (started) {
      ASSERT_TRUE(WriteFileAtomically(base + ".started", "500 node3\n").ok());
    }
    if (!exit_record.empty()) {
      ASSERT_TRUE(WriteFileAtomically(base + ".exit", exit_record + "\n").ok());
    }
  }

  static const WorkStatus& Of(const std::vector<WorkStatus>& statuses, const std::string& key) {
    for (const WorkStatus& status : statuses) {
      if (status.key == key) return status;
    }
    static WorkStatus none;
    ADD_FAILURE() << "no status for " << key;
    return none;
  }

  std::filesystem::path directory_;
  FakeCommandRunner runner_;
};

TEST_F(SlurmExecutorTest, OneArrayForTheQueuedWorksThenFollowsSqueue) {
  auto executor = Make();
  for (const char* key : {"a", "b", "c"}) ASSERT_TRUE(executor->Submit(Work(key)).ok());
  EXPECT_FALSE(executor->Submit(Work("b")).ok());  // already queued
  auto statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok()) << statuses.status().message();
  auto sbatch = runner_.CommandsOf("sbatch");
  ASSERT_EQ(sbatch.size(), 1u);
  EXPECT_NE(std::find(sbatch[0].argv.begin(), sbatch[0].argv.end(), "--array=0-2"), sbatch[0].argv.end());
  EXPECT_NE(std::find(sbatch[0].argv.begin(), sbatch[0].argv.end(), "--gres=gpu:1"), sbatch[0].argv.end());
  Queue("500_0|RUNNING|None|node3\n500_1|PENDING|Resources|\n500_2|RUNNING|None|node4\n");
  statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok());
  EXPECT_EQ(Of(*statuses, "a").state, WorkState::kRunning);
  EXPECT_EQ(Of(*statuses, "a").placement, "job 500_0 on node3");
  EXPECT_EQ(Of(*statuses, "b").state, WorkState::kQueued);
  EXPECT_EQ(Of(*statuses, "b").detail, "PENDING (Resources)");
  std::string script = *ReadWholeFile((directory_ / "slurm/work/0/attempt-1.sh").string());
  EXPECT_NE(script.find("'optimize' 'tasks/a' '--workspace' 'w/a' --devices 0"), std::string::npos) << script;
}

TEST_F(SlurmExecutorTest, ExitRecordsDecideSucceededFailedAndContinued) {
  auto executor = Make();
  for (const char* key : {"a", "b", "c"}) ASSERT_TRUE(executor->Submit(Work(key)).ok());
  ASSERT_TRUE(executor->Poll().ok());
  Record(0, 1, "exit 0");
  Record(1, 1, "exit 2");
  Record(2, 1, "exit 143");  // the time limit's SIGTERM: stopped cleanly, to be continued
  Queue("500_0|COMPLETED|None|node3\n");
  auto statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok());
  EXPECT_EQ(Of(*statuses, "a").state, WorkState::kSucceeded);
  EXPECT_EQ(Of(*statuses, "b").state, WorkState::kFailed);
  EXPECT_EQ(Of(*statuses, "b").exit_code, 2);
  EXPECT_EQ(Of(*statuses, "c").state, WorkState::kQueued);
  EXPECT_NE(Of(*statuses, "c").detail.find("continued after stopped by SIGTERM"), std::string::npos);
  auto sbatch = runner_.CommandsOf("sbatch");
  ASSERT_EQ(sbatch.size(), 2u);  // the continuation, alone in its array
  EXPECT_NE(std::find(sbatch[1].argv.begin(), sbatch[1].argv.end(), "--array=0-0"), sbatch[1].argv.end());
  std::string script = *ReadWholeFile((directory_ / "slurm/work/2/attempt-2.sh").string());
  EXPECT_NE(script.find("'--resume' '1' --devices 0"), std::string::npos) << script;
}

TEST_F(SlurmExecutorTest, TaskRequeuedAfterItStartedIsCancelledAndContinuedAtOnce) {
  auto executor = Make();
  ASSERT_TRUE(executor->Submit(Work("a")).ok());
  ASSERT_TRUE(executor->Poll().ok());
  Record(0, 1, "exit 143");  // SIGTERM of the requeue; Slurm holds the task until its begin time
  Queue("500_0|PENDING|BeginTime|\n");
  auto statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok());
  auto scancel = runner_.CommandsOf("scancel");
  ASSERT_EQ(scancel.size(), 1u);
  EXPECT_EQ(scancel[0].argv[1], "500_0");
  EXPECT_EQ(runner_.CommandsOf("sbatch").size(), 2u);
  EXPECT_NE(Of(*statuses, "a").detail.find("continued after requeued by Slurm"), std::string::npos)
      << Of(*statuses, "a").detail;
}

TEST_F(SlurmExecutorTest, LostTaskIsRetriedAtMostMaxNodeFailuresTimes) {
  SlurmSettings slurm;
  slurm.max_node_failures = 1;
  auto executor = Make(slurm);
  ASSERT_TRUE(executor->Submit(Work("a")).ok());
  ASSERT_TRUE(executor->Poll().ok());
  Record(0, 1, "");  // started, no exit record: the node died
  auto statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok());
  EXPECT_EQ(Of(*statuses, "a").state, WorkState::kQueued);
  EXPECT_NE(Of(*statuses, "a").detail.find("lost with its node"), std::string::npos);
  Record(0, 2, "");
  statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok());
  EXPECT_EQ(Of(*statuses, "a").state, WorkState::kFailed);
  EXPECT_NE(Of(*statuses, "a").detail.find("not retried: 1 failures already"), std::string::npos);
  EXPECT_EQ(runner_.CommandsOf("sbatch").size(), 2u);
}

TEST_F(SlurmExecutorTest, RestartedDriverAttachesInsteadOfSubmittingTwice) {
  {
    auto executor = Make();
    ASSERT_TRUE(executor->Submit(Work("a")).ok());
    ASSERT_TRUE(executor->Submit(Work("b")).ok());
    ASSERT_TRUE(executor->Submit(Work("c")).ok());
    Queue("500_0|RUNNING|None|node3\n500_1|RUNNING|None|node3\n500_2|RUNNING|None|node3\n");
    ASSERT_TRUE(executor->Poll().ok());
  }  // the driver dies; its jobs run on, and c ends meanwhile
  Record(2, 1, "exit 0");
  Queue("500_0|RUNNING|None|node3\n500_1|RUNNING|None|node3\n");
  auto executor = Make();
  auto attached = executor->Attach(directory_.string());
  ASSERT_TRUE(attached.ok()) << attached.status().message();
  ASSERT_EQ(attached->size(), 3u);
  EXPECT_EQ(Of(*attached, "b").state, WorkState::kRunning);
  EXPECT_EQ(Of(*attached, "c").state, WorkState::kSucceeded);  // recorded by the driver, not submitted again
  EXPECT_FALSE(executor->Submit(Work("a")).ok());              // the driver would have submitted it twice
  ASSERT_TRUE(executor->Poll().ok());
  EXPECT_EQ(runner_.CommandsOf("sbatch").size(), 1u);
}

TEST_F(SlurmExecutorTest, DriverKilledDuringSbatchAdoptsTheJobByName) {
  runner_.OnCommand("sbatch", {}, ExitedWith(1, "", "sbatch: error: Socket timed out"));
  {
    auto executor = Make();
    ASSERT_TRUE(executor->Submit(Work("a")).ok());
    EXPECT_FALSE(executor->Poll().ok());  // the answer was lost; the job may exist
  }
  Queue("731_0|RUNNING|None|node9\n");
  auto executor = Make();
  auto attached = executor->Attach(directory_.string());
  ASSERT_TRUE(attached.ok()) << attached.status().message();
  ASSERT_EQ(attached->size(), 1u);
  EXPECT_EQ((*attached)[0].placement, "job 731_0 on node9");
}

TEST_F(SlurmExecutorTest, CancelCallsScancelForTheTask) {
  auto executor = Make();
  ASSERT_TRUE(executor->Submit(Work("a")).ok());
  Queue("500_0|RUNNING|None|node3\n");
  ASSERT_TRUE(executor->Poll().ok());
  ASSERT_TRUE(executor->Cancel("a").ok());
  auto scancel = runner_.CommandsOf("scancel");
  ASSERT_EQ(scancel.size(), 1u);
  EXPECT_EQ(scancel[0].argv[1], "500_0");
  auto statuses = executor->Poll();
  ASSERT_TRUE(statuses.ok());
  EXPECT_EQ(Of(*statuses, "a").state, WorkState::kCancelled);
}

TEST_F(SlurmExecutorTest, FailedSqueueIsAnErrorNotAResubmission) {
  auto executor = Make();
  ASSERT_TRUE(executor->Submit(Work("a")).ok());
  ASSERT_TRUE(executor->Poll().ok());
  runner_.OnCommand("squeue", {},
                    ExitedWith(1, "", "slurm_load_jobs error: Unable to contact slurm controller"));
  auto statuses = executor->Poll();
  ASSERT_FALSE(statuses.ok());
  EXPECT_NE(statuses.status().message().find("Unable to contact"), std::string::npos);
  EXPECT_EQ(runner_.CommandsOf("sbatch").size(), 1u);
}

// The attempt script itself, run by bash without Slurm: it records its start and end, and a
// second start of the same attempt (a requeue) does not run the work again.
TEST_F(SlurmExecutorTest, AttemptScriptRunsTheWorkOnceAndRecordsItsEnd) {
  auto executor = Make();
  ProblemWork work = Work("a");
  work.command = {"/bin/sh", "-c", "echo ran \"$*\"", "work"};
  work.environment = {{"KOPT_TEST_VALUE", "it's"}};
  ASSERT_TRUE(executor->Submit(work).ok());
  ASSERT_TRUE(executor->Poll().ok());
  auto system = MakeSystemCommandRunner();
  const std::string script = (directory_ / "slurm/work/0/attempt-1.sh").string();
  CommandSpec first;
  first.argv = {"/bin/bash", script};
  first.environment = {{"SLURM_JOB_ID", "500"}, {"SLURMD_NODENAME", "node3"}};
  auto result = system->Run(first);
  ASSERT_TRUE(result.ok() && result->Succeeded());
  EXPECT_EQ(*ReadWholeFile(script.substr(0, script.size() - 3) + ".exit"), "exit 0\n");
  EXPECT_EQ(*ReadWholeFile(script.substr(0, script.size() - 3) + ".started"), "500 node3\n");
  CommandSpec requeued = first;
  requeued.environment.push_back({"SLURM_RESTART_COUNT", "1"});
  result = system->Run(requeued);
  ASSERT_TRUE(result.ok() && result->Succeeded());
  EXPECT_EQ(*ReadWholeFile(script.substr(0, script.size() - 3) + ".exit"), "requeued 1\n");
  EXPECT_EQ(*ReadWholeFile(work.log_path), "ran --devices 0\n");  // once
}

}  // namespace
}  // namespace kopt::suite
