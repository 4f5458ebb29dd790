#include "core/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "core/subprocess.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

// Running: /proc has it and it is not a zombie (an orphan waits for init to reap it).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, command, state;
  if (!(stat >> pid_text >> command >> state)) return false;
  return state != "Z" && state != "X";
}

// What Ctrl-C does, without the signal: a running child (a shell whose own child sleeps, both in the
// child's process group) is killed with its group, and the registered cleanups run.
TEST(Interrupt, KillsTheChildsWholeGroupAndRunsTheCleanups) {
  fs::path directory = fs::temp_directory_path() / ("kopt_interrupt_test_" + std::to_string(getpid()));
  fs::create_directories(directory);
  fs::path grandchild_pid = directory / "grandchild.pid";
  bool cleaned = false;
  InterruptCleanup cleanup([&] {
    cleaned = true;
    fs::remove_all(directory);
  });
  auto runner = MakeSystemCommandRunner();
  auto started = std::chrono::steady_clock::now();
  std::future<Result<CommandResult>> run = std::async(std::launch::async, [&] {
    CommandSpec spec;
    spec.argv = {"/bin/sh", "-c", "sleep 60 & echo $! > " + grandchild_pid.string() + "; wait"};
    return runner->Run(spec);
  });
  for (int i = 0; i < 500 && !fs::exists(grandchild_pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(grandchild_pid));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  pid_t sleeper = 0;
  std::ifstream(grandchild_pid) >> sleeper;
  ASSERT_GT(sleeper, 0);
  RunInterruptCleanupsForTest(SIGINT);
  Result<CommandResult> result = run.get();
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->signaled);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  for (int i = 0; i < 100 && Running(sleeper); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(Running(sleeper)) << "the grandchild (sleep 60) died with the group";
  EXPECT_TRUE(cleaned);
  EXPECT_FALSE(fs::exists(directory));
}

// Issue 19 (found on a CPU machine with `kopt bench --compile-only`): after Ctrl-C a compile worker saw
// its nvcc die and started the next nvcc while kopt cleaned up; that one outlived kopt under init, with
// its temporary directory. From the interrupt on no program starts, a group registered meanwhile is
// killed at once, and a cleanup registered meanwhile still runs.
TEST(Interrupt, NothingStartedDuringTheInterruptOutlivesIt) {
  auto runner = MakeSystemCommandRunner();
  Result<CommandResult> started_late = CommandResult{};
  pid_t late_child = -1;
  bool late_cleanup_ran = false;
  std::unique_ptr<InterruptCleanup> late_cleanup;
  InterruptCleanup during([&] {
    // What another thread does while the interrupt is handled: start a program, register a child
    // group it spawned itself, take a temporary directory.
    started_late = runner->Run(CommandSpec{{"sleep", "1"}});
    late_child = fork();
    if (late_child == 0) {
      setpgid(0, 0);
      pause();
      _exit(0);
    }
    setpgid(late_child, late_child);
    RegisterChildGroup(late_child);
    late_cleanup = std::make_unique<InterruptCleanup>([&] { late_cleanup_ran = true; });
  });
  RunInterruptCleanupsForTest(SIGINT);
  EXPECT_FALSE(started_late.ok()) << "a program started during the interrupt";
  ASSERT_GT(late_child, 0);
  int status = 0;
  pid_t reaped = 0;
  for (int i = 0; i < 200 && reaped == 0; ++i) {
    reaped = waitpid(late_child, &status, WNOHANG);
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (reaped == 0) kill(late_child, SIGKILL), waitpid(late_child, &status, 0);
  EXPECT_EQ(reaped, late_child) << "the group registered during the interrupt was not killed";
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(late_cleanup_ran);
  UnregisterChildGroup(late_child);
  late_cleanup.reset();
  // Afterwards (tests only) programs run again.
  EXPECT_FALSE(InterruptRequested());
  EXPECT_TRUE(runner->Run(CommandSpec{{"true"}}).ok());
}

}  // namespace
}  // namespace kopt
