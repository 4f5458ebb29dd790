// No child of kopt outlives it, however kopt ends (kill -9 included): a
// resumed run never shares the GPU with an orphan that is still timing, and no
// compiler or profiler keeps running for a kopt that is gone. Three layers:
//
// 1. Every child kopt starts (core/subprocess.h StartChildProcess: the
//    CommandRunner's nvcc, ncu, cuobjdump, nvidia-smi, python3, kopt-runner,
//    sbatch and squeue, and the suite's local `kopt optimize` works) is the
//    leader of its own process group and has PR_SET_PDEATHSIG(SIGKILL) armed
//    between fork and exec, with getppid() checked afterwards (kopt died
//    before the signal was armed: the child exits before it runs anything).
//    PR_SET_PDEATHSIG fires when the *thread* that started the child ends,
//    not the process: a child must be started by a thread that outlives it.
//    CommandRunner::Run holds its thread until the child has ended; the local
//    executor's children belong to the one thread that polls it.
// 2. What a child starts itself (nvcc's cicc and ptxas, ncu's target, a
//    python probe's helpers) has no such signal: the orphan sweeper, a small
//    process kopt forks first thing (StartOrphanSweeper), is told every child
//    group as it is created (by the child itself, before its exec) and as it
//    ends, and when kopt ends (its end of a socket closes, which the kernel
//    does however kopt dies) sends SIGKILL to every group still registered.
//    While kopt lives, a group is killed as soon as its leader has ended
//    (core/subprocess.h), so only a kopt that died mid-child leaves any. A
//    group is forgotten before its leader is reaped (the id cannot belong to
//    another process before that), and the sweeper acts the moment kopt is
//    gone, so it does not kill a stranger's group that reused the id.
//    A descendant that leaves its group (setsid, setpgid) escapes both.
// 3. kopt-runner calls DieWithParent first thing as well: under ncu its parent
//    is ncu, not kopt, and it still dies when its parent does.
//
// Thread safety: StartOrphanSweeper once, early in main, before threads start;
// the rest from any thread, and from a child between fork and exec.
#pragma once

#include <sys/types.h>

#include <string_view>

namespace kopt {

inline constexpr std::string_view kParentPidVariable = "KOPT_PARENT_PID";

// Arms PR_SET_PDEATHSIG(SIGKILL) for this process. When the environment names
// the starter (kParentPidVariable) and that process has already ended (it died
// before the signal was armed), returns false: the caller exits at once.
// Returns true otherwise (also when the variable is absent or malformed: a
// child started by hand).
bool DieWithParent();

// Forks the orphan sweeper (layer 2 above): its own process group (a
// terminal's Ctrl-C and a kill of kopt's group do not reach it), stdio on
// /dev/null, SIGINT, SIGTERM, SIGHUP and SIGQUIT ignored; it ends right after
// kopt does. Best effort: when it cannot be started, kopt runs without it.
// Calling it again does nothing. Without it (tests, kopt-runner) the two
// functions below do nothing.
void StartOrphanSweeper();

// Tells the sweeper that process group `group` exists (kill it if kopt ends)
// or has ended (forget it). Async-signal-safe: one send() of a fixed-size
// record on a socket, never raising SIGPIPE.
void SweeperAddGroup(pid_t group);
void SweeperRemoveGroup(pid_t group);

}  // namespace kopt
