// kopt-runner's correctness rounds (docs/harness-protocol.md §3-4: the
// rounds, and the trust boundary).
//
// The child judges nothing: it runs its one library (the candidate in a
// candidate child, the reference in a reference child) and sends the raw
// outputs to the parent over the output channel (output_channel.h); the
// parent compares them with the reference child's (runner_protocol/output_comparison.h).
//
// One round, for one task size and one seed:
//   1. inputs (and inouts) are drawn on the device from the round's seed
//      (device_inputs.h); outputs are set to the poison;
//   2. the library's kopt_launch runs on the harness stream; the launch error
//      (cudaGetLastError) and then cudaDeviceSynchronize are checked: a
//      failed launch or a sticky error ends the run with its kind;
//   3. every input is compared on the device with what was drawn into it
//      (input_mutated: a claim the child can only make against itself);
//   4. every written tensor (output, inout) is copied back and sent as a
//      frame (round, index, tensor; frame_sender.h); then an `outputs` event
//      says so (with the seconds each step took, `phase_s`: draw, call,
//      input_check, send).
// Rounds: "check" i for seed i at the main size, "variant" i for size variant
// i (its own tensors, seed VariantSeed), and after timing "fresh" 0: fresh
// inputs (request.fresh_seed) in the very tensors the timing used.
//
// Thread safety: not thread-safe; the main thread only.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <vector>

#include "core/status.h"
#include "runner/cuda_check.h"
#include "runner/device_tensors.h"
#include "runner/event_sink.h"
#include "runner/frame_sender.h"
#include "runner/kernel_library.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

// The library, the stream and the channels a round runs with.
struct CheckContext {
  const KernelLibrary* library = nullptr;  // the one library this child loaded
  bool is_reference = false;               // failures are not the candidate's (exit 4)
  cudaStream_t stream = nullptr;
  EventSink* events = nullptr;
  FrameSender* sender = nullptr;  // the output channel's sender; not owned; required
};

// The seed of size variant `variant_index` (one round each).
uint64_t VariantSeed(const RunnerRequest& request, size_t variant_index);

// Runs the rounds of `request` ("check" per seed on `main_size`, then
// "variant" per size variant on its own tensors). nullopt when every call ran.
std::optional<RunnerFailure> RunCorrectnessRounds(const CheckContext& context, const RunnerRequest& request,
                                                  DeviceTensors& main_size);

// The "fresh" round on `timed` (the tensors timing used, input set 0).
std::optional<RunnerFailure> RunFreshRound(const CheckContext& context, const RunnerTask& task,
                                           DeviceTensors& timed, uint64_t seed);

// Sends tensor `index` of `tensors` as frame (round, frame_index, tensor
// name), copied from the device on `stream`.
Status SendTensor(FrameSender& sender, const RunnerTask& task, const DeviceTensors& tensors, size_t index,
                  const std::string& round, int64_t frame_index, cudaStream_t stream);

// Enqueues `library` on `stream` and checks the launch error only (no
// synchronization): the launch function timing and energy use.
Status LaunchOnce(const KernelLibrary& library, const DeviceTensors& tensors, const ScalarArguments& scalars,
                  cudaStream_t stream);

// A failure for a non-OK status (nullopt when OK); `not_candidate`: the
// reference's or the environment's fault ("the reference failed: ...").
std::optional<RunnerFailure> AsFailure(const Status& status, bool not_candidate = false);

}  // namespace kopt::runner
