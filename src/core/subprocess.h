// Running other programs (nvcc, ncu, cuobjdump, the user's program), behind an
// interface so that tests can substitute a fake.
//
// The system implementation starts every child through StartChildProcess
// (below), pipes its stdout and stderr, has a wall-clock watchdog (SIGTERM,
// then SIGKILL after a grace period, killing the child's whole process
// group), and never uses a shell: arguments are passed verbatim.
//
// The child gets stdin from /dev/null, its own process group (so that a
// timeout kills everything it started), and default signal dispositions.
// A program name without '/' is looked up on PATH (the PATH of
// CommandSpec::environment when it sets one, else the parent's).
//
// No child outlives kopt (core/parent_death.h): the child dies with the
// thread that called Run (PR_SET_PDEATHSIG, and Run returns only after the
// child has ended); when the child ends, what is left of its process group
// (a grandchild it did not wait for) is killed before the child is reaped
// (so a daemon started through Run must be in a session of its own before
// its starter exits: `setsid -w DAEMON`);
// the group is registered with the interrupt handler (core/interrupt.h) and
// the orphan sweeper from its start to its end. A child ended by SIGTERM,
// SIGINT or SIGHUP that kopt did not send (scancel signals every process of
// a Slurm job) is not reported until kopt's own interrupt had a moment to
// arrive: when it does, Run never returns (core/interrupt.h
// AwaitInterruptAfterChildSignal), so no verdict is drawn from a child that
// was killed for kopt's interrupt.
//
// Thread safety: SystemCommandRunner may be used from several threads at once
// (pipes are created close-on-exec, so concurrent children do not inherit
// each other's ends).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace kopt {

struct CommandSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::vector<std::pair<std::string, std::string>> environment;  // added to / overriding the parent's
  std::string working_directory;                                 // empty: the parent's
  double timeout_seconds = 0;                                    // 0: no limit
  // After the timeout: SIGTERM to the child's process group, then SIGKILL
  // when it is still running this many seconds later.
  double kill_grace_seconds = 3;
  // Each of stdout and stderr keeps at most this many bytes; the rest is read
  // and discarded (CommandResult::output_truncated). 0: no limit.
  size_t max_output_bytes = size_t{1} << 30;
  // >= 3: the child also gets the write end of a pipe at this descriptor
  // number (kopt-runner's output channel, runner_protocol/output_frames.h); what it
  // writes there arrives in CommandResult::channel_bytes. -1: none.
  int channel_fd = -1;
  // The channel keeps at most this many bytes (the rest is read and
  // discarded; channel_truncated). 0: no limit.
  size_t max_channel_bytes = size_t{16} << 30;
  // How many bytes the channel is expected to carry (0: unknown): reserved
  // up front (at most max_channel_bytes), so that a large channel is not
  // copied as it grows; only a hint, the channel may carry more or less.
  size_t expected_channel_bytes = 0;
  // >= 0 (with channel_fd >= 3): the child gets this descriptor at
  // channel_fd instead of a pipe (a ChannelMemory's, core/channel_memory.h):
  // it writes its channel there itself and the parent reads nothing while it
  // runs (channel_bytes stays empty; the caller seals and maps the memory
  // after Run). Borrowed: the caller keeps it open and closes it.
  int channel_memory_fd = -1;
  // Memory to receive the channel into (null: a new string): its allocation
  // is moved into CommandResult::channel_bytes, so pages a previous child's
  // channel already faulted in are not faulted again (about 1.3 GB/s on the
  // H200's host: the bound on a large channel). A pipe is appended to it
  // (its bytes are dropped, its capacity kept; reading straight into the
  // bytes was slower, bench/results/output_channel_cpu.md); a pulled channel
  // (channel_pull) is copied into its bytes, which it grows only past their
  // size. *channel_storage is left empty.
  std::string* channel_storage = nullptr;
  // With channel_fd >= 3 (and no channel_memory_fd): the channel is pulled
  // (core/channel_pull.h): the child gets one end of a stream socket at
  // channel_fd instead of a pipe, sends records there, and the parent copies
  // the payloads they name from the child's memory into channel_bytes (into
  // channel_storage's bytes first: give it a size), acking each on the socket.
  bool channel_pull = false;
  // A pulled channel's observers, on the thread that called Run (null:
  // none): on_channel with the channel's bytes that arrived so far (a prefix
  // that only grows) after each pulled piece; before_channel_moves just
  // before those bytes move (the storage grows past its capacity): views
  // into them end there.
  std::function<void(std::string_view)> on_channel = nullptr;
  std::function<void()> before_channel_moves = nullptr;
  // Called with each piece of stdout as it arrives (any size, not split at
  // lines), on the thread that called Run; null: none. For progress output:
  // the pieces are stored in CommandResult::stdout_text all the same.
  std::function<void(std::string_view)> on_stdout = nullptr;
};

// When a piece of a child's stdout arrived: the stdout offset just past it,
// and the parent's seconds since the child was started.
struct OutputArrival {
  size_t end_offset = 0;
  double seconds = 0;
};

struct CommandResult {
  int exit_code = -1;     // valid when !signaled && !timed_out
  bool signaled = false;  // ended by a signal (crash)
  int signal = 0;
  bool timed_out = false;  // killed by the watchdog (signaled/signal or exit_code say how it ended)
  std::string stdout_text;
  std::string stderr_text;
  bool output_truncated = false;  // max_output_bytes was reached on stdout or stderr
  std::string channel_bytes;      // what the child wrote to CommandSpec::channel_fd
  bool channel_truncated = false;
  // A pulled channel (CommandSpec::channel_pull) that broke: what happened
  // (empty: it did not); channel_bytes ends at the last whole record.
  // `channel_refused`: the kernel refused the parent's reads of the child's
  // memory (not the child's doing).
  std::string channel_error;
  bool channel_refused = false;
  // Every read from stdout, in order (the parent's clock, not the child's).
  std::vector<OutputArrival> stdout_arrivals;
  double seconds = 0;  // wall time from the start to the exit, the parent's clock
  bool Succeeded() const { return !signaled && !timed_out && exit_code == 0; }
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs the command to completion. A program that cannot be started (not
  // found, not executable) is a NotFound status; a program that ran and
  // failed is an OK result with its exit code.
  virtual Result<CommandResult> Run(const CommandSpec& spec) = 0;
  // The full path of `program` when it is found on PATH (or is a path), else "".
  virtual std::string FindProgram(const std::string& program) = 0;
};

std::unique_ptr<CommandRunner> MakeSystemCommandRunner();

// One child started as every child of kopt is (the contract above and in
// core/parent_death.h): the leader of its own process group, killed with
// the calling thread (PR_SET_PDEATHSIG(SIGKILL), armed before the exec; when
// kopt died before it was armed the child exits 127 without running), its
// group registered with the orphan sweeper before the exec, every signal at
// its default disposition and none blocked, stdin from /dev/null, no other
// descriptor of kopt's (they are close-on-exec). The caller reaps it, and
// calls SweeperRemoveGroup before it does.
struct ChildProcess {
  std::string program_path;              // as given, no PATH lookup
  std::vector<std::string> argv;         // argv[0] included
  std::vector<std::string> environment;  // "NAME=value": the child's whole environment
  std::string working_directory;         // empty: the parent's
  int stdout_fd = -1;                    // -1: /dev/null
  int stderr_fd = -1;                    // -1: /dev/null
  int extra_fd = -1;                     // >= 0: also given to the child as extra_fd_target
  int extra_fd_target = -1;
};

// The child's pid. NotFound when the program cannot be run (missing, not
// executable, not a program); Internal for other failures (clone, chdir).
Result<pid_t> StartChildProcess(const ChildProcess& child);

// The parent's environment with `overrides` added or replacing entries of the same name.
std::vector<std::string> EnvironmentWith(const std::vector<std::pair<std::string, std::string>>& overrides);

// Asks for transparent huge pages on the 2 MiB-aligned part of `bytes` bytes
// at `address` (madvise MADV_HUGEPAGE; best effort, nothing for less than
// 8 MiB): a large channel buffer then takes 512 times fewer page faults and
// TLB entries. Call it before the memory is first written.
void AdviseHugePages(void* address, size_t bytes);

// The system runner's lookup: the full path of `program` when it is an
// executable path, or found on this process's PATH (absolute), else "".
std::string FindProgramOnPath(const std::string& program);

// The parent-clock arrival time of the stdout byte just before `end_offset`
// (the end of a line): the first arrival whose piece reaches it; the last
// arrival's time when none does; 0 without arrivals.
double ArrivalSeconds(const std::vector<OutputArrival>& arrivals, size_t end_offset);

// How a command ended, for messages: "exit code 3", "signal 11 (SIGSEGV)",
// "timed out after 5 s (killed by signal 15 (SIGTERM))".
std::string DescribeCommandEnd(const CommandResult& result, double timeout_seconds);

// "signal 11 (SIGSEGV)"; the name is given for the common crash and kill signals.
std::string DescribeSignal(int signal_number);

// The command line as a person would type it in a POSIX shell, quoting
// arguments that need it: for messages and logs, never for execution.
std::string CommandLineForDisplay(const std::vector<std::string>& argv);

}  // namespace kopt
