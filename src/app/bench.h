// `kopt bench TASK_DIR [CANDIDATE.cu ...]`: verifies and times candidates
// against the task's reference (docs/bench.md). The measuring is
// measure/measure.h (Measure); this command loads the candidate files,
// draws the progress line, renders the report (report/bench_renderer.h) and
// writes it.
//
// Result: OK when the run completed, even when candidates failed;
// WorkFailed when the reference itself failed (Unavailable when its device
// was); InvalidInput / NotFound / Unavailable for bad input (task, candidate
// files, no GPU, no runner; an output_path naming the task's or a candidate's
// file, checked before anything runs). The report goes to `out` or, written
// atomically, to options.output_path; with a failing reference it is
// written before the error is returned.
//
// Thread safety: RunBench may be called from one thread at a time per workspace.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "hw/gpu_spec.h"
#include "measure/measure.h"

namespace kopt {

struct BenchOptions {
  std::string task_directory;
  std::vector<std::string> candidate_paths;  // empty: TASK_DIR/candidates/*.cu, sorted by name
  MeasureSettings measure;                   // the harness settings (workspace, seeds, timing, ...)
  std::string format;                        // term | md | json; "": from output_path's extension, else term
  std::string output_path;                   // empty: stdout
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

// The candidates of a bench run: `paths`, else TASK_DIR/candidates/*.cu
// sorted by name; each read whole (16 MiB at most) and named by its file
// stem, made unique in order ("a", "b", "a#2"; a candidate called
// "reference" is "reference#2"). A file given twice is one candidate.
Result<std::vector<CandidateSource>> LoadCandidateFiles(const std::string& task_directory,
                                                        const std::vector<std::string>& paths);

}  // namespace kopt
