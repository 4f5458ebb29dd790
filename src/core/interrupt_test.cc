#include "core/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
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

}  // namespace
}  // namespace kopt
