// The local executor (suite/executor.h): the GPUs of this host, at most one
// work per GPU at a time (a work asking for n GPUs holds n), started in
// submission order as GPUs free up.
//
// Each work is a child process started as every child of kopt is
// (core/subprocess.h StartChildProcess, core/parent_death.h): no shell, its
// own process group, PR_SET_PDEATHSIG(SIGKILL) armed before the exec, its
// group known to the orphan sweeper. When the driver dies, even by kill -9,
// the kernel kills the work and the sweeper its group; the work's own
// children (kopt-runner, nvcc) die with it the same way. The child's stdout
// and stderr are appended to ProblemWork::log_path, stdin is /dev/null. Poll
// reaps an ended work (its group's leftovers killed first); Cancel sends
// SIGTERM to the group and SIGKILL after `kill_grace_seconds` (checked on
// later Polls).
//
// Attach returns nothing: no local work survives its driver.
//
// Thread safety: one thread (the driver's loop), which must live as long as
// the children (PR_SET_PDEATHSIG follows the thread that started them: a
// work started from a thread that then ends is killed).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "suite/executor.h"

namespace kopt::suite {

struct LocalExecutorSettings {
  std::vector<int> devices = {0};  // CUDA ordinals of this host the works share; not empty, distinct
  double kill_grace_seconds = 5;   // Cancel: SIGTERM, then SIGKILL this much later, s
};

// InvalidInput when devices is empty or has a repeated or negative ordinal.
Result<std::unique_ptr<Executor>> MakeLocalExecutor(const LocalExecutorSettings& settings);

}  // namespace kopt::suite
