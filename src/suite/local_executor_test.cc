#include "suite/local_executor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/file_io.h"
#include "suite/suite_test_util.h"

namespace kopt::suite {
namespace {

ProblemWork ShellWork(const std::string& key, const std::string& script, const std::string& log) {
  ProblemWork work;
  work.key = key;
  // The executor appends `--devices LIST`: the script sees it as $1 $2.
  work.command = {"/bin/sh", "-c", script, "sh"};
  work.log_path = log;
  return work;
}

std::vector<WorkStatus> PollUntil(Executor& executor,
                                  const std::function<bool(const std::vector<WorkStatus>&)>& done) {
  for (int attempt = 0; attempt < 400; ++attempt) {
    Result<std::vector<WorkStatus>> statuses = executor.Poll();
    if (statuses.ok() && done(*statuses)) return *statuses;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return *executor.Poll();
}

bool AllEnded(const std::vector<WorkStatus>& statuses) {
  for (const WorkStatus& status : statuses) {
    if (!IsEnded(status.state)) return false;
  }
  return true;
}

bool ProcessAlive(pid_t pid) {
  return kill(pid, 0) == 0;
}

TEST(LocalExecutorTest, OneWorkPerDeviceInSubmissionOrderWithDevicesAppended) {
  ScratchDirectory scratch;
  LocalExecutorSettings settings;
  settings.devices = {3, 5};
  auto executor = MakeLocalExecutor(settings);
  ASSERT_TRUE(executor.ok());
  // Each work records its --devices and whether another work held the same device at once.
  for (int index = 0; index < 5; ++index) {
    ProblemWork work =
        ShellWork("w" + std::to_string(index),
                  "echo \"$1 $2\"; d=" + scratch.path() +
                      "/busy.$2; if [ -e $d ]; then echo SHARED; fi; touch $d; sleep 0.2; rm $d; exit " +
                      std::to_string(index == 4 ? 3 : 0),
                  scratch / ("w" + std::to_string(index) + ".log"));
    ASSERT_TRUE((*executor)->Submit(work).ok());
  }
  EXPECT_EQ((*executor)->Submit(ShellWork("w0", "true", scratch / "x.log")).kind(), ErrorKind::kInvalidInput);
  Result<std::vector<WorkStatus>> first = (*executor)->Poll();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)[0].state, WorkState::kRunning);
  EXPECT_EQ((*first)[0].placement, "gpu 3");
  EXPECT_EQ((*first)[1].placement, "gpu 5");
  EXPECT_EQ((*first)[2].state, WorkState::kQueued);
  std::vector<WorkStatus> statuses = PollUntil(**executor, AllEnded);
  for (int index = 0; index < 4; ++index) EXPECT_EQ(statuses[index].state, WorkState::kSucceeded) << index;
  EXPECT_EQ(statuses[4].state, WorkState::kFailed);
  EXPECT_EQ(statuses[4].exit_code, 3);
  EXPECT_EQ(statuses[4].detail, "exit code 3");
  for (int index = 0; index < 5; ++index) {
    std::string log = *ReadWholeFile(scratch / ("w" + std::to_string(index) + ".log"));
    EXPECT_TRUE(log.starts_with("--devices ")) << log;
    EXPECT_EQ(log.find("SHARED"), std::string::npos) << "two works on one device";
  }
  (*executor)->Forget("w0");
  EXPECT_EQ((*executor)->Poll()->size(), 4u);
}

TEST(LocalExecutorTest, CancelEndsTheWorkAndItsGroup) {
  ScratchDirectory scratch;
  auto executor = MakeLocalExecutor(LocalExecutorSettings{});
  ASSERT_TRUE(executor.ok());
  ASSERT_TRUE((*executor)
                  ->Submit(ShellWork("slow", "sleep 30 & echo $! > " + scratch.path() + "/child; wait",
                                     scratch / "slow.log"))
                  .ok());
  ASSERT_TRUE((*executor)->Submit(ShellWork("queued", "true", scratch / "queued.log")).ok());
  PollUntil(**executor, [&](const auto&) { return ReadWholeFile(scratch / "child").ok(); });
  pid_t grandchild = std::stoi(*ReadWholeFile(scratch / "child"));
  ASSERT_TRUE((*executor)->CancelAll().ok());
  std::vector<WorkStatus> statuses = PollUntil(**executor, AllEnded);
  EXPECT_EQ(statuses[0].state, WorkState::kCancelled);
  EXPECT_EQ(statuses[1].state, WorkState::kCancelled);
  bool gone = false;
  for (int attempt = 0; attempt < 100 && !gone; ++attempt) {
    gone = !ProcessAlive(grandchild);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Result<std::string> stat = ReadWholeFile("/proc/" + std::to_string(grandchild) + "/stat");
  EXPECT_TRUE(gone) << (stat.ok() ? *stat : "");
}

TEST(LocalExecutorTest, AWorkDiesWithItsDriverEvenByKill9) {
  ScratchDirectory scratch;
  std::string pid_file = scratch / "work.pid";
  pid_t driver = fork();
  ASSERT_GE(driver, 0);
  if (driver == 0) {
    auto executor = MakeLocalExecutor(LocalExecutorSettings{});
    ProblemWork work = ShellWork(
        "w", "echo $$ > " + pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file + "; exec sleep 60",
        scratch / "w.log");
    if (!executor.ok() || !(*executor)->Submit(work).ok()) _exit(1);
    for (;;) {
      (void)(*executor)->Poll();
      usleep(20000);
    }
  }
  pid_t work = 0;
  for (int attempt = 0; attempt < 200 && work == 0; ++attempt) {
    Result<std::string> text = ReadWholeFile(pid_file);
    if (text.ok()) work = std::stoi(*text);
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_GT(work, 0);
  EXPECT_TRUE(ProcessAlive(work));
  kill(driver, SIGKILL);
  waitpid(driver, nullptr, 0);
  bool gone = false;
  for (int attempt = 0; attempt < 100 && !gone; ++attempt) {
    gone = !ProcessAlive(work);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "the work outlived its driver";
  if (!gone) kill(work, SIGKILL);
}

TEST(LocalExecutorTest, RefusesBadDevicesAndBadWork) {
  EXPECT_EQ(MakeLocalExecutor(LocalExecutorSettings{{}, 1}).status().kind(), ErrorKind::kInvalidInput);
  EXPECT_EQ(MakeLocalExecutor(LocalExecutorSettings{{0, 0}, 1}).status().kind(), ErrorKind::kInvalidInput);
  auto executor = MakeLocalExecutor(LocalExecutorSettings{});
  ProblemWork relative = ShellWork("w", "true", "/dev/null");
  relative.command[0] = "sh";
  EXPECT_EQ((*executor)->Submit(relative).kind(), ErrorKind::kInvalidInput);
  ProblemWork greedy = ShellWork("w", "true", "/dev/null");
  greedy.gpus = 2;
  EXPECT_EQ((*executor)->Submit(greedy).kind(), ErrorKind::kInvalidInput);
  EXPECT_TRUE((*executor)->Attach("/nowhere")->empty());
}

}  // namespace
}  // namespace kopt::suite
