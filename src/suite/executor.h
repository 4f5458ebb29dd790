// Where a suite's problems run (`kopt suite`, docs/suite.md): one interface,
// one file per implementation (local_executor.h: the GPUs of this host; a
// cluster scheduler is another implementation of the same contract).
//
// The unit of work is one problem's optimize run: a `kopt optimize` command
// line (ProblemWork::command) over the problem's task directory, with its own
// workspace and the budget as that command's flags. The work is resumable by
// construction: `kopt optimize` writes its run state after every step into the
// problem's workspace (search/run_state_store.h), so the driver (suite/) builds
// a `--resume RUN` command line for a problem whose workspace already holds a
// run. An executor never interprets the command; it places it (which GPUs),
// starts it, follows it and stops it.
//
// Contract of every implementation:
// - Submit queues the work and returns at once (no blocking on a free GPU).
//   Keys are unique among the work an executor holds: a second Submit of a
//   key that is queued or running is InvalidInput (the driver never runs a
//   problem twice at once).
// - Placement: the executor appends `--devices LIST` (CUDA ordinals, comma
//   separated, `gpus` of them) to the command. Local: ordinals of this host,
//   each given to at most one running work at a time. A scheduler: the
//   ordinals inside its allocation (e.g. 0 under CUDA_VISIBLE_DEVICES).
// - Poll starts what can start, reaps what ended, and returns the status of
//   every work the executor holds (queued, running, or ended since it was
//   submitted or attached), in submission order. It never blocks for long
//   (no waiting on work); the driver calls it in a loop and sleeps between.
//   An ended work keeps its final state until Forget.
// - Exit codes: `kopt optimize` exits 0 when the run finished, 2 when it
//   paused (LLM endpoint unavailable) or was refused, 1 when the reference
//   failed: WorkState::kSucceeded is exit 0 only; the rest is kFailed with the
//   code and the end described (core/subprocess.h DescribeCommandEnd wording).
// - Cancel stops a queued or running work (SIGTERM to its process group, then
//   SIGKILL; a scheduler: its cancel command) and marks it kCancelled; the
//   problem's optimize state stays resumable. Cancel of an unknown or ended
//   key is OK (nothing to do).
// - No orphans: a work's processes end when the driver ends, however it ends
//   (kill -9 included) — local: every child is started as core/parent_death.h
//   says (PR_SET_PDEATHSIG(SIGKILL) in its own process group, the group known
//   to the orphan sweeper); a scheduler's jobs outlive the driver by
//   design and are found again by Attach.
// - Attach(suite_directory) is called once by a restarted driver before it
//   submits anything: it returns the work of an earlier driver of the same
//   suite that is still queued or running (and from then on reports it through
//   Poll like its own), so that the driver does not submit it a second time.
//   Local: always empty (children die with their driver). A scheduler reads
//   the job ids it recorded under suite_directory and asks the scheduler.
// - Logs: the work's stdout and stderr go to ProblemWork::log_path (created
//   or appended), never to the driver's terminal.
//
// Thread safety: an executor is used from one thread (the driver's loop).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt::suite {

// One problem's optimize run, as the driver hands it to an executor.
struct ProblemWork {
  // Stable and unique in the suite: the problem's task directory name
  // ("kb_level1_19_ReLU"). Made of [A-Za-z0-9._-] (suite/suite_plan.h
  // checks), so it is safe in file names and job names.
  std::string key;
  // argv of the work, program first (the kopt executable, absolute), without
  // --devices: e.g. {"/usr/bin/kopt", "optimize", TASK, "--workspace", W,
  // "--max-evaluations", "20", "--quiet", ...} or {..., "optimize",
  // "--resume", "3", "--workspace", W, ...}.
  std::vector<std::string> command;
  std::vector<std::pair<std::string, std::string>> environment;  // added to the driver's
  std::string log_path;  // stdout + stderr of the work, appended; parent directory exists
  int gpus = 1;          // GPUs the work gets (its --devices list), >= 1
};

enum class WorkState {
  kQueued,     // submitted, not started (waiting for a GPU / the scheduler)
  kRunning,    // started and not ended
  kSucceeded,  // ended with exit code 0
  kFailed,     // ended otherwise (exit code, signal, or it could not start)
  kCancelled,  // ended by Cancel
};
std::string_view WorkStateName(WorkState state);  // "queued", "running", "succeeded", "failed", "cancelled"
bool IsEnded(WorkState state);                    // succeeded, failed or cancelled

struct WorkStatus {
  std::string key;
  WorkState state = WorkState::kQueued;
  std::optional<int> exit_code;  // when it exited (not for a signal)
  std::string detail;     // how it ended ("exit code 2", "signal 9 (SIGKILL)"), or why it could not start
  std::string placement;  // where it runs or ran: "gpu 0,1"; a scheduler: "job 1234_5 on node3"
  double started_seconds = 0;  // executor clock (s since the executor was made) at start; 0: not started
  double ended_seconds = 0;    // same clock at the end; 0: not ended
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string_view Name() const = 0;  // "local", "slurm"
  // How many works can run at once (local: GPUs / gpus per work); a hint for
  // the progress line, not a limit the driver enforces.
  virtual int Capacity() const = 0;
  // InvalidInput: a key already queued or running, an empty command, gpus < 1
  // or more GPUs than the executor has.
  virtual Status Submit(const ProblemWork& work) = 0;
  virtual Result<std::vector<WorkStatus>> Poll() = 0;
  virtual Status Cancel(const std::string& key) = 0;
  // Cancels every queued and running work (the driver's orderly stop).
  virtual Status CancelAll() = 0;
  // Drops an ended work from what Poll reports (the driver has recorded it).
  virtual void Forget(const std::string& key) = 0;
  virtual Result<std::vector<WorkStatus>> Attach(const std::string& suite_directory) = 0;
};

}  // namespace kopt::suite
