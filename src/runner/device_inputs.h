// Input tensors drawn on the device (a host generator takes about a second
// per 16 Mi heavy-tailed f32 values on 2 cores, and a round may draw 64 Mi):
// the correctness rounds' and the timed input sets' (every timed set drawn
// with its own values, on the device, so it stays cheap); the per-sample
// preparation of a set (outputs poisoned, inouts drawn again); and the input
// check of a round, on the device: an input compared with what was drawn for
// it.
//
// Values come from device_fill.cu, a counter-based function of
// (TensorSeed(round or set seed, tensor name), element index) drawn from the
// tensor's distribution (normal, uniform, Student-t heavy tails, integer
// ranges, zeros, ones), the same in every child of a run, so the reference
// child's outputs for a round or set are the expected outputs of every
// candidate's.
//
// Everything is enqueued on `stream` without waiting; the caller
// synchronizes before it relies on the contents.
//
// Thread safety: not thread-safe; the runner's main thread.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/status.h"
#include "runner/device_tensors.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

// Draws every input and inout of `task` into `tensors` from `set_seed`, and
// poisons every output (all bytes 0xFF).
Status DrawSetOnDevice(const RunnerTask& task, uint64_t set_seed, DeviceTensors& tensors,
                       cudaStream_t stream);

// Before a timed sample: outputs poisoned and inouts drawn again from
// `set_seed` (so every sample starts from the set's values), inputs untouched.
Status PrepareSetForSample(const RunnerTask& task, uint64_t set_seed, DeviceTensors& tensors,
                           cudaStream_t stream);

// How an input differs from what DrawSetOnDevice drew for it.
struct InputDifference {
  uint64_t differing_bytes = 0;
  uint64_t first_byte = 0;  // meaningful when differing_bytes > 0
};

// Compares input `index` of `tensors` with what DrawSetOnDevice(task,
// set_seed) wrote into it, on the device (no copy of the tensor is kept or
// read back: each element's drawn value is computed again), and waits for
// the result. Errors: the CUDA call that failed.
Result<InputDifference> CompareWithDraw(const RunnerTask& task, size_t index, uint64_t set_seed,
                                        const DeviceTensors& tensors, cudaStream_t stream);

}  // namespace kopt::runner
