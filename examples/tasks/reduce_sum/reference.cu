// Sum reference: accumulates in f64 (exact enough to be the ground truth).
// Pass 1: 1024 blocks, each thread sums a grid-stride slice in double, a
// shared-memory tree gives one partial per block. Pass 2: one block sums the
// 1024 partials and writes the f32 result. Partials live in a __device__
// array of this library (stream-ordered, so back-to-back calls are safe).
constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__device__ double g_reference_partials[kBlocks];

__global__ void reduce_sum_partials_kernel(const float* x, int n) {
  __shared__ double partial[kThreads];
  double sum = 0.0;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += kBlocks * kThreads) sum += x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) g_reference_partials[blockIdx.x] = partial[0];
}

__global__ void reduce_sum_final_kernel(float* y) {
  __shared__ double partial[kBlocks];
  partial[threadIdx.x] = g_reference_partials[threadIdx.x];
  __syncthreads();
  for (int half = kBlocks / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[0] = static_cast<float>(partial[0]);
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  reduce_sum_partials_kernel<<<kBlocks, kThreads, 0, stream>>>(x, n);
  reduce_sum_final_kernel<<<1, kBlocks, 0, stream>>>(y);
}
