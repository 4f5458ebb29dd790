// The parent's verdicts in `kopt bench` (docs/harness-protocol.md §4, docs/bench.md):
// how a kopt-runner child ended, the speedup against the reference, and the
// roofline-floor check that flags a suspiciously fast result.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/subprocess.h"
#include "hw/gpu_spec.h"
#include "runner_protocol/failure_kind.h"
#include "runner_protocol/runner_events_parser.h"

namespace kopt {

// What the parent expected of one child run (for the completeness checks).
struct ChildExpectations {
  size_t check_rounds = 0;  // seeds + check variants; 0 when checking was off
  bool timing = false;
  bool energy = false;
  double timeout_seconds = 0;  // the watchdog's limit, for messages
  int64_t l2_bytes = 0;      // the GPU's L2 (from the reference child), for the input-set check; 0: unchecked
  double floor_seconds = 0;  // the roofline floor; 0: unknown
  bool floor_is_final =
      false;  // below the floor now is a rejection (suspect_fast), not a reason to re-measure
};

// How one child run ended.
struct ChildOutcome {
  enum class Status { kOk, kFailed, kHarnessError };
  Status status = Status::kFailed;
  std::optional<FailureKind> kind;  // set when kFailed
  std::string message;              // one line for the table; details in `detail`
  std::string detail;               // e.g. the runner's detail, malformed-output notes, stderr tail
  // A later run may reuse this result (everything except harness errors and
  // a missing device, which say nothing about the candidate).
  bool complete() const { return status != Status::kHarnessError && kind != FailureKind::kDeviceUnavailable; }
  // The kind's protocol name, "harness_error", or "" when ok.
  std::string KindName() const;
};

// "ok", "failed", "harness_error".
std::string ChildStatusName(ChildOutcome::Status status);

// A failed outcome of `kind` with its message and detail.
ChildOutcome FailedOutcome(FailureKind kind, std::string message, std::string detail);

// Classifies a finished child:
//  - killed by the watchdog                  -> failed, timeout
//  - died by a signal                        -> failed, crash "died by signal 11 (SIGSEGV)"
//                                               (a failure event sent before names the kind)
//  - exit 3 with a failure event             -> failed, that kind
//  - exit 3 without one, other exit codes,
//    or exit 0 with events missing           -> failed, crash (what was missing is said)
//  - exit 2                                  -> harness error (the runner rejected the request)
//  - exit 0, done ok, every expected event   -> ok
ChildOutcome ClassifyChildEnd(const CommandResult& result, const RunnerEvents& events,
                              const ChildExpectations& expected);

// Reference median / candidate median; nullopt unless both are positive.
std::optional<double> Speedup(double reference_median_seconds, double candidate_median_seconds);

// The fastest a task can possibly run on a GPU, in seconds:
// max(flops / peak_flops_per_second, min_bytes / dram_bytes_per_second), each
// term only when both of its numbers are known (> 0); 0 when neither is.
double RooflineFloorSeconds(double flops, double min_bytes, double peak_flops_per_second,
                            double dram_bytes_per_second);

// The highest arithmetic rate (FLOP/s) the GPU offers for work in `dtype`
// (f64, f32, f16, bf16, i64, i32, u8): scalar and tensor-core paths alike, so
// that the floor stays a true lower bound (an f32 task may use TF32 tensor
// cores). 0 when the spec does not know it.
double PeakFlopsForDtype(const GpuSpec& gpu, std::string_view dtype);

// True when a measured median is below the floor: physically impossible, so
// the measurement or the candidate is cheating (flag "suspect_fast").
bool IsSuspectFast(double median_seconds, double floor_seconds);

}  // namespace kopt
