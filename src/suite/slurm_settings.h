// How `kopt suite --executor slurm` asks Slurm for resources (docs/slurm.md):
// the `[slurm]` table of a suite configuration file and the matching flags,
// as a plain struct with documented defaults, and the sbatch options it
// becomes.
//
// Thread safety: plain data and pure functions.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt::suite {

// How the GPUs of one array task are requested: `--gres=gpu:N` (every Slurm
// version, the form most site documentation shows) or `--gpus-per-task=N`
// (cons_tres clusters, Slurm >= 19.05).
enum class GpuRequest { kGres, kGpusPerTask };
std::string_view GpuRequestName(GpuRequest request);  // "gres", "gpus-per-task"
Result<GpuRequest> ParseGpuRequest(std::string_view text);

struct SlurmSettings {
  std::string partition;   // sbatch --partition; "": the cluster's default partition
  std::string account;     // sbatch --account; "": the user's default account
  std::string qos;         // sbatch --qos; "": the association's default QOS
  std::string time_limit;  // sbatch --time ("MM", "HH:MM:SS", "D-HH:MM:SS"); "": the partition's limit
  int gpus_per_task = 1;   // GPUs of one array task (one problem's optimize run), >= 0 (0: CPU-only steps)
  GpuRequest gpu_request = GpuRequest::kGres;
  int cpus_per_task = 0;  // sbatch --cpus-per-task (nvcc compiles in parallel); 0: the partition's default
  std::vector<std::string>
      extra_sbatch_options;  // appended verbatim, e.g. {"--constraint=h100", "--mem=64G"}
  // A shell line run in the job before the work (`module load cuda/12.4`,
  // `source ~/venv/bin/activate`); "": none. A failure ends the task with
  // its exit code.
  std::string environment_setup;
  int max_node_failures = 2;   // per problem: a task lost with its node is resubmitted this often
  int max_continuations = 50;  // per problem: resubmissions after a time limit, preemption or requeue
  int max_array_tasks = 1000;  // tasks per sbatch array (the cluster's MaxArraySize - 1 at most)
  double poll_seconds = 10;    // the driver's interval between squeue calls, s (a hint for the loop)
};

// InvalidInput naming the field when a value is out of range, a time limit
// is not in sbatch's form or an extra option does not start with '-'.
Status ValidateSlurmSettings(const SlurmSettings& settings);

// Reads the `[slurm]` table of `document` (absent: `settings` unchanged) over
// `settings`: keys partition, account, qos, time_limit, gpus_per_task,
// gpu_request, cpus_per_task, extra_sbatch_options (array of strings),
// environment_setup, max_node_failures, max_continuations, max_array_tasks,
// poll_seconds. InvalidInput "FILE:LINE: [slurm] KEY: expected ..." for an
// unknown key or a value of the wrong type or range.
Status ReadSlurmTable(const toml::table& document, std::string_view file_name, SlurmSettings& settings);

// The sbatch options of one submission of `task_count` array tasks named
// `job_name`, without the script: --parsable, --job-name, --array=0-(n-1),
// --requeue, --signal, partition, account, qos, time, GPUs, CPUs and the
// extra options, in that order.
std::vector<std::string> SbatchOptions(const SlurmSettings& settings, std::string_view job_name,
                                       int task_count, std::string_view output_pattern);

}  // namespace kopt::suite
