// Tunable SAXPY, z = a * x + y (docs/tuning.md): each block handles
// BLOCK_SIZE * ITEMS vectors of VEC floats, contiguous per block; a thread
// loads all its x and y vectors first (2 * ITEMS independent loads in
// flight), then stores. `a * x + y` as the reference writes it. A vector
// that would cross the end is done element by element: any n >= 1 is
// correct. Compiles as is with the defaults below.
//
// kopt:tune BLOCK_SIZE values=128,256,512,1024 role=block_size
// kopt:tune VEC values=1,2,4 role=vector_width
// kopt:tune ITEMS values=1,2,4 role=items_per_thread
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef ITEMS
#define ITEMS 1
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

__device__ __forceinline__ void Load(const float* source, long long start, int n, Pack& pack) {
  if (start + VEC <= n) {
    pack.vector = *reinterpret_cast<const typename VectorOf<VEC>::Type*>(source + start);
  } else {
#pragma unroll
    for (int q = 0; q < VEC; ++q) pack.value[q] = start + q < n ? source[start + q] : 0.0f;
  }
}
}  // namespace

__global__ void __launch_bounds__(BLOCK_SIZE) saxpy_tunable_kernel(const float* x, const float* y, float* z, int n,
                                                                   float a) {
  const long long base = static_cast<long long>(blockIdx.x) * BLOCK_SIZE * ITEMS * VEC;
  Pack xs[ITEMS], ys[ITEMS];
#pragma unroll
  for (int item = 0; item < ITEMS; ++item) {
    const long long start = base + (static_cast<long long>(item) * BLOCK_SIZE + threadIdx.x) * VEC;
    Load(x, start, n, xs[item]);
    Load(y, start, n, ys[item]);
  }
#pragma unroll
  for (int item = 0; item < ITEMS; ++item) {
    const long long start = base + (static_cast<long long>(item) * BLOCK_SIZE + threadIdx.x) * VEC;
    Pack out;
#pragma unroll
    for (int q = 0; q < VEC; ++q) out.value[q] = a * xs[item].value[q] + ys[item].value[q];
    if (start + VEC <= n) {
      *reinterpret_cast<typename VectorOf<VEC>::Type*>(z + start) = out.vector;
    } else {
#pragma unroll
      for (int q = 0; q < VEC; ++q)
        if (start + q < n) z[start + q] = out.value[q];
    }
  }
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  const long long per_block = static_cast<long long>(BLOCK_SIZE) * ITEMS * VEC;
  const int blocks = static_cast<int>((n + per_block - 1) / per_block);
  saxpy_tunable_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(x, y, z, n, a);
}
