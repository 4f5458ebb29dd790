// What Slurm says about a suite's jobs: parsers of `squeue` and `sacct`
// output (outside data: fuzzed in fuzz/slurm_queue_fuzz.cc) and the meaning of
// Slurm's job states for the executor.
//
// squeue is asked for one line per array task with
//   squeue --noheader --array --states=all --name=NAME --format=%i|%T|%r|%N
// (SqueueArguments) and sacct, where the cluster keeps accounting, with
//   sacct --noheader --parsable2 --name=NAME --format=JobID,State,ExitCode,NodeList
// (SacctArguments). Both print `ARRAYJOB_TASK` ids ("1234_5"); a line whose
// id is not an array task of this form (a job step "1234_5.batch", a pending
// range "1234_[6-9]" squeue prints without --array) is not a task line and
// is skipped; a line without the expected fields is InvalidInput naming it.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt::suite {

// The part of Slurm's job state that decides what the executor does.
enum class SlurmTaskPhase {
  kWaiting,  // PENDING, CONFIGURING, REQUEUED, REQUEUE_HOLD, REQUEUE_FED, RESIZING, SUSPENDED
  kRunning,  // RUNNING, COMPLETING, STAGE_OUT, SIGNALING
  kEnded,  // COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY,
           // ...
};
// Unknown state names are kEnded only when they are not a waiting or running
// state Slurm may add: the executor then reads the task's own exit record.
SlurmTaskPhase PhaseOfSlurmState(std::string_view state);

struct SlurmTaskLine {
  std::string array_job_id;        // "1234"
  int task_index = 0;              // 5 in "1234_5", >= 0
  std::string state;               // Slurm's state name, upper case as printed ("RUNNING", "CANCELLED")
  std::string reason;              // squeue's %r ("Resources", "Priority", "None"); sacct: ""
  std::string nodes;               // the node list ("" or "(null)" while pending is kept as "")
  std::optional<int> exit_code;    // sacct's ExitCode "2:0" → 2; squeue: none
  std::optional<int> exit_signal;  // sacct's ExitCode "0:9" → 9 (nonzero only)
};

std::vector<std::string> SqueueArguments(std::string_view job_name);
std::vector<std::string> SacctArguments(std::string_view job_name);

Result<std::vector<SlurmTaskLine>> ParseSqueueOutput(std::string_view text);
Result<std::vector<SlurmTaskLine>> ParseSacctOutput(std::string_view text);

// sbatch --parsable's answer "1234" or "1234;cluster": the job id, else
// InvalidInput quoting the text.
Result<std::string> ParseSbatchJobId(std::string_view text);

}  // namespace kopt::suite
