// The device half of drawing input tensors on the GPU (device_inputs.h):
// one kernel, plain types only, so that this header and device_fill.cu need
// none of the harness's C++20 headers.
//
// Values are a counter-based function of (seed, element index): the same
// seed gives the same tensor in every process and on every launch (the
// reference child and the candidate children draw identical timed input
// sets), different seeds give independent values.
//
// Thread safety: enqueues on the caller's stream; no host state.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kopt::runner {

// Codes follow the order of runner::Dtype and runner::InitKind.
struct DeviceFillSpec {
  int dtype = 1;                // Dtype: 0 f64, 1 f32, 2 f16, 3 bf16, 4 i64, 5 i32, 6 u8
  int kind = 1;                 // InitKind: 1 normal, 2 uniform, 3 heavy_tailed, 4 int_range, 5 zeros, 6 ones
                                // (LaunchDeviceFillCompare also: 0 none, every byte 0xFF)
  double a = 0;                 // normal: mean; uniform: low; heavy_tailed: alpha
  double b = 1;                 // normal: stddev; uniform: high; heavy_tailed: scale
  int64_t low = 0, high = 100;  // int_range, inclusive
};

// Enqueues the fill of `elements` elements at `data` on `stream`; returns
// the launch's error (cudaGetLastError).
cudaError_t LaunchDeviceFill(void* data, int64_t elements, const DeviceFillSpec& spec, uint64_t seed,
                             cudaStream_t stream);

// What LaunchDeviceFillCompare found, in device memory; the caller sets it
// to {0, ~0ull} before the launch.
struct DeviceFillDifference {
  unsigned long long differing_bytes;  // bytes that differ from the fill's
  unsigned long long first_byte;       // the first of them (~0ull: none)
};

// Enqueues a comparison of the `elements` elements at `data` with what
// LaunchDeviceFill(spec, seed) writes (kind 0: every byte 0xFF; kind 5:
// zeros) and adds the differences to `*difference` (device memory). Returns
// the launch's error.
cudaError_t LaunchDeviceFillCompare(const void* data, int64_t elements, const DeviceFillSpec& spec,
                                    uint64_t seed, DeviceFillDifference* difference, cudaStream_t stream);

}  // namespace kopt::runner
