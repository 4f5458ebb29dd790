// `kopt optimize TASK_DIR [SEED.cu ...]` and `kopt report [RUN]`
// (docs/optimize.md): the command's wiring. The loop itself is
// optimize/optimization_loop.h; this file builds the generator (scripted
// directory, LLM client, builtin), the profiler (ncu when it is on PATH),
// the feedback renderers, the progress line, and renders the final report.
//
// Result: OK when the run finished or paused (the report says which); the
// loop's errors otherwise (InvalidInput / NotFound for bad input, WorkFailed
// when the reference fails).
//
// Thread safety: one call at a time per workspace.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "core/status.h"
#include "core/subprocess.h"
#include "measure/measure.h"
#include "optimize/optimize_settings.h"

namespace kopt {

struct OptimizeOptions {
  OptimizeSettings settings;
  std::string format = "term";  // term | md | json | html: the final report
  std::string output_path;      // empty: stdout
  bool quiet = false;           // no progress lines
  bool color = false;
};

// The outside world of the command, replaceable in tests.
struct OptimizeCommandEnvironment {
  MeasureEnvironment measure;        // command runner (required), GPU query, runner program
  std::ostream* progress = nullptr;  // one line per evaluation (stderr); nullptr: none
  std::string ncu = "ncu";           // the profiler's ncu; found on PATH or profiling is off
};

Status RunOptimize(const OptimizeOptions& options, const OptimizeCommandEnvironment& environment,
                   std::ostream& out);

struct ReportOptions {
  std::string workspace = ".kopt";
  std::optional<int64_t> run;  // empty: the newest optimize run
  std::string format = "term";
  std::string output_path;
};

// Renders a stored optimize run. NotFound when the workspace has none.
Status RunReport(const ReportOptions& options, std::ostream& out);

}  // namespace kopt
