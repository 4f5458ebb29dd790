// What a measurement session resolved before any work starts, and what
// follows from it alone: the settings that key a stored result, the
// kopt-runner request of one child.
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "harness/task_spec.h"
#include "hw/gpu_spec.h"
#include "measure/measure.h"
#include "runner_protocol/runner_request.h"

namespace kopt {

struct MeasurePlan {
  TaskSpec task;
  std::string architecture;         // "sm_90a"
  std::optional<GpuSpec> live_gpu;  // the device, when the driver could be asked
  std::string runner_program;       // empty with compile_only
  std::vector<uint64_t> seeds;
  // The timed input sets' base seed and the round after timing's seed,
  // derived from the run's seeds (runner request timing_seed, fresh_seed).
  uint64_t TimingSeed() const;
  uint64_t FreshSeed() const;
};

// The harness settings that decide a measurement (hashed into the resume
// key): the task as resolved plus the reference's source, the architecture,
// the correctness and timing settings, the watchdog, kopt's version.
nlohmann::json MeasurementSettingsJson(const MeasureSettings& settings, const MeasurePlan& plan);

// What one child is asked to do beyond the settings.
struct RunnerRequestOptions {
  bool check = true;           // correctness rounds
  bool check_variants = true;  // with them, the task's variant shapes and scalars (false: its own alone)
  bool timing = true;          // timing as the settings say (false: none, whatever they say)
  bool energy = false;         // NVML energy (only with timing)
  runner::RunnerRole role = runner::RunnerRole::kCandidate;  // which library the child loads
};

// The resolved task as the runner reads it: TaskSpec::ToJson's fields typed, every dtype's tolerance.
runner::RunnerTask RunnerTaskFor(const TaskSpec& task);
// The task's variants as the request's check_variants (TaskSpec::VariantsToJson's, typed).
std::vector<runner::CheckVariant> CheckVariantsFor(const TaskSpec& task);

// The kopt-runner request (docs/harness-protocol.md §3) for one child:
// timing as the settings say unless `options` turns it off, correctness
// rounds, their variants and energy as `options` say; `options.role` says
// which library the child loads. The typed request is what callers pass on
// and edit (RunnerClient sets the output channel); it becomes JSON once, in
// RunnerRequestWire, when the child's request file is written.
runner::RunnerRequest BuildRunnerRequest(const MeasureSettings& settings, const MeasurePlan& plan,
                                         const std::string& candidate_library,
                                         const std::string& reference_library,
                                         const RunnerRequestOptions& options);

// The request as the child reads it (runner::RunnerRequestToJson). Internal
// error when it does not read back (TaskSpec and the runner's types disagree:
// a kopt bug).
Result<nlohmann::json> RunnerRequestWire(const runner::RunnerRequest& request);

// The roofline floor (TaskFloorSeconds, from the ceilings the task's
// tolerances allow) is in measure/bench_verdict.h.

}  // namespace kopt
