// Tests of SystemCommandRunner with real programs (/bin/sh, sleep, pwd).
#include "core/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/process_state_test_util.h"

namespace kopt {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

CommandResult RunOk(const CommandSpec& spec) {
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  Result<CommandResult> result = runner->Run(spec);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? result.value() : CommandResult{};
}

CommandSpec Shell(const std::string& script) {
  return CommandSpec{{"/bin/sh", "-c", script}};
}

TEST(SubprocessTest, ReportsExitCodeAndOutput) {
  CommandResult result = RunOk(Shell("echo out; echo err >&2; exit 3"));
  EXPECT_FALSE(result.signaled);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.Succeeded());
  EXPECT_EQ(result.stdout_text, "out\n");
  EXPECT_EQ(result.stderr_text, "err\n");
  EXPECT_EQ(DescribeCommandEnd(result, 0), "exit code 3");
}

// Progress output: the pieces of stdout reach on_stdout while the child still runs.
TEST(SubprocessTest, OnStdoutSeesOutputBeforeTheChildExits) {
  CommandSpec spec = Shell("echo first; sleep 0.3; echo second");
  std::string seen;
  std::vector<double> when;
  Clock::time_point start = Clock::now();
  spec.on_stdout = [&](std::string_view piece) {
    seen += piece;
    when.push_back(SecondsSince(start));
  };
  CommandResult result = RunOk(spec);
  EXPECT_EQ(seen, "first\nsecond\n");
  EXPECT_EQ(result.stdout_text, "first\nsecond\n");
  ASSERT_GE(when.size(), 2u);
  EXPECT_LT(when.front() + 0.2, result.seconds);  // "first" came well before the exit
}

TEST(SubprocessTest, SucceedsWithExitZero) {
  CommandResult result = RunOk(CommandSpec{{"true"}});
  EXPECT_TRUE(result.Succeeded());
  EXPECT_EQ(result.exit_code, 0);
}

TEST(SubprocessTest, ReportsCrashBySignal) {
  CommandResult result = RunOk(Shell("kill -SEGV $$"));
  EXPECT_TRUE(result.signaled);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_FALSE(result.Succeeded());
  EXPECT_EQ(DescribeCommandEnd(result, 0), "signal 11 (SIGSEGV)");
}

TEST(SubprocessTest, PassesArgumentsVerbatimWithoutAShell) {
  CommandResult result = RunOk(CommandSpec{{"printf", "%s|", "a b", "$HOME", "*", "", "'q'"}});
  EXPECT_EQ(result.stdout_text, "a b|$HOME|*||'q'|");
}

TEST(SubprocessTest, TimeoutKillsTheChild) {
  CommandSpec spec{{"sleep", "30"}};
  spec.timeout_seconds = 0.3;
  Clock::time_point start = Clock::now();
  CommandResult result = RunOk(spec);
  EXPECT_LT(SecondsSince(start), 5.0);
  EXPECT_TRUE(result.timed_out);
  EXPECT_TRUE(result.signaled);
  EXPECT_EQ(result.signal, SIGTERM);
  EXPECT_FALSE(result.Succeeded());
  EXPECT_EQ(DescribeCommandEnd(result, 0.3), "timed out after 0.3 s (killed by signal 15 (SIGTERM))");
}

TEST(SubprocessTest, TimeoutEscalatesToSigkillWhenSigtermIsIgnored) {
  CommandSpec spec = Shell("trap '' TERM; echo ready; while :; do sleep 1; done");
  spec.timeout_seconds = 0.3;
  spec.kill_grace_seconds = 0.3;
  Clock::time_point start = Clock::now();
  CommandResult result = RunOk(spec);
  EXPECT_LT(SecondsSince(start), 5.0);
  EXPECT_TRUE(result.timed_out);
  EXPECT_TRUE(result.signaled);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_EQ(result.stdout_text, "ready\n");
}

TEST(SubprocessTest, TimeoutKillsTheWholeProcessGroup) {
  // The background sleep inherits the pipes; unless it is killed too, the
  // runner would wait for its output to end.
  std::filesystem::path marker =
      std::filesystem::temp_directory_path() / ("kopt_subprocess_group_" + std::to_string(getpid()));
  std::filesystem::remove(marker);
  CommandSpec spec = Shell("(sleep 2; touch '" + marker.string() + "') & sleep 30");
  spec.timeout_seconds = 0.3;
  Clock::time_point start = Clock::now();
  CommandResult result = RunOk(spec);
  EXPECT_LT(SecondsSince(start), 1.5);
  EXPECT_TRUE(result.timed_out);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the background child survived the timeout";
  std::filesystem::remove(marker);
}

// A grandchild the child did not wait for (a compiler's pass, a profiler's target) is killed when the
// child ends, at once: no waiting for its output to stop, nothing left running.
TEST(SubprocessTest, WhatAnEndedChildLeftRunningIsKilledWithIt) {
  Clock::time_point start = Clock::now();
  CommandResult result = RunOk(Shell("sleep 30 & echo $!"));
  EXPECT_LT(SecondsSince(start), 1.5);
  EXPECT_TRUE(result.Succeeded());
  pid_t grandchild = static_cast<pid_t>(std::stol(result.stdout_text));
  EXPECT_TRUE(StopsRunningWithinTwoSeconds(grandchild)) << "the grandchild outlived its parent";
}

// The child leads its own group and dies with the thread that started it (PR_SET_PDEATHSIG(SIGKILL),
// read back with PR_GET_PDEATHSIG); no signal blocked.
TEST(SubprocessTest, TheChildDiesWithItsParentAndBlocksNoSignal) {
  if (FindProgramOnPath("python3").empty()) GTEST_SKIP() << "no python3";
  CommandSpec spec{{"python3", "-c",
                    "import ctypes, os, signal\n"
                    "value = ctypes.c_int(0)\n"
                    "ctypes.CDLL(None).prctl(2, ctypes.byref(value))\n"  // PR_GET_PDEATHSIG
                    "print(value.value, os.getpgid(0) == os.getpid(), "
                    "len(signal.pthread_sigmask(signal.SIG_BLOCK, [])))\n"}};
  CommandResult result = RunOk(spec);
  EXPECT_EQ(result.stdout_text, std::to_string(SIGKILL) + " True 0\n") << result.stderr_text;
}

// The children of several threads at once: each thread's child lives until it ends, whatever the
// other threads do (PR_SET_PDEATHSIG follows the starting thread, which Run holds).
TEST(SubprocessTest, AThreadThatEndsDoesNotTakeOtherThreadsChildren) {
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  Result<CommandResult> longer = Internal("not run");
  std::thread first([&] { longer = runner->Run(Shell("sleep 0.5; echo alive")); });
  std::thread([&] { (void)runner->Run(Shell("true")); }).join();
  first.join();
  ASSERT_TRUE(longer.ok());
  EXPECT_TRUE(longer->Succeeded());
  EXPECT_EQ(longer->stdout_text, "alive\n");
}

TEST(SubprocessTest, StartChildProcessReportsAProgramThatCannotRun) {
  ChildProcess child;
  child.program_path = "/nonexistent/kopt-no-such-program";
  child.argv = {"kopt-no-such-program"};
  EXPECT_EQ(StartChildProcess(child).status().kind(), ErrorKind::kNotFound);
  child.program_path = "/bin/sh";
  child.argv = {};
  EXPECT_EQ(StartChildProcess(child).status().kind(), ErrorKind::kInvalidInput);
}

TEST(SubprocessTest, ReadsLargeOutputOnBothStreamsWithoutDeadlock) {
  // 1 MB to stderr first, then 1 MB to stdout: a reader that drained stdout
  // alone would block the child on a full stderr pipe.
  CommandResult result =
      RunOk(Shell("head -c 1048576 /dev/zero | tr '\\0' e >&2; head -c 1048576 /dev/zero | tr '\\0' o"));
  EXPECT_TRUE(result.Succeeded());
  ASSERT_EQ(result.stdout_text.size(), 1048576u);
  ASSERT_EQ(result.stderr_text.size(), 1048576u);
  EXPECT_EQ(result.stdout_text.find_first_not_of('o'), std::string::npos);
  EXPECT_EQ(result.stderr_text.find_first_not_of('e'), std::string::npos);
  EXPECT_FALSE(result.output_truncated);
}

TEST(SubprocessTest, CapsKeptOutput) {
  CommandSpec spec = Shell("head -c 100000 /dev/zero | tr '\\0' x");
  spec.max_output_bytes = 1000;
  CommandResult result = RunOk(spec);
  EXPECT_TRUE(result.Succeeded());
  EXPECT_EQ(result.stdout_text.size(), 1000u);
  EXPECT_TRUE(result.output_truncated);
}

TEST(SubprocessTest, EnvironmentOverridesAndAdds) {
  CommandSpec spec = Shell("printf '%s|%s' \"$KOPT_TEST_VARIABLE\" \"$HOME\"");
  spec.environment = {{"KOPT_TEST_VARIABLE", "hello world"}, {"HOME", "/kopt/home"}};
  CommandResult result = RunOk(spec);
  EXPECT_EQ(result.stdout_text, "hello world|/kopt/home");
}

TEST(SubprocessTest, InheritsTheParentEnvironment) {
  setenv("KOPT_SUBPROCESS_INHERITED", "yes", 1);
  CommandResult result = RunOk(Shell("printf %s \"$KOPT_SUBPROCESS_INHERITED\""));
  unsetenv("KOPT_SUBPROCESS_INHERITED");
  EXPECT_EQ(result.stdout_text, "yes");
}

TEST(SubprocessTest, PathOverrideIsUsedForLookup) {
  CommandSpec spec{{"sh", "-c", "exit 0"}};
  spec.environment = {{"PATH", "/kopt-nonexistent-directory"}};
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  Result<CommandResult> result = runner->Run(spec);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotFound);
}

TEST(SubprocessTest, RunsInTheWorkingDirectory) {
  std::filesystem::path directory = std::filesystem::canonical(std::filesystem::temp_directory_path());
  CommandSpec spec{{"pwd", "-P"}};
  spec.working_directory = directory.string();
  CommandResult result = RunOk(spec);
  EXPECT_EQ(result.stdout_text, directory.string() + "\n");
}

TEST(SubprocessTest, MissingWorkingDirectoryIsNotFound) {
  CommandSpec spec{{"true"}};
  spec.working_directory = "/kopt/no/such/directory";
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(spec);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(result.status().message().find("/kopt/no/such/directory"), std::string::npos);
}

TEST(SubprocessTest, StdinIsEmpty) {
  CommandSpec spec{{"cat"}};
  spec.timeout_seconds = 10;
  CommandResult result = RunOk(spec);
  EXPECT_TRUE(result.Succeeded());
  EXPECT_EQ(result.stdout_text, "");
}

TEST(SubprocessTest, UnknownProgramIsNotFoundNamingIt) {
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(CommandSpec{{"kopt-no-such-program", "x"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(result.status().message().find("kopt-no-such-program"), std::string::npos);
}

TEST(SubprocessTest, MissingPathIsNotFoundNamingIt) {
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(CommandSpec{{"/kopt/no/such/program"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(result.status().message().find("/kopt/no/such/program"), std::string::npos);
}

TEST(SubprocessTest, NonExecutableFileIsNotFound) {
  std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("kopt_subprocess_plain_" + std::to_string(getpid()));
  std::ofstream(file) << "not a program\n";
  chmod(file.c_str(), 0644);
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(CommandSpec{{file.string()}});
  std::filesystem::remove(file);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(result.status().message().find(file.string()), std::string::npos);
}

TEST(SubprocessTest, EmptyCommandIsInvalidInput) {
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(CommandSpec{});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidInput);
}

TEST(SubprocessTest, FindProgramSearchesPath) {
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  std::string shell = runner->FindProgram("sh");
  ASSERT_FALSE(shell.empty());
  EXPECT_EQ(shell.front(), '/');
  EXPECT_EQ(std::filesystem::path(shell).filename(), "sh");
  EXPECT_EQ(runner->FindProgram("/bin/sh"), "/bin/sh");
  EXPECT_EQ(runner->FindProgram("kopt-no-such-program"), "");
  EXPECT_EQ(runner->FindProgram("/kopt/no/such/program"), "");
  EXPECT_EQ(runner->FindProgram("/tmp"), "");  // a directory is not a program
}

TEST(SubprocessTest, ConcurrentRunsKeepTheirOutputApart) {
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  std::vector<std::string> outputs(8);
  std::vector<std::thread> threads;
  for (int index = 0; index < 8; ++index) {
    threads.emplace_back([&, index] {
      Result<CommandResult> result = runner->Run(Shell("sleep 0.1; echo " + std::to_string(index)));
      if (result.ok()) outputs[index] = result->stdout_text;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int index = 0; index < 8; ++index) EXPECT_EQ(outputs[index], std::to_string(index) + "\n");
}

TEST(SubprocessTest, CommandLineForDisplayQuotes) {
  EXPECT_EQ(CommandLineForDisplay({"ncu", "-k", "regex:a b", "it's", "", "--set=full"}),
            "ncu -k 'regex:a b' 'it'\\''s' '' --set=full");
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

TEST(SubprocessChannelTest, TheChildsChannelDescriptorArrivesApartFromStdout) {
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf 'frame' >&3; echo line; printf 'more' >&3"};
  spec.channel_fd = 3;
  CommandResult result = RunOk(spec);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.channel_bytes, "framemore");
  EXPECT_EQ(result.stdout_text, "line\n");
  ASSERT_FALSE(result.stdout_arrivals.empty());
  EXPECT_EQ(result.stdout_arrivals.back().end_offset, 5u);
  EXPECT_GE(ArrivalSeconds(result.stdout_arrivals, 5), 0);
  EXPECT_GT(result.seconds, 0);
}

TEST(SubprocessChannelTest, TheExpectedSizeIsOnlyAHint) {
  // 12 MiB from the child: more than a small hint, less than a huge one (reserved, huge pages asked for).
  for (size_t expected : {size_t{16}, size_t{64} << 20}) {
    CommandSpec spec;
    spec.argv = {"/bin/sh", "-c", "head -c 12582912 /dev/zero | tr '\\0' 'k' >&3"};
    spec.channel_fd = 3;
    spec.expected_channel_bytes = expected;
    CommandResult result = RunOk(spec);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.channel_bytes, std::string(size_t{12} << 20, 'k')) << expected;
    EXPECT_FALSE(result.channel_truncated);
  }
}

TEST(SubprocessChannelTest, TheChannelArrivesInTheMemoryItWasGiven) {
  std::string storage(size_t{1} << 20, 'x');
  const char* memory = storage.data();
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf 'frame' >&3"};
  spec.channel_fd = 3;
  spec.channel_storage = &storage;
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  Result<CommandResult> ran = runner->Run(spec);
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  CommandResult result = std::move(ran).value();  // moved, as RunnerClient does: no copy of the channel
  EXPECT_EQ(result.channel_bytes, "frame") << "the old contents are gone";
  EXPECT_EQ(result.channel_bytes.data(), memory) << "the same allocation, no new pages";
  EXPECT_TRUE(storage.empty());
}

TEST(SubprocessChannelTest, AChannelLongerThanTheMemoryGivenGoesOnAfterIt) {
  for (size_t expected : {size_t{0}, size_t{8}}) {
    std::string storage(4, 'x');  // read into directly up to its size (or the expected size), then appended
    CommandSpec spec;
    spec.argv = {"/bin/sh", "-c", "printf 'frame-' >&3; sleep 0.05; printf 'and-more-of-it' >&3"};
    spec.channel_fd = 3;
    spec.channel_storage = &storage;
    spec.expected_channel_bytes = expected;
    CommandResult result = RunOk(spec);
    EXPECT_EQ(result.channel_bytes, "frame-and-more-of-it") << "expected " << expected;
  }
}

TEST(SubprocessChannelTest, AChannelMustNotTakeTheStandardDescriptors) {
  CommandSpec spec;
  spec.argv = {"/bin/true"};
  spec.channel_fd = 2;
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  EXPECT_FALSE(runner->Run(spec).ok());
}

TEST(SubprocessChannelTest, ArrivalSecondsPicksThePieceThatReachedAnOffset) {
  std::vector<OutputArrival> arrivals = {{10, 0.5}, {30, 1.5}};
  EXPECT_EQ(ArrivalSeconds(arrivals, 5), 0.5);
  EXPECT_EQ(ArrivalSeconds(arrivals, 10), 0.5);
  EXPECT_EQ(ArrivalSeconds(arrivals, 11), 1.5);
  EXPECT_EQ(ArrivalSeconds(arrivals, 99), 1.5);
  EXPECT_EQ(ArrivalSeconds({}, 1), 0);
}

}  // namespace
}  // namespace kopt
