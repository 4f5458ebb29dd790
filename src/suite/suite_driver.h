// The driver of `kopt suite` (docs/suite.md): one optimize run per problem,
// handed to an Executor (suite/executor.h), followed to the end, recorded in
// the suite's journal (suite/suite_state.h), reported.
//
// Resume: the same command again (or `kopt suite --name NAME` with no
// tasks) opens the existing suite, asks the executor to Attach to work an
// earlier driver left running, and submits every problem that has not ended;
// a problem whose workspace already holds an optimize run is continued with
// `kopt optimize --resume RUN` (the run's own state resumes it: an evaluation
// measured before the kill is adopted, never run again), others start
// afresh. Problems that ended (succeeded or failed) are not run again.
//
// The driver journals `started` when the executor reports the work running
// and `ended` when it reports the end; a kill of the driver between the two
// leaves the problem pending (resumed next time).
//
// Thread safety: one call per suite directory at a time; runs on the
// calling thread (the local executor's children follow that thread).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "suite/executor.h"
#include "suite/suite_plan.h"
#include "suite/suite_results.h"

namespace kopt::suite {

struct SuiteRunSettings {
  std::string workspace = ".kopt";  // the suite lives in WORKSPACE/suites/NAME
  std::string name = "suite";
  std::vector<SuiteProblem> problems;  // empty: resume the suite NAME as it was created
  // What every problem's kopt optimize gets besides its task, --workspace,
  // --resume and --devices: budget, generator, search, feedback, harness flags.
  std::vector<std::string> optimize_arguments;
  int gpus_per_problem = 1;
  std::string kopt_program;  // absolute path of the kopt executable
  double poll_seconds = 0.25;
  double progress_interval_seconds = 2;  // progress also without an event, at most this often
};

struct SuiteEnvironment {
  Executor* executor = nullptr;  // borrowed, required
  std::function<void(const SuiteReport&)>
      progress;                               // after each start / end (and periodically); may be empty
  std::function<void(double seconds)> sleep;  // empty: std::this_thread::sleep_for
  std::function<double()> now_seconds;        // empty: steady clock
};

// Runs the suite to the end: every problem ended. Returns its report. Errors:
// InvalidInput / NotFound from opening the suite (suite_state.h), the
// executor's errors, journal write failures (Unavailable).
Result<SuiteReport> RunSuite(const SuiteRunSettings& settings, const SuiteEnvironment& environment);

// The kopt optimize command line of one problem (without --devices).
std::vector<std::string> OptimizeCommandFor(const SuiteRunSettings& settings, const SuiteState& state,
                                            const SuiteProblem& problem);

}  // namespace kopt::suite
