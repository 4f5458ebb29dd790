// Internals of `kopt bench` (app/bench.h), split out for size: the inputs a
// run needs once they are resolved, and the session that compiles, measures,
// stores and assembles the report.
//
// Thread safety: one BenchSession per thread; compile callbacks run on the
// compiler's pool threads and only touch the completion queue and the
// (thread-safe) workspace.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/bench.h"
#include "app/bench_report.h"
#include "app/bench_runner_client.h"
#include "harness/task_spec.h"
#include "store/workspace.h"

namespace kopt {

// One candidate file given on the command line or found in the task.
struct CandidateFile {
  std::string path;    // as given
  std::string name;    // file stem, made unique ("a", "a#2")
  std::string source;  // its text
};

// Everything RunBench resolved before any work starts.
struct BenchPlan {
  TaskSpec task;
  std::vector<CandidateFile> candidates;
  std::string architecture;         // "sm_90a"
  std::optional<GpuSpec> live_gpu;  // the device, when the driver could be asked
  std::string runner_program;       // empty with --compile-only
  std::vector<uint64_t> seeds;
  // The timed input sets' base seed and the round after timing's seed,
  // derived from the run's seeds (runner request timing_seed, fresh_seed).
  uint64_t TimingSeed() const;
  uint64_t FreshSeed() const;
};

// The harness settings that decide a measurement (hashed into the resume
// key): the task as resolved plus the reference's source, the architecture,
// the correctness and timing settings, the watchdog, kopt's version.
nlohmann::json BenchSettings(const BenchOptions& options, const BenchPlan& plan);

// The kopt-runner request (docs/harness-protocol.md §3) for one child:
// timing as the options say, correctness rounds when `check`, energy when
// `energy`; `role` says which library the child loads. Internal error when
// the request does not read back (TaskSpec and the runner's types disagree:
// a kopt bug).
Result<nlohmann::json> BuildRunnerRequest(const BenchOptions& options, const BenchPlan& plan,
                                          const std::string& candidate_library,
                                          const std::string& reference_library, bool check, bool energy,
                                          runner::RunnerRole role = runner::RunnerRole::kCandidate);

// Runs the whole flow for a resolved plan, then renders the report.
Status RunBenchSession(const BenchOptions& options, const BenchEnvironment& environment, BenchPlan plan,
                       Workspace& workspace, std::ostream& out);

}  // namespace kopt
