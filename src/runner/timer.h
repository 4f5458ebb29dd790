// Kernel timing in kopt-runner, nvbench-grade (docs/harness-protocol.md §3
// `timing`; measurement.md §1 and §5). CUDA runtime code: compiled into
// kopt-runner only.
//
// TimeCandidate, for one candidate already loaded and checked:
//  1. warm-up by time: back-to-back launches for at most
//     request.warmup_seconds (idle SM clocks are low: 345 MHz idle, 1980 MHz
//     under load on our H200); with NVML it ends earlier, after at least
//     kMinWarmupSeconds, once the SM clock reads >= kWarmClockFraction of its
//     maximum (a kernel that holds the clock lower, e.g. power-capped, gets
//     the whole warm-up);
//  2. the empty-call overhead: a 4-byte cudaMemsetAsync on the stream,
//     bracketed exactly like a sample, 20 times; overhead = median device-wide
//     time - median event time (DecideSideStream uses it);
//  3. samples until NoiseStoppingRule says stop. One sample:
//       [cold: cudaMemsetAsync over a flush buffer the size of L2 (as
//        nvbench), then
//        cudaStreamSynchronize: the next launch finds no input in L2]
//       stream gate closed (cuStreamWaitValue32 on a host-mapped word: the
//         stream waits while the host queues the rest, as nvbench's blocking
//         kernel does, so launch latency is not timed)
//       start event, launch(input set), stop event, [stage_outputs, staged
//         event,] all on the harness stream
//       host clock t0; gate opened
//       cudaDeviceSynchronize (waits for work on every stream); host clock t1
//     event time = stop - start; device-wide time = t1 - t0; host call time:
//     the host clock around the launch call. The sample's time is
//       ChargedSampleSeconds (harness/timing_statistics.h): max(host call,
//       event + max(0, host call - kHostEnqueueGraceSeconds)):
//     while the call runs, the gate holds the harness stream, so host time
//     beyond what enqueuing takes comes before the timed work, not beside
//     it. An entry point that blocks the host while (part of) its real work
//     runs on a private stream, then enqueues a decoy or the rest, is timed
//     on the blocking; an honest entry point (it only enqueues: a few
//     microseconds, a CUDA graph or a cooperative launch included) is timed
//     on its events alone.
//     Input sets rotate (sample k uses set k mod input_sets) when
//     request.rotate_input_sets, so a working set that fits in L2 is not
//     timed from the cache in hot mode.
//  4. SM clock from NVML (at most once per millisecond) per sample; a sample
//     below 75% of the maximum SM clock is discarded (ThrottleFilter) and the
//     timer sleeps the recovery delay.
// The gate needs the driver's stream memory operations; when they are
// missing, or the candidate's launch blocks the host (it synchronizes, which
// the ABI forbids: a probe with a watchdog thread detects it), samples are
// taken without the gate and TimingMeasurement::blocked_launch is false.
//
// Errors: a failed CUDA call returns its Status (KOPT_CUDA_CHECK, so
// FailureForStatus recovers the failure kind); a launch function's Status is
// returned as it is. NVML problems never fail the timing: the clock is then
// not measured (sm_clock_mean_mhz 0).
//
// Thread safety: one call at a time per device; the launch function is called
// on the calling thread only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "harness/timing_statistics.h"
#include "hw/nvml.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

// Enqueues one call of the candidate (kopt_launch) for input set `input_set`
// (0 <= input_set < input_sets) on `stream`, without synchronizing; returns
// the launch's error (cudaGetLastError right after the call) as a Status.
using LaunchFunction = std::function<Status(int input_set, cudaStream_t stream)>;

inline constexpr double kMinWarmupSeconds = 0.02;
inline constexpr double kWarmClockFraction = 0.95;

// Before every sample (outside the timed bracket, before the L2 flush):
// prepares input set `input_set` on `stream` (outputs poisoned, inouts drawn
// again), so every timed launch finds its set in the same state as a checked
// one. The timer waits for it before the sample.
using PrepareFunction = std::function<Status(int input_set, cudaStream_t stream)>;
// After every sample, with the device idle: the sample's 0-based index among
// all samples taken, its input set, its event time, and whether it was kept
// (not discarded as throttled). The runner picks verified samples here.
using AfterSampleFunction = std::function<Status(int64_t sample, int input_set, double seconds, bool kept)>;

// Enqueued on the harness stream right after every sample's stop event, in
// the same host step as the launch (before the gate opens, so before any
// code of the candidate can see the sample end): the runner draws on the
// device whether this sample enters its verified reservoir and copies the
// outputs of set `input_set` aside if so (run_request.cc, sample_staging.h),
// so what is verified is what the timed call left, not what a later launch
// wrote. Its
// time is outside the sample's, inside the device-wide bracket and the
// stream's share of it (the side-stream decision compares the two).
using StageOutputsFunction = std::function<Status(int input_set, cudaStream_t stream)>;

struct TimerContext {
  cudaStream_t stream = nullptr;       // the harness stream the candidate is given
  int device = 0;                      // CUDA ordinal (current device of the calling thread)
  int input_sets = 1;                  // K >= 1 prepared input sets
  const NvmlDevice* nvml = nullptr;    // null when NVML is unavailable
  PrepareFunction prepare_sample;      // optional
  AfterSampleFunction after_sample;    // optional
  StageOutputsFunction stage_outputs;  // optional
};

// The timing result: the protocol's `timing` event fields plus extras.
struct TimingMeasurement {
  // Kept samples, s: each the larger of its event time on the harness stream
  // and the host's time inside the entry call (work the call waited for on
  // the host counts; for an entry point that only enqueues, the event time).
  SampleStatistics event;
  // Median of the stream's share of the device-wide bracket (events from the
  // start to after the staging copy), s: the side-stream decision.
  double stream_event_median_s = 0;
  double host_call_median_s = 0;   // median host time inside the entry call, s
  int64_t host_bound_samples = 0;  // kept samples whose time the host call lengthened
  SampleStatistics device_wide;    // the same samples' device-wide brackets, s
  StopReason stop_reason = StopReason::kContinue;
  double gpu_seconds = 0;  // summed event time of the kept samples
  bool cold = true;
  int64_t input_sets = 1;
  double sm_clock_mean_mhz = 0;  // mean over kept samples; 0 when NVML is unavailable
  double sm_clock_max_mhz = 0;   // NVML's maximum SM clock; 0 when unavailable
  int64_t throttled_samples_discarded = 0;
  bool throttle_gave_up = false;  // the clock stayed below 75% for 20 samples in a row: kept anyway
  double empty_call_overhead_s = 0;
  double warmup_s = 0;  // wall time of the warm-up
  int64_t warmup_launches = 0;
  double sampling_wall_s = 0;            // wall time of step 3
  bool blocked_launch = false;           // samples were queued behind the stream gate
  std::string note;                      // why the gate was not used, or that NVML clocks were unavailable
  int64_t samples_taken = 0;             // kept and discarded
  std::vector<VerifiedSample> verified;  // filled by the caller (run_request.cc)

  // The side-stream decision on these medians (the caller emits the failure).
  SideStreamDecision SideStream() const;
  // The protocol's event struct (RunnerEventToJson serializes it).
  TimingEvent ToEvent() const;
  // {"event": "timing", <protocol fields>, <extras: iqr_s, stdev_s,
  //  empty_call_overhead_s, warmup_s, warmup_launches, sampling_wall_s,
  //  blocked_launch, sm_clock_max_mhz, throttle_gave_up, note>}.
  nlohmann::json ToJson() const;
};

// The stopping options a request asks for.
StoppingOptions StoppingOptionsFrom(const TimingRequest& request);

// Times `launch` as described above. The candidate must already have passed
// its correctness rounds (a sticky error here is still reported as a Status).
Result<TimingMeasurement> TimeCandidate(const LaunchFunction& launch, const TimerContext& context,
                                        const TimingRequest& request);

}  // namespace kopt::runner
