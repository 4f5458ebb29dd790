// Issue 13 flag knob check: gelu_tunable.cu at its defaults, compiled with -use_fast_math (tests/gpu/flag_knobs/README.md).
// kopt:nvcc -use_fast_math
// Tunable GELU (docs/tuning.md): each block handles BLOCK_SIZE * ITEMS
// vectors of VEC floats, contiguous per block; a thread loads its ITEMS
// vectors first (ITEMS independent loads in flight), then computes and
// stores them. The erf formula is the reference's (bitwise equal results).
// A vector that would cross the end is done element by element, so any
// n >= 1 is correct. Compiles as is with the defaults below.
//
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef ITEMS
#define ITEMS 2
#endif

namespace {
template <int V> struct VectorOf;
template <> struct VectorOf<1> { using Type = float; };
template <> struct VectorOf<2> { using Type = float2; };
template <> struct VectorOf<4> { using Type = float4; };

union Pack {
  typename VectorOf<VEC>::Type vector;
  float value[VEC];
};

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f)); }
}  // namespace

__global__ void __launch_bounds__(BLOCK_SIZE) gelu_tunable_kernel(const float* x, float* y, int n) {
  const long long base = static_cast<long long>(blockIdx.x) * BLOCK_SIZE * ITEMS * VEC;
  Pack pack[ITEMS];
#pragma unroll
  for (int item = 0; item < ITEMS; ++item) {
    const long long start = base + (static_cast<long long>(item) * BLOCK_SIZE + threadIdx.x) * VEC;
    if (start + VEC <= n) {
      pack[item].vector = *reinterpret_cast<const typename VectorOf<VEC>::Type*>(x + start);
    } else {
#pragma unroll
      for (int q = 0; q < VEC; ++q) pack[item].value[q] = start + q < n ? x[start + q] : 0.0f;
    }
  }
#pragma unroll
  for (int item = 0; item < ITEMS; ++item) {
    const long long start = base + (static_cast<long long>(item) * BLOCK_SIZE + threadIdx.x) * VEC;
#pragma unroll
    for (int q = 0; q < VEC; ++q) pack[item].value[q] = gelu_erf(pack[item].value[q]);
    if (start + VEC <= n) {
      *reinterpret_cast<typename VectorOf<VEC>::Type*>(y + start) = pack[item].vector;
    } else {
#pragma unroll
      for (int q = 0; q < VEC; ++q)
        if (start + q < n) y[start + q] = pack[item].value[q];
    }
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  const long long per_block = static_cast<long long>(BLOCK_SIZE) * ITEMS * VEC;
  const int blocks = static_cast<int>((n + per_block - 1) / per_block);
  gelu_tunable_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(x, y, n);
}
