// Tunable Swish (docs/tuning.md), y = x / (1 + exp(-x)): each block handles
// BLOCK_SIZE * ITEMS float4 vectors, contiguous per block; a thread loads its
// ITEMS vectors first (ITEMS independent loads in flight), then computes and
// stores them. A vector that would cross the end is done element by element,
// so any n >= 1 is correct. Compiles as is with the defaults below.
//
// The energy knobs (issue 15's matched-speed A/B, docs/energy.md "Energy in
// optimize"): MATH picks how exp and the division are computed, from the
// reference's IEEE sequences (0, bitwise equal to the reference) through
// __expf with an IEEE division (1) to __expf with __fdividef (2); FTZ compiles
// with -ftz=true (denormals flushed). Both have the role fast_math: under
// --objective time+energy the builtin generator tries them where the task's
// tolerance admits the fast paths' documented error, even when time alone
// would not ask (the kernel is DRAM-bound: they change energy, not time).
//
// kopt:tune BLOCK_SIZE values=128,256,512 role=block_size
// kopt:tune ITEMS values=1,2,4 role=items_per_thread
// kopt:tune MATH values=0,1,2 role=fast_math
// kopt:flag FTZ option=-ftz=true role=fast_math
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS
#define ITEMS 2
#endif
#ifndef MATH
#define MATH 0
#endif

namespace {
union Pack {
  float4 vector;
  float value[4];
};

__device__ __forceinline__ float swish_one(float v) {
#if MATH == 0
  return v / (1.0f + expf(-v));
#elif MATH == 1
  return v / (1.0f + __expf(-v));
#else
  return __fdividef(v, 1.0f + __expf(-v));
#endif
}
}  // namespace

__global__ void __launch_bounds__(BLOCK_SIZE) swish_tunable_kernel(const float* x, float* y, int n) {
  const long long base = static_cast<long long>(blockIdx.x) * BLOCK_SIZE * ITEMS * 4;
  Pack pack[ITEMS];
#pragma unroll
  for (int item = 0; item < ITEMS; ++item) {
    const long long start = base + (static_cast<long long>(item) * BLOCK_SIZE + threadIdx.x) * 4;
    if (start + 4 <= n) {
      pack[item].vector = *reinterpret_cast<const float4*>(x + start);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) pack[item].value[q] = start + q < n ? x[start + q] : 0.0f;
    }
  }
#pragma unroll
  for (int item = 0; item < ITEMS; ++item) {
    const long long start = base + (static_cast<long long>(item) * BLOCK_SIZE + threadIdx.x) * 4;
#pragma unroll
    for (int q = 0; q < 4; ++q) pack[item].value[q] = swish_one(pack[item].value[q]);
    if (start + 4 <= n) {
      *reinterpret_cast<float4*>(y + start) = pack[item].vector;
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (start + q < n) y[start + q] = pack[item].value[q];
    }
  }
}

extern "C" void swish(const float* x, float* y, int n, cudaStream_t stream) {
  const long long per_block = static_cast<long long>(BLOCK_SIZE) * ITEMS * 4;
  const int blocks = static_cast<int>((n + per_block - 1) / per_block);
  swish_tunable_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(x, y, n);
}
