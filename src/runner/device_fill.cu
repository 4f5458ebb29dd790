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

__device__ int ElementBytes(int dtype) {
  switch (dtype) {
    case 0:
    case 4: return 8;
    case 1:
    case 5: return 4;
    case 2:
    case 3: return 2;
    default: return 1;
  }
}

// The bytes element `index` gets (little-endian, in the low ElementBytes of
// the result): kind 0 the poison, else the drawn value converted to the
// dtype. Not inlined: the fill and the compare kernel run this one body, so
// no contraction (FMA) choice can differ between them and make an untouched
// input look changed.
__device__ __noinline__ uint64_t ElementBits(const DeviceFillSpec& spec, uint64_t seed, int64_t index) {
  if (spec.kind == 0) return ~0ull;
  ElementStream stream(seed, static_cast<uint64_t>(index));
  double value = DrawValue(spec, stream);
  switch (spec.dtype) {
    case 0: return __double_as_longlong(value);
    case 1: return __float_as_uint(static_cast<float>(value));
    case 2: return __half_as_ushort(__float2half_rn(static_cast<float>(value)));
    case 3: return __bfloat16_as_ushort(__float2bfloat16_rn(static_cast<float>(value)));
    case 4: return static_cast<uint64_t>(llround(value));
    case 5: return static_cast<uint32_t>(static_cast<int32_t>(llround(value)));
    case 6: {
      long long rounded = llround(value);
      return static_cast<uint8_t>(rounded < 0 ? 0 : rounded > 255 ? 255 : rounded);
    }
    default: return 0;
  }
}

__global__ void FillKernel(void* data, int64_t elements, DeviceFillSpec spec, uint64_t seed) {
  const int element_bytes = ElementBytes(spec.dtype);
  for (int64_t index = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; index < elements;
       index += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint64_t bits = ElementBits(spec, seed, index);
    switch (element_bytes) {
      case 8: static_cast<uint64_t*>(data)[index] = bits; break;
      case 4: static_cast<uint32_t*>(data)[index] = static_cast<uint32_t>(bits); break;
      case 2: static_cast<uint16_t*>(data)[index] = static_cast<uint16_t>(bits); break;
      default: static_cast<uint8_t*>(data)[index] = static_cast<uint8_t>(bits); break;
    }
  }
}

// Compares every element with what FillKernel (or, for kind 0, the poison
// memset) writes for it: per thread a count of differing bytes and the
// first differing byte, then one atomic each.
__global__ void CompareKernel(const void* data, int64_t elements, DeviceFillSpec spec, uint64_t seed,
                              DeviceFillDifference* difference) {
  const int element_bytes = ElementBytes(spec.dtype);
  unsigned long long differing = 0, first = ~0ull;
  for (int64_t index = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; index < elements;
       index += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint64_t expected = ElementBits(spec, seed, index);
    const unsigned char* got = static_cast<const unsigned char*>(data) + index * element_bytes;
    for (int byte = 0; byte < element_bytes; ++byte) {
      if (got[byte] == static_cast<unsigned char>(expected >> (8 * byte))) continue;
      ++differing;
      unsigned long long offset = static_cast<unsigned long long>(index) * element_bytes + byte;
      if (offset < first) first = offset;
    }
  }
  if (differing == 0) return;
  atomicAdd(&difference->differing_bytes, differing);
  atomicMin(&difference->first_byte, first);
}

constexpr int kThreads = 256;

unsigned int BlocksFor(int64_t elements) {
  int64_t blocks = (elements + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks > 4096 ? 4096 : blocks);  // grid-stride beyond: enough for any GPU
}

}  // namespace

cudaError_t LaunchDeviceFill(void* data, int64_t elements, const DeviceFillSpec& spec, uint64_t seed,
                             cudaStream_t stream) {
  if (elements <= 0) return cudaSuccess;
  FillKernel<<<BlocksFor(elements), kThreads, 0, stream>>>(data, elements, spec, seed);
  return cudaGetLastError();
}

cudaError_t LaunchDeviceFillCompare(const void* data, int64_t elements, const DeviceFillSpec& spec,
                                    uint64_t seed, DeviceFillDifference* difference, cudaStream_t stream) {
  if (elements <= 0) return cudaSuccess;
  CompareKernel<<<BlocksFor(elements), kThreads, 0, stream>>>(data, elements, spec, seed, difference);
  return cudaGetLastError();
}

}  // namespace kopt::runner
