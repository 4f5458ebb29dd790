// Fuzz target for the parsers of Slurm's answers (suite/slurm_queue.h):
// squeue and sacct output and sbatch --parsable's job id. Besides "no crash",
// checks that every parsed task has a numeric array job id, a task index >= 0
// and a state, and that an error says which line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "suite/slurm_queue.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckTasks(const kopt::Result<std::vector<kopt::suite::SlurmTaskLine>>& tasks) {
  if (!tasks.ok()) {
    Check(tasks.status().message().find("line") != std::string::npos);
    return;
  }
  for (const kopt::suite::SlurmTaskLine& task : *tasks) {
    Check(!task.array_job_id.empty() && task.task_index >= 0 && !task.state.empty());
    Check(task.array_job_id.find_first_not_of("0123456789") == std::string::npos);
    (void)kopt::suite::PhaseOfSlurmState(task.state);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckTasks(kopt::suite::ParseSqueueOutput(text));
  CheckTasks(kopt::suite::ParseSacctOutput(text));
  auto job_id = kopt::suite::ParseSbatchJobId(text);
  if (job_id.ok()) Check(!job_id->empty());
  return 0;
}
