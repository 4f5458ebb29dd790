// Adversarial candidate (task softmax) -- expected: too_many_resources.
// Stages a whole row in dynamic shared memory and asks for 200 KiB per
// block without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)
// (above 48 KiB the opt-in is required; the H200 allows 227 KiB with it).
// The launch fails (invalid argument / out of resources) and the kernel
// never runs; the error is left for the harness to find.
constexpr int kThreads = 256;
constexpr size_t kSharedBytes = 200 * 1024;

__global__ void softmax_smem_row_kernel(const float* x, float* y, int cols) {
  extern __shared__ float row_copy[];
  __shared__ float partial[kThreads];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    row_copy[c] = row[c];
    m = fmaxf(m, row_copy[c]);
  }
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + h]);
    __syncthreads();
  }
  m = partial[0];
  __syncthreads();
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) s += expf(row_copy[c] - m);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] += partial[threadIdx.x + h];
    __syncthreads();
  }
  s = partial[0];
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row_copy[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  softmax_smem_row_kernel<<<rows, kThreads, kSharedBytes, stream>>>(x, y, cols);
}
