#include "core/parent_death.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/process_state_test_util.h"
#include "core/subprocess.h"

namespace kopt {
namespace {

// A middle process starts a grandchild that calls DieWithParent and reports
// its pid on a pipe; the test kills the middle process with SIGKILL and
// expects the grandchild gone.
TEST(ParentDeathTest, TheChildDiesWhenItsParentIsKilled) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    pid_t child = fork();
    if (child == 0) {
      setenv(std::string(kParentPidVariable).c_str(), std::to_string(getppid()).c_str(), 1);
      if (!DieWithParent()) _exit(3);
      pid_t self = getpid();
      (void)!write(pipe_fds[1], &self, sizeof self);
      for (;;) pause();
    }
    for (;;) pause();
  }
  close(pipe_fds[1]);
  pid_t grandchild = 0;
  ASSERT_EQ(read(pipe_fds[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  close(pipe_fds[0]);
  EXPECT_TRUE(ProcessRunning(grandchild));
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  EXPECT_TRUE(StopsRunningWithinTwoSeconds(grandchild)) << "the child outlived its parent";
}

// A middle process with the orphan sweeper starts a child through StartChildProcess, and that child a
// grandchild (as nvcc starts cicc): the grandchild has no parent-death signal of its own, and still
// goes when the middle process is killed with SIGKILL (the sweeper kills the child's group).
TEST(ParentDeathTest, TheSweeperKillsAGrandchildWhenItsGrandparentIsKilled) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    close(pipe_fds[0]);
    StartOrphanSweeper();
    ChildProcess child;
    child.program_path = "/bin/sh";
    child.argv = {"sh", "-c", "sleep 300 & echo $!; wait"};
    child.environment = EnvironmentWith({});
    child.stdout_fd = pipe_fds[1];
    if (!StartChildProcess(child).ok()) _exit(3);
    for (;;) pause();
  }
  close(pipe_fds[1]);
  char text[32] = {};
  ssize_t got = read(pipe_fds[0], text, sizeof text - 1);
  close(pipe_fds[0]);
  ASSERT_GT(got, 0);
  pid_t grandchild = static_cast<pid_t>(std::atol(text));
  ASSERT_GT(grandchild, 1);
  EXPECT_TRUE(ProcessRunning(grandchild));
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  EXPECT_TRUE(StopsRunningWithinTwoSeconds(grandchild)) << "the grandchild outlived its grandparent";
}

TEST(ParentDeathTest, AStarterAlreadyGoneMeansExitAtOnce) {
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  pid_t child = fork();
  if (child == 0) {
    setenv(std::string(kParentPidVariable).c_str(), std::to_string(gone).c_str(), 1);
    _exit(DieWithParent() ? 0 : 7);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 7);
  child = fork();
  if (child == 0) {
    unsetenv(std::string(kParentPidVariable).c_str());
    _exit(DieWithParent() ? 0 : 7);  // started by hand: nothing to check
  }
  waitpid(child, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace kopt
