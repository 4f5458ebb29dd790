// Ending kopt by Ctrl-C (SIGINT), kill (SIGTERM) or a closed terminal
// (SIGHUP) leaves nothing behind: the children kopt started (nvcc, ncu,
// kopt-runner; each in its own process group, core/subprocess.h) are killed
// with their whole groups, temporary directories are removed, and the work
// in progress is recorded as interrupted (a run in the workspace database),
// so the same command resumes it.
//
// InstallInterruptHandling (called first thing in main, before any thread
// starts) blocks the three signals in every thread and waits for them on a
// thread of its own; on one it signals every registered child group (SIGTERM,
// SIGKILL after 2 s), runs the registered cleanups (newest first), again for
// what other threads registered meanwhile (InterruptRequested), prints
// "kopt: interrupted" and exits with 128 + the signal number (130 for Ctrl-C).
// Without it (tests, benchmarks) registrations are kept and never run.
// SIGKILL of kopt itself cannot be handled: its children then die with it
// and the orphan sweeper kills their groups (core/parent_death.h), but the
// cleanups do not run (the run stays "running"; --resume continues it).
//
// A child started while the handler runs is killed either way: the flag is
// set before the handler reads the registry, and a group registered after
// that is killed at registration (RegisterChildGroup); one started between
// the handler's last round and kopt's exit dies with kopt (PR_SET_PDEATHSIG).
//
// Thread safety: every function may be called from any thread.
#pragma once

#include <sys/types.h>

#include <functional>

namespace kopt {

void InstallInterruptHandling();

// A child's process group, signalled on an interrupt while registered; one
// registered while an interrupt is being handled is killed at once.
void RegisterChildGroup(pid_t process_group);
void UnregisterChildGroup(pid_t process_group);

// True from an interrupt on (until kopt exits): the system command runner then
// starts no program (core/subprocess.h), so a worker thread that sees its
// child die does not start the next one while kopt cleans up.
bool InterruptRequested();

// Called by a thread that finished its work while an interrupt is handled
// (its children were killed under it, so what it would report is not true):
// waits for the handler to end kopt, and never returns then. Returns at once
// when no interrupt is being handled.
void AwaitInterruptExit();

// Called when a child kopt did not time out has ended, with the signal that
// ended it (0: it exited). With interrupt handling installed: while an
// interrupt is being handled it never returns (the child was killed under its
// caller, or its result is not trusted: AwaitInterruptExit); after SIGTERM,
// SIGINT or SIGHUP it waits up to 2 s for kopt's own interrupt first, since
// such a signal is usually meant for kopt as well (scancel and a preemption
// signal every process of a Slurm job, and the child may get its signal
// first), and never returns when that comes. So the caller draws no verdict
// from a child killed for an interrupt. Returns at once otherwise, and
// without interrupt handling.
void AwaitInterruptAfterChildSignal(int signal_number);

// Runs `cleanup` on an interrupt while the object lives (remove a temporary
// directory, mark a run interrupted). The cleanup must not block for long.
class InterruptCleanup {
 public:
  explicit InterruptCleanup(std::function<void()> cleanup);
  ~InterruptCleanup();
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

 private:
  int id_;
};

// Runs what an interrupt runs (kill the registered groups, the cleanups) and
// returns; for tests. `signal_number` is what the exit status would carry.
// Afterwards kopt runs normally again (InterruptRequested is false).
void RunInterruptCleanupsForTest(int signal_number);

}  // namespace kopt
