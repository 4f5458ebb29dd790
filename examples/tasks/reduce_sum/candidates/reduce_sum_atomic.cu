// Sum candidate, one pass: a stream-ordered memset zeroes y, then each block
// reduces a grid-stride slice (float4, two accumulators, warp shuffles) and
// adds its f32 partial to y with one atomicAdd. 528 partials of ~1.3e5
// each: roundings of the running f32 sum (ulp 4-8 near 6.7e7) add up to a
// relative error of about 1e-6, inside the task's rtol of 1e-5; the order
// of the atomics changes the last bits only. Correct for any n >= 1.
constexpr int kThreads = 512;
constexpr int kMaxBlocks = 132 * 4;

__device__ float WarpSum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__global__ void reduce_sum_atomic_kernel(const float* x, float* y, int n) {
  __shared__ float warp_sums[kThreads / 32];
  const int vectors = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const int stride = gridDim.x * kThreads;
  float a0 = 0.0f, a1 = 0.0f;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < vectors; i += stride) {
    const float4 v = x4[i];
    a0 += v.x + v.y;
    a1 += v.z + v.w;
  }
  for (int i = vectors * 4 + blockIdx.x * kThreads + threadIdx.x; i < n; i += stride) a0 += x[i];
  float sum = WarpSum(a0 + a1);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = WarpSum(threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) atomicAdd(y, sum);
  }
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  int blocks = (n / 4 + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  if (blocks < 1) blocks = 1;
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  reduce_sum_atomic_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n);
}
