// Sum candidate, deterministic: pass 1 reads float4 with four independent
// f32 accumulators per thread (memory-level parallelism), warp-shuffle and
// block reductions give one f32 partial per block; pass 2 sums the partials
// in f64 in one block. Scalar tail for n % 4; correct for any n >= 1.
constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1056;  // 132 SMs x 8

__device__ float g_candidate_partials[kMaxBlocks];

__device__ float WarpSum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__global__ void reduce_sum_vec4_kernel(const float* x, int n) {
  __shared__ float warp_sums[kThreads / 32];
  const int vectors = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const int stride = gridDim.x * kThreads;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < vectors; i += stride) {
    const float4 v = x4[i];
    a0 += v.x;
    a1 += v.y;
    a2 += v.z;
    a3 += v.w;
  }
  for (int i = vectors * 4 + blockIdx.x * kThreads + threadIdx.x; i < n; i += stride) a0 += x[i];
  float sum = WarpSum((a0 + a1) + (a2 + a3));
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = WarpSum(threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) g_candidate_partials[blockIdx.x] = sum;
  }
}

__global__ void reduce_sum_partials_kernel(float* y, int blocks) {
  __shared__ double partial[1024];
  double sum = 0.0;
  for (int i = threadIdx.x; i < blocks; i += 1024) sum += g_candidate_partials[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = 512; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[0] = static_cast<float>(partial[0]);
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  int blocks = (n / 4 + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  if (blocks < 1) blocks = 1;
  reduce_sum_vec4_kernel<<<blocks, kThreads, 0, stream>>>(x, n);
  reduce_sum_partials_kernel<<<1, 1024, 0, stream>>>(y, blocks);
}
