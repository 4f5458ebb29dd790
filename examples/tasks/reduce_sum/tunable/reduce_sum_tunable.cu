// Tunable sum, deterministic and multi-stage (docs/tuning.md): stage 1 runs
// BLOCKS_PER_SM blocks per SM (132 SMs on the H200) of BLOCK_SIZE threads
// over the input in a grid-stride loop, UNROLL independent VEC-float loads
// per iteration into separate f32 accumulators; a warp-shuffle and block
// reduction leaves one partial per block. Stage 2 sums the partials in f64
// in one block. Scalar tail for n % VEC; correct for any n >= 1. Compiles
// as is with the defaults below.
//
// kopt:tune BLOCK_SIZE values=256,512,1024 role=block_size
// kopt:tune VEC values=2,4 role=vector_width
// kopt:tune UNROLL values=1,2,4 role=unroll
// kopt:tune BLOCKS_PER_SM values=2,4,8 role=split_k
// kopt:restrict BLOCK_SIZE * BLOCKS_PER_SM <= 2048
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef UNROLL
#define UNROLL 2
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 4
#endif

namespace {
constexpr int kSms = 132;
constexpr int kMaxBlocks = kSms * BLOCKS_PER_SM;
template <int V> struct VectorOf;
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

__global__ void __launch_bounds__(BLOCK_SIZE) reduce_sum_stage1_kernel(const float* x, int n) {
  __shared__ float warp_sums[BLOCK_SIZE / 32];
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
    if (threadIdx.x == 0) g_tunable_partials[blockIdx.x] = sum;
  }
}

__global__ void reduce_sum_stage2_kernel(float* y, int blocks) {
  __shared__ double partial[1024];
  double sum = 0.0;
  for (int i = threadIdx.x; i < blocks; i += 1024) sum += g_tunable_partials[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = 512; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[0] = static_cast<float>(partial[0]);
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  long long needed = (static_cast<long long>(n) / VEC + BLOCK_SIZE - 1) / BLOCK_SIZE;
  int blocks = static_cast<int>(needed < kMaxBlocks ? needed : kMaxBlocks);
  if (blocks < 1) blocks = 1;
  reduce_sum_stage1_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(x, n);
  reduce_sum_stage2_kernel<<<1, 1024, 0, stream>>>(y, blocks);
}
