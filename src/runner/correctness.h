// kopt-runner's correctness rounds (docs/harness-protocol.md §3-4, issue 4
// "Correctness").
//
// One round, for one task size and one seed:
//   1. inputs (and inouts) are drawn on the host (input_generator.h) and
//      uploaded to the candidate's tensors; outputs are set to the poison on
//      the device;
//   2. the candidate's kopt_launch runs on the harness stream; the launch
//      error (cudaGetLastError) and then cudaDeviceSynchronize are checked:
//      a failed launch or a sticky error ends the run with its kind;
//   3. written tensors (output, inout) are copied back; inputs are copied back
//      and byte-compared with the host copy (input_mutated);
//   4. the reference runs on its own tensors with the same contents (inputs
//      copied on the device from the candidate's, just checked unchanged;
//      inouts uploaded again; outputs poisoned);
//   5. every written tensor is compared (output_comparison.h); the round's
//      `check` event is emitted (with the seconds each step took, `phase_s`);
//      a failing round ends the run with unwritten_output, wrong_output or
//      precision_loss.
// After all rounds at the main size: constant_output when the candidate's
// outputs were identical across seeds while the reference's differed.
// Variants run one round each, with their own tensors.
//
// After timing, CheckStaleOutput runs one more round on the very tensors the
// timing used, with a fresh seed; an unwritten or wrong result there is
// stale_output.
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
#include "runner/kernel_library.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

// Host copies a round works in, kept from round to round so that large
// tensors are not allocated, zero-filled and page-faulted again every round
// (about 0.1 s per 128 MiB tensor on the H200's host).
struct RoundBuffers {
  std::vector<std::vector<std::byte>> contents;  // drawn inputs, per tensor (empty for outputs)
  std::vector<std::vector<std::byte>> got;       // the candidate's written tensors
  std::vector<std::vector<std::byte>> expected;  // the reference's written tensors
  std::vector<std::byte> input_after_call;       // an input copied back after the candidate's call
};

// The libraries, the stream and the host buffers a check runs with.
struct CheckContext {
  const KernelLibrary* candidate = nullptr;
  const KernelLibrary* reference = nullptr;
  cudaStream_t stream = nullptr;
  EventSink* events = nullptr;
  RoundBuffers* buffers = nullptr;  // not owned; required
};

// The tensors of the main size, kept after the rounds for timing and the
// stale-output check.
struct MainSizeTensors {
  std::unique_ptr<DeviceTensors> candidate;
  std::unique_ptr<DeviceTensors> reference;
};

// Allocates the main size's candidate and reference tensors.
Result<MainSizeTensors> AllocateMainSize(const RunnerTask& task);

// Runs the rounds of `request` (main-size seeds, then variants), emitting a
// `check` event per round. nullopt when every round passed.
std::optional<RunnerFailure> RunCorrectnessRounds(const CheckContext& context, const RunnerRequest& request,
                                                  MainSizeTensors& main_size);

// The stale-output round on `timed` (the candidate tensors timing used).
std::optional<RunnerFailure> CheckStaleOutput(const CheckContext& context, const RunnerTask& task,
                                              DeviceTensors& timed, DeviceTensors& reference, uint64_t seed);

// Fills `tensors` with the contents of round `seed` (inputs drawn into
// `buffers`, outputs poisoned on the device): timing's first input set.
Status FillTensors(const RunnerTask& task, uint64_t seed, DeviceTensors& tensors, RoundBuffers& buffers);

// Enqueues `library` on `stream` and checks the launch error only (no
// synchronization): the launch function timing and energy use.
Status LaunchOnce(const KernelLibrary& library, const DeviceTensors& tensors, const ScalarArguments& scalars,
                  cudaStream_t stream);

}  // namespace kopt::runner
