// Tunable sum in ONE launch, deterministic (docs/tuning.md): BLOCKS_PER_SM
// blocks per SM (132 SMs on the H200) of BLOCK_SIZE threads read the input
// in a grid-stride loop, UNROLL independent VEC-float loads per iteration
// (all issued before any is added: UNROLL * VEC * 4 bytes in flight per
// thread) into separate f32 accumulators; a warp-shuffle and block reduction
// leaves one partial per block in global memory. The last block to finish
// (a fenced atomic ticket) sums the partials in f64 in a fixed order and
// re-arms the ticket, so the result does not depend on which block came
// last and no second launch is needed. Scalar tail for n % VEC; correct for
// any n >= 1. Compiles as is with the defaults below.
//
// kopt:tune BLOCK_SIZE values=128,256,512,1024 role=block_size
// kopt:tune VEC values=1,2,4 role=vector_width
// kopt:tune UNROLL values=1,2,4,8 role=unroll
// kopt:tune BLOCKS_PER_SM values=1,2,4,8,16 role=split_k
// kopt:restrict BLOCK_SIZE * BLOCKS_PER_SM <= 2048
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 512
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 4
#endif

namespace {
constexpr int kSms = 132;
constexpr int kMaxBlocks = kSms * BLOCKS_PER_SM;
template <int V> struct VectorOf;
template <> struct VectorOf<1> { using Type = float; };
template <> struct VectorOf<2> { using Type = float2; };
template <> struct VectorOf<4> { using Type = float4; };
union Pack {
  typename VectorOf<VEC>::Type vector;
  float value[VEC];
};

__device__ float WarpSum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}
}  // namespace

__device__ float g_tunable_partials[kMaxBlocks];
__device__ unsigned int g_tunable_ticket = 0;

__global__ void __launch_bounds__(BLOCK_SIZE) reduce_sum_tunable_kernel(const float* x, float* y, int n) {
  __shared__ float warp_sums[BLOCK_SIZE / 32];
  __shared__ double final_sums[BLOCK_SIZE / 32];
  __shared__ bool last_block;
  const long long vectors = n / VEC;
  const auto* xv = reinterpret_cast<const typename VectorOf<VEC>::Type*>(x);
  const long long stride = static_cast<long long>(gridDim.x) * BLOCK_SIZE;
  float accumulator[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) accumulator[u] = 0.0f;
  long long i = static_cast<long long>(blockIdx.x) * BLOCK_SIZE + threadIdx.x;
  for (; i + (UNROLL - 1) * stride < vectors; i += UNROLL * stride) {
    Pack pack[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) pack[u].vector = xv[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int q = 0; q < VEC; ++q) accumulator[u] += pack[u].value[q];
  }
  for (; i < vectors; i += stride) {
    Pack pack;
    pack.vector = xv[i];
#pragma unroll
    for (int q = 0; q < VEC; ++q) accumulator[0] += pack.value[q];
  }
  for (long long t = vectors * VEC + static_cast<long long>(blockIdx.x) * BLOCK_SIZE + threadIdx.x; t < n; t += stride)
    accumulator[0] += x[t];
  float sum = 0.0f;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) sum += accumulator[u];
  sum = WarpSum(sum);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = WarpSum(threadIdx.x < BLOCK_SIZE / 32 ? warp_sums[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) {
      g_tunable_partials[blockIdx.x] = sum;
      __threadfence();
      last_block = atomicAdd(&g_tunable_ticket, 1u) == gridDim.x - 1;
    }
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  // The last block: partial t, t + BLOCK_SIZE, ... per thread, then the
  // warps' sums in warp order: the same order whichever block is last.
  double total = 0.0;
  for (int p = threadIdx.x; p < static_cast<int>(gridDim.x); p += BLOCK_SIZE)
    total += static_cast<double>(*static_cast<volatile float*>(&g_tunable_partials[p]));
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
  if (threadIdx.x % 32 == 0) final_sums[threadIdx.x / 32] = total;
  __syncthreads();
  if (threadIdx.x == 0) {
    double grand = 0.0;
    for (int w = 0; w < BLOCK_SIZE / 32; ++w) grand += final_sums[w];
    y[0] = static_cast<float>(grand);
    g_tunable_ticket = 0;  // re-armed for the next launch (stream order)
  }
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  long long needed = (static_cast<long long>(n) / VEC + BLOCK_SIZE - 1) / BLOCK_SIZE;
  int blocks = static_cast<int>(needed < kMaxBlocks ? needed : kMaxBlocks);
  if (blocks < 1) blocks = 1;
  reduce_sum_tunable_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(x, y, n);
}
