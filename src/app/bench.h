// `kopt bench TASK_DIR [CANDIDATE.cu ...]`: verifies and times candidates
// against the task's reference (docs/bench.md; the parts' contract is
// docs/harness-protocol.md).
//
// Flow: load the task; compile the reference and every candidate in parallel
// (harness/compiler.h, cached); as soon as the reference and a candidate are
// built, run them on the GPU, each in its own kopt-runner child with a
// watchdog: the reference first, then each candidate, then the reference
// again (drift). Every event is stored in the workspace as it is read
// (store/workspace.h); a candidate already measured with the same source,
// GPU and harness settings is not run again but reported from the store
// (--rerun forces). A failing candidate never stops the run.
//
// Result: OK when the run completed, even when candidates failed;
// WorkFailed when the reference itself failed; InvalidInput / NotFound /
// Unavailable for bad input (task, candidate files, no GPU, no runner).
// The report goes to `out` or, written atomically, to options.output_path.
//
// Thread safety: RunBench may be called from one thread at a time per workspace.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "hw/gpu_spec.h"

namespace kopt {

struct BenchOptions {
  std::string task_directory;
  std::vector<std::string> candidate_paths;  // empty: TASK_DIR/candidates/*.cu, sorted by name
  std::string workspace = ".kopt";           // the workspace directory (store/workspace.h)
  std::string format = "term";               // term | md | json
  std::string output_path;                   // empty: stdout
  int seeds = 0;                             // correctness seeds per child; 0: the task's check_seeds
  std::optional<uint64_t> seed;              // derive the seeds from this (reproduce a run); else random
  bool time = true;                          // --no-time: correctness only
  bool energy = false;                       // --energy: NVML joules per launch
  int jobs = 0;                              // parallel compiles; 0: all cores
  double timeout_seconds = 120;              // wall-clock watchdog per child
  double max_noise = 0.005;                  // timing stops at this relative stdev (fraction)
  int min_samples = 10;                      // timing samples at least
  double timing_seconds = 5;                 // timing stops after this much GPU time per child
  bool warm = false;                         // --warm: no L2 flush between samples
  std::string arch;                          // "sm_90a"; empty: from the GPU (device `device`)
  bool rerun = false;                        // measure again what the workspace already has
  int device = 0;                            // CUDA device ordinal
  bool compile_only = false;                 // compile, report compile results, run nothing
  bool progress = false;                     // a progress line on `progress` (the CLI sets it on a tty)
};

// The outside world RunBench touches, replaceable in tests.
struct BenchEnvironment {
  CommandRunner* command_runner = nullptr;  // nvcc and kopt-runner children
  // The GPUs of this machine (QueryLiveGpus); Unavailable when none.
  std::function<Result<std::vector<GpuSpec>>()> query_gpus;
  std::string runner_program;        // kopt-runner; empty: KOPT_RUNNER, else beside /proc/self/exe
  std::ostream* progress = nullptr;  // where the progress line goes (stderr)
};

// The default environment: the system command runner's caller supplies it.
BenchEnvironment DefaultBenchEnvironment(CommandRunner& command_runner, std::ostream& progress);

Status RunBench(const BenchOptions& options, const BenchEnvironment& environment, std::ostream& out);

// The kopt-runner to start: $KOPT_RUNNER when set, else kopt-runner in the
// directory of this executable (/proc/self/exe). NotFound naming both when
// the file is missing.
Result<std::string> FindRunnerProgram();

// The seeds of one run: `count` values from `seed` when given (reproducible),
// else from std::random_device.
std::vector<uint64_t> DrawSeeds(int count, std::optional<uint64_t> seed);

}  // namespace kopt
