// Softmax reference: one block of 256 threads per row, three passes over
// the row in global memory (max, sum of exp, normalise), shared-memory tree
// reductions.
constexpr int kThreads = 256;

__global__ void softmax_reference_kernel(const float* x, float* y, int cols) {
  __shared__ float partial[kThreads];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;

  float row_max = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) row_max = fmaxf(row_max, row[c]);
  partial[threadIdx.x] = row_max;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  row_max = partial[0];
  __syncthreads();

  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += expf(row[c] - row_max);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  sum = partial[0];

  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row[c] - row_max) / sum;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  softmax_reference_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
}
