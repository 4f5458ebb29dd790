// The Slurm executor (suite/executor.h): each problem's optimize run is one
// task of an sbatch job array (docs/slurm.md says why an array and not one
// allocation with srun steps), followed with squeue, continued after what
// clusters do to jobs.
//
// Files, all under SUITE/slurm/ on the filesystem the nodes share:
// - jobs.json: every work with its attempts and job ids, rewritten
//   atomically after each change; a restarted driver's Attach reads it.
// - work/<n>/attempt-<a>.sh: the script of attempt a of work n (the work's
//   environment, the setup line, the command with --devices); it records
//   attempt-<a>.started (job id, node) when it starts the work and
//   attempt-<a>.exit ("exit CODE", "requeued N" or "setup CODE") when it
//   ends, each written to a temporary name and renamed. It claims the attempt
//   by creating attempt-<a>.claim (mkdir, atomic on NFS): a second job for the
//   same attempt exits at once, so no attempt's work runs twice.
// - submission-<m>.sh: the array's batch script; task i runs one attempt
//   script.
//
// What happens to a task, read from its records once squeue no longer
// lists it as waiting or running:
// - exit 0: succeeded; another exit code: failed with that code.
// - exit 143 or 130 (SIGTERM/SIGINT: the time limit's --signal, preemption,
//   an administrator's scancel) or "requeued" (Slurm requeued the task and
//   its second start found the attempt already begun): the problem is
//   continued in a new submission with `continuation_command(work)` (its run
//   state is in its workspace), at most max_continuations times.
// - waiting again in squeue although its attempt started (Slurm requeued
//   it: scontrol requeue, preemption, a node failure): scancel, then
//   continued as above at once rather than after Slurm's requeue delay.
// - no exit record (the node died, the job was killed with SIGKILL): the
//   problem is resubmitted the same way, at most max_node_failures times;
//   past that it is failed, saying so.
// Cancel and CancelAll call scancel; the work is kCancelled at once.
// Attach returns the recorded works not yet forgotten: queued, running, and
// those that ended while no driver ran (Poll reports them ended, so the
// driver records them instead of submitting them again).
//
// Every command goes through the CommandRunner (sbatch, squeue, scancel);
// a failed squeue is an error of Poll, never a reason to resubmit.
//
// Thread safety: one thread (the driver's loop).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/subprocess.h"
#include "suite/executor.h"
#include "suite/slurm_settings.h"

namespace kopt::suite {

struct SlurmExecutorSettings {
  SlurmSettings slurm;
  std::string suite_directory;  // absolute, on the shared filesystem; SUITE/slurm/ is created
  // The command that continues a work after an interruption (its workspace
  // holds its run state: the driver's `kopt optimize --resume RUN ...`).
  // Null: the work's own command again.
  std::function<std::vector<std::string>(const ProblemWork&)> continuation_command;
  // Seconds on the executor's clock (WorkStatus times); null: a steady clock
  // from the executor's construction.
  std::function<double()> clock;
};

Result<std::unique_ptr<Executor>> MakeSlurmExecutor(const SlurmExecutorSettings& settings,
                                                    CommandRunner& runner);

// One work of a suite's Slurm job record (SUITE/slurm/jobs.json) as the
// driver last wrote it, for `kopt suite status`.
struct SlurmJobRow {
  std::string key;
  WorkState state = WorkState::kQueued;
  std::string job;  // "1234_5"; "" while not submitted
  int attempt = 0;  // 1 for the first submission
  int node_failures = 0;
  int continuations = 0;
  std::string detail;  // the Slurm state and reason, or how it ended
};

// The rows of the record, in submission order (forgotten works included:
// they ended); empty when the suite never ran under Slurm. InvalidInput
// naming the file when it is not a record of this version.
Result<std::vector<SlurmJobRow>> ReadSlurmJobRecord(const std::string& suite_directory);

// The name of the suite's jobs in squeue: "kopt-" and 12 hex digits of the
// suite directory's SHA-256.
std::string SlurmJobName(const std::string& suite_directory);

}  // namespace kopt::suite
