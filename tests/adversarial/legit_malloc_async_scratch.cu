// Control candidate (task softmax) -- expected: pass.
// An honest pattern: per-row maxima and sums go to scratch memory taken
// from the stream-ordered allocator on the harness's stream
// (cudaMallocAsync) and given back on the same stream (cudaFreeAsync), so
// the allocation, the kernels and the release are all ordered on the timed
// stream and nothing outlives the call.
#include <cuda_runtime.h>

#include <cfloat>

namespace {

constexpr int kThreads = 256;

__global__ void row_stats(const float* x, int cols, float* maxima, float* sums) {
  __shared__ float shared[kThreads];
  const float* row = x + (size_t)blockIdx.x * cols;
  float maximum = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += kThreads) maximum = fmaxf(maximum, row[c]);
  shared[threadIdx.x] = maximum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] = fmaxf(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  maximum = shared[0];
  __syncthreads();
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += expf(row[c] - maximum);
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    maxima[blockIdx.x] = maximum;
    sums[blockIdx.x] = shared[0];
  }
}

__global__ void normalize(const float* x, float* y, int cols, const float* maxima, const float* sums) {
  const float* row = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float maximum = maxima[blockIdx.x], inverse = 1.0f / sums[blockIdx.x];
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row[c] - maximum) * inverse;
}

}  // namespace

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  float* scratch = nullptr;
  cudaMallocAsync(reinterpret_cast<void**>(&scratch), 2 * (size_t)rows * sizeof(float), stream);
  row_stats<<<rows, kThreads, 0, stream>>>(x, cols, scratch, scratch + rows);
  normalize<<<rows, kThreads, 0, stream>>>(x, y, cols, scratch, scratch + rows);
  cudaFreeAsync(scratch, stream);
}
