// The parent's own verdict on a kopt-runner child (the trust boundary of
// docs/harness-protocol.md §3): everything here is computed in
// the `kopt` process from what it can check itself, never taken from the
// child's word.
//
//  - JudgeOutputs: the child's raw output frames against the reference
//    child's frames (runner_protocol/output_comparison.h): the correctness rounds,
//    constant_output across seeds, the verified timed samples against the
//    reference's outputs for the same input set, the round after timing.
//  - CheckTimingClaims: the child's timing event against what the parent
//    knows or observed: the input-set count it asked for, the cold flag, the
//    sample bounds, its own clock around the timing phase (the child cannot
//    claim more GPU time than elapsed), and each verified sample's time
//    against the claimed median (a launch that was checked must take about as
//    long as the ones that were timed).
//  - AllowedPeakFlops / TaskFloorSeconds: the roofline floor from the
//    ceilings the task's dtypes and tolerances allow.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/subprocess.h"
#include "harness/task_spec.h"
#include "hw/gpu_spec.h"
#include "runner_protocol/failure_kind.h"
#include "runner_protocol/output_comparison.h"
#include "runner_protocol/output_frames.h"
#include "runner_protocol/runner_events_parser.h"
#include "runner_protocol/runner_request.h"

namespace kopt {

// Output comparisons made ahead of the verdict (measure/output_prejudge.h:
// while the child still sends), each under the exact arguments of
// runner::JudgeOutput: the two byte ranges by address and size (in the
// parent's own memory, where the child cannot change them), the tensor's
// name, dtype and tolerance. JudgeOutputs takes a comparison from here when
// every argument matches and makes it itself otherwise: the verdict is the
// same either way, only sooner. Not thread-safe (one owner at a time).
class PrecomputedOutputs {
 public:
  void Add(const std::string& name, DataType dtype, std::span<const std::byte> got,
           std::span<const std::byte> expected, Tolerance tolerance, runner::OutputVerdict verdict);
  const runner::OutputVerdict* Find(const std::string& name, DataType dtype, std::span<const std::byte> got,
                                    std::span<const std::byte> expected, Tolerance tolerance) const;
  size_t size() const { return verdicts_.size(); }
  void Clear() { verdicts_.clear(); }

 private:
  using Key =
      std::tuple<std::string, DataType, const std::byte*, size_t, const std::byte*, size_t, double, double>;
  std::map<Key, runner::OutputVerdict> verdicts_;
};

struct ParentVerdict {
  std::vector<runner::CheckEvent> checks;  // one per judged check/variant round, in protocol order
  std::optional<FailureKind> kind;         // the first failure, when any
  std::string message;
};

// A verified timed sample may take at most this many times the claimed
// upper quartile (plus kVerifiedSlackSeconds) before the timing is
// timing_inconsistent: a cheat that computes only some launches is timed on
// the cheap ones, while a checked launch had to compute.
inline constexpr double kVerifiedSlackRatio = 2.0;
inline constexpr double kVerifiedSlackSeconds = 5e-6;

// Judges `got` (a child's frames) against `expected` (the reference child's
// frames for the same request seeds). Rounds are judged in protocol order
// and judging stops at the first failure:
//  - "check" i / "variant" i, for every round the child announced with an
//    `outputs` event: unwritten_output, wrong_output or precision_loss;
//  - constant_output when every "check" round gave identical bytes while
//    the reference's differed (two rounds at least);
//  - "timed" j against the reference's "set" k (k from the timing event's
//    verified list) and "fresh" 0 against the reference's "fresh" 0:
//    stale_output;
// and protocol_violation when an announced round lacks a frame, a frame has
// the wrong size, or the timing event lists no verified sample although the
// request asked for some. A frame the reference lacks is a harness error
// (kind unset, message set: the caller reports harness_error).
// `precomputed` (may be null): comparisons made ahead (above).
ParentVerdict JudgeOutputs(const runner::RunnerRequest& request, const RunnerEvents& events,
                           const OutputFrames& got, const OutputFrames& expected,
                           const PrecomputedOutputs* precomputed = nullptr);

// True when JudgeOutputs found that the expected frames were missing (a
// harness error rather than the child's fault).
bool IsHarnessVerdict(const ParentVerdict& verdict);

// The timed input sets a child of `request` uses on a GPU with `l2_bytes` of
// L2 (the runner's rule: enough sets to exceed twice L2 when rotating, at
// most 64).
int64_t ExpectedInputSets(const runner::RunnerRequest& request, int64_t l2_bytes);

// The bytes of the output frames (heads included) that a child of
// `request` sends when it runs every round it was asked for: the parent
// reserves that much for the channel. `l2_bytes` as for ExpectedInputSets
// (a reference child sends one frame per input set); 0: one set.
uint64_t ExpectedOutputBytes(const runner::RunnerRequest& request, int64_t l2_bytes);

// "" when the child's timing agrees with the parent's observations, else
// why not (kind timing_inconsistent). `timing_window_seconds`: the parent's
// clock from the arrival of the event before `timing` to that of `timing`
// (< 0: unknown, not checked); `l2_bytes`: from the reference child's device
// event (0: the set count is not checked).
std::string CheckTimingClaims(const runner::RunnerRequest& request, const runner::TimingEvent& timing,
                              double timing_window_seconds, int64_t l2_bytes);

// The parent-clock window of the timing event in a child's stdout: from the
// arrival of the event before it to its own arrival; -1 when unknown.
double TimingWindowSeconds(const RunnerEvents& events, const std::vector<OutputArrival>& arrivals);

// TF32 products round to 10 mantissa bits (unit roundoff 2^-11): an f32
// tolerance tighter than this relative error cannot hold them, so such a task
// is floored by the FP32 rate, not TF32's.
inline constexpr double kTf32MinRelativeTolerance = 1e-3;

// The highest rate the task's tolerances allow for work in `dtype`: f64 the
// FP64 tensor rate; f32 the FP32 rate, or TF32's when `rtol` >=
// kTf32MinRelativeTolerance; f16 and bf16 their dense tensor rates; integer
// types the int8 tensor rate. 0 when unknown.
double AllowedPeakFlops(const GpuSpec& gpu, DataType dtype, double rtol);

// The roofline floor of `task` on `gpu` (s): max(flops / peak, min_bytes /
// DRAM bandwidth), the peak the largest AllowedPeakFlops over the task's
// tensor dtypes (each with its own tolerance); 0 when unknown.
double TaskFloorSeconds(const TaskSpec& task, const GpuSpec& gpu);

}  // namespace kopt
