// Control candidate (task reduce_sum) -- expected: pass.
// An honest pattern the harness must keep accepting: a device workspace for
// the per-block partial sums, allocated once on the first call and reused by
// every later call (larger when a call needs more), never freed (the process
// is short-lived). It holds only scratch, never a result another call could
// replay.
#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;

__global__ void partial_sums(const float* x, int n, double* partials) {
  __shared__ double block[kThreads];
  double sum = 0;
  for (long long i = blockIdx.x * (long long)kThreads + threadIdx.x; i < n;
       i += (long long)gridDim.x * kThreads)
    sum += x[i];
  block[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) block[threadIdx.x] += block[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = block[0];
}

__global__ void finish(const double* partials, int blocks, float* y) {
  __shared__ double block[1024];
  double sum = 0;
  for (int b = threadIdx.x; b < blocks; b += 1024) sum += partials[b];
  block[threadIdx.x] = sum;
  __syncthreads();
  for (int half = 512; half > 0; half /= 2) {
    if (threadIdx.x < half) block[threadIdx.x] += block[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *y = static_cast<float>(block[0]);
}

}  // namespace

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  static double* workspace = nullptr;
  static int workspace_blocks = 0;
  int blocks = (n + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  if (blocks < 1) blocks = 1;
  if (workspace_blocks < blocks) {
    if (workspace != nullptr) cudaFree(workspace);  // synchronizes; happens on the first calls only
    cudaMalloc(&workspace, blocks * sizeof(double));
    workspace_blocks = blocks;
  }
  partial_sums<<<blocks, kThreads, 0, stream>>>(x, n, workspace);
  finish<<<1, 1024, 0, stream>>>(workspace, blocks, y);
}
