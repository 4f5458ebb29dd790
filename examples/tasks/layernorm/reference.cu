// Layernorm reference: one block of 256 threads per row; two passes over
// the row in global memory for the mean and the (biased) variance, shared
// memory tree reductions, then y = (x - mean) / sqrt(var + eps) * gamma + beta.
constexpr int kThreads = 256;

// Sums `value` over the block with a shared-memory tree; all threads get it.
__device__ float BlockSum(float value, float* partial) {
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();
  return total;
}

__global__ void layernorm_reference_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                           int cols, float eps) {
  __shared__ float partial[kThreads];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;

  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += row[c];
  const float mean = BlockSum(sum, partial) / cols;

  float squares = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float d = row[c] - mean;
    squares += d * d;
  }
  const float variance = BlockSum(squares, partial) / cols;
  const float inverse_std = 1.0f / sqrtf(variance + eps);

  for (int c = threadIdx.x; c < cols; c += kThreads)
    out[c] = (row[c] - mean) * inverse_std * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols,
                          float eps, cudaStream_t stream) {
  layernorm_reference_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, beta, y, cols, eps);
}
