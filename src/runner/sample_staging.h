// The device half of staging timed samples' outputs (run_request.cc): a draw
// made on the GPU right after a sample's stop event, and copies that run only
// when it came out "stage". Plain types only, like device_fill.h.
//
// The draw mixes the GPU's nanosecond timer (%globaltimer) and the SM's
// cycle counter at the moment the draw kernel runs with the caller's salt:
// code on the host cannot know it before the sample's work has finished on
// the stream (the kernel runs after it, in stream order), so it cannot behave
// differently in the samples that will be staged.
//
// Thread safety: enqueues on the caller's stream; no host state.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kopt::runner {

// Where the draw lands: `device_flag` (device memory, read by the copies) and
// `host_flag` (host-mapped memory the host reads once the stream is idle):
// 1 staged, 0 not.
struct StagingFlag {
  uint32_t* device_flag = nullptr;
  uint32_t* host_flag = nullptr;  // device-visible pointer of the mapped word
};

// Loads the draw and copy kernels now, outside any timed sample: with CUDA's
// lazy module loading (the default), a kernel's first launch loads its
// module, which waits for the device; made while the stream gate holds the
// timed stream (as a sample's staging is), that first launch would wait for
// the gate forever. Returns the first error.
cudaError_t LoadStagingKernels();

// Enqueues the draw: staged with probability `probability` (clamped to [0, 1];
// 1 always stages). Returns the launch's error.
cudaError_t LaunchStagingDraw(double probability, uint64_t salt, StagingFlag flag, cudaStream_t stream);

// Enqueues a copy of `bytes` bytes from `source` to `destination` that does
// nothing unless the last draw into `device_flag` staged. Returns the
// launch's error.
cudaError_t LaunchCopyIfStaged(void* destination, const void* source, uint64_t bytes,
                               const uint32_t* device_flag, cudaStream_t stream);

}  // namespace kopt::runner
