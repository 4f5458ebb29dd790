// The data a measurement produces (measure/measure.h): one entry per
// reference / candidate run, and the report of a whole session. Values only;
// nothing here renders (report/bench_renderer.h renders a MeasurementReport as
// `kopt bench`'s term / md / json `kopt.bench/1` output).
//
// Statuses, roles and kinds are enums; their protocol spellings ("ok",
// "candidate", "harness_error", ...) exist only at the render / JSON / store
// boundary through the *Name functions below.
//
// Units: seconds (s) for every time, FLOP for flops, bytes for byte counts,
// fractions for drift.
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/compiler.h"
#include "harness/task_baselines.h"
#include "runner_protocol/failure_kind.h"
#include "runner_protocol/runner_request.h"

namespace kopt {

// Which measurement an entry is: the reference (first), a candidate, or the
// reference re-timed at the end of a session (drift check).
enum class EntryRole { kReference, kCandidate, kReferenceAgain };
// "reference", "candidate", "reference_end" (the workspace's measurement role and the JSON `role`).
std::string_view EntryRoleName(EntryRole role);

// Where an entry stands.
enum class MeasureStatus {
  kPending,       // not decided yet (compiling, or waiting for the GPU)
  kOk,            // compiled, every check passed, timed when timing was on
  kFailed,        // the candidate failed: compile error, wrong output, crash, ... (see `failure`)
  kHarnessError,  // kopt itself could not compile or run it: says nothing about the candidate
  kCompiled,      // compile-only session: compiled, nothing run
  kSkipped,       // not measured: the reference failed
};
// "", "ok", "failed", "harness_error", "compiled", "skipped".
std::string_view MeasureStatusName(MeasureStatus status);

// Where the parent's time around one child went; seconds, the parent's
// clock.
struct ParentPhases {
  std::string channel;    // how the outputs came: "pull" (core/channel_pull.h), "memory"
                          // (core/channel_memory.h) or "pipe"
  double prepare = 0;     // waiting for the channel memory to be ready before the child started
  double receive = 0;     // after the child ended: sealing and mapping the memory, parsing the frames
  double judge = 0;       // the parent's verdict: comparing every output, checking events and timing
  double store = 0;       // writing the events, artifacts and outcome to the workspace
  int64_t prejudged = 0;  // output comparisons made while the child ran (measure/output_prejudge.h)
};

// One measured source: the reference or a candidate.
struct MeasurementEntry {
  std::string name;  // unique within the session ("saxpy_vec4", "a#2"); "reference", "reference (end)"
  std::string path;  // as given ("" for a candidate given only as source text)
  std::string hash;  // SHA-256 of the source (its key in the workspace)
  EntryRole role = EntryRole::kCandidate;
  MeasureStatus status = MeasureStatus::kPending;
  // Set when status is kFailed: the failure kind (compile_error,
  // missing_entry_point, wrong_output, timeout, ...).
  std::optional<FailureKind> failure;
  std::string message;  // one line: why it failed / was skipped; "" when ok
  std::string detail;   // long text: the compiler's output verbatim, the runner's detail, stderr tail
  // The compile's outcome; nullopt when it did not compile (a harness error) or has not yet.
  std::optional<CompileOutcome> compile;
  double compile_seconds = 0;  // wall time of the compile call (s; a cache lookup on a hit)
  bool compile_cached = false;
  double measure_seconds = 0;          // wall time of its kopt-runner child (checks, timing, energy) (s)
  std::optional<ParentPhases> phases;  // the parent's time around that child; measured now only
  std::optional<runner::TimingEvent> timing;  // only when status is kOk and timing was on
  std::optional<runner::EnergyEvent> energy;
  size_t checks_passed = 0;                 // correctness rounds passed
  size_t checks_total = 0;                  // correctness rounds reported
  std::optional<double> speedup;            // reference median / this median (ratio)
  bool suspect_fast = false;                // faster than the roofline floor: flag "SUSPECT_FAST"
  std::optional<int64_t> resumed_from_run;  // stored result of that run reused (not measured now)

  bool ok() const { return status == MeasureStatus::kOk; }
  // The kind as the report spells it: the failure kind's protocol name,
  // "harness_error" for a harness error, "" otherwise.
  std::string KindName() const;
};

// A whole session: what `kopt bench` reports.
struct MeasurementReport {
  std::string task;            // the task's name
  std::string task_directory;  // as given
  std::string architecture;    // "sm_90a"
  std::string gpu;             // device name as the runner reported it ("" when nothing ran)
  std::string workspace;       // the workspace directory as given
  int64_t run_id = 0;          // the workspace's run
  std::string started;         // ISO-8601 UTC
  std::vector<uint64_t> seeds;
  std::string settings_hash;  // SHA-256 of `settings` (the resume key)
  nlohmann::json settings = nlohmann::json::object();
  MeasurementEntry reference;
  std::optional<MeasurementEntry> reference_end;  // re-timed at the end of the session
  std::optional<double> reference_drift;          // end median / start median - 1 (fraction)
  double task_flops = 0;                          // FLOP per call (0: unknown)
  double task_min_bytes = 0;                      // bytes per call
  double floor_seconds = 0;                       // roofline floor (s; 0: unknown)
  std::vector<MeasurementEntry> candidates;       // in the order they were given
  std::vector<std::string> notes;
  bool compile_only = false;
  // The task's PyTorch baselines (baselines.json beside task.toml), when it
  // has them: the report then shows each entry's speedup against each.
  std::optional<TaskBaselines> pytorch_baselines;
};

}  // namespace kopt
