// The fill kernel of device_fill.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "runner/device_fill.h"

namespace kopt::runner {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
constexpr double kTwoPi = 6.283185307179586476925286766559;

__device__ uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The draws of one element: a SplitMix64 stream started from (seed, index).
struct ElementStream {
  uint64_t state;
  __device__ ElementStream(uint64_t seed, uint64_t index) : state(Mix(seed ^ Mix(index * kGolden + 1))) {}
  __device__ uint64_t Next() { return Mix(state += kGolden); }
  __device__ double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  __device__ double OpenUniform() { return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53; }
  __device__ double Normal() { return sqrt(-2.0 * log(OpenUniform())) * cos(kTwoPi * Uniform()); }
  // Student-t with `alpha` degrees of freedom, Bailey's polar method (exact).
  __device__ double StudentT(double alpha) {
    for (int attempt = 0; attempt < 64; ++attempt) {
      double u = 2.0 * Uniform() - 1.0, v = 2.0 * Uniform() - 1.0;
      double w = u * u + v * v;
      if (w > 0.0 && w <= 1.0) return u * sqrt(alpha * (pow(w, -2.0 / alpha) - 1.0) / w);
    }
    return 0.0;
  }
  __device__ int64_t Integer(int64_t low, int64_t high) {
    uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
    return span == 0 ? static_cast<int64_t>(Next()) : low + static_cast<int64_t>(Next() % span);
  }
};

__device__ double DrawValue(const DeviceFillSpec& spec, ElementStream& stream) {
  switch (spec.kind) {
    case 1: return spec.a + spec.b * stream.Normal();
    case 2: return spec.a + (spec.b - spec.a) * stream.Uniform();
    case 3: return spec.b * stream.StudentT(spec.a);
    case 4: return static_cast<double>(stream.Integer(spec.low, spec.high));
    case 6: return 1.0;
    default: return 0.0;
  }
}

__global__ void FillKernel(void* data, int64_t elements, DeviceFillSpec spec, uint64_t seed) {
  for (int64_t index = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; index < elements;
       index += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    ElementStream stream(seed, static_cast<uint64_t>(index));
    double value = DrawValue(spec, stream);
    switch (spec.dtype) {
      case 0: static_cast<double*>(data)[index] = value; break;
      case 1: static_cast<float*>(data)[index] = static_cast<float>(value); break;
      case 2: static_cast<__half*>(data)[index] = __float2half_rn(static_cast<float>(value)); break;
      case 3:
        static_cast<__nv_bfloat16*>(data)[index] = __float2bfloat16_rn(static_cast<float>(value));
        break;
      case 4: static_cast<int64_t*>(data)[index] = static_cast<int64_t>(llround(value)); break;
      case 5: static_cast<int32_t*>(data)[index] = static_cast<int32_t>(llround(value)); break;
      case 6: {
        long long rounded = llround(value);
        static_cast<uint8_t*>(data)[index] = static_cast<uint8_t>(rounded < 0     ? 0
                                                                  : rounded > 255 ? 255
                                                                                  : rounded);
        break;
      }
      default: break;
    }
  }
}

}  // namespace

cudaError_t LaunchDeviceFill(void* data, int64_t elements, const DeviceFillSpec& spec, uint64_t seed,
                             cudaStream_t stream) {
  if (elements <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  int64_t blocks = (elements + kThreads - 1) / kThreads;
  if (blocks > 4096) blocks = 4096;  // grid-stride beyond: enough to fill any GPU
  FillKernel<<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(data, elements, spec, seed);
  return cudaGetLastError();
}

}  // namespace kopt::runner
