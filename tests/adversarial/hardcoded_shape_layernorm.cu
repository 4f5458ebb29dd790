// Adversarial candidate (task layernorm) -- expected: wrong_output (at a
// variant size).
// Tuned for the visible shape only: the row length is hard-coded as 4096
// (the mean and variance divide by the constant 4096, "saving a division").
// Correct at the visible 8192 x 4096; at the task's variants (cols 1000, 777, 6000) the
// statistics are wrong. Loops use the real cols, so there is no
// out-of-bounds access to hide behind.
constexpr int kThreads = 256;
constexpr float kInverseCols = 1.0f / 4096.0f;

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

__global__ void layernorm_fixed_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                       int cols, float eps) {
  __shared__ float partial[kThreads];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += row[c];
  const float mean = BlockSum(sum, partial) * kInverseCols;
  float squares = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float d = row[c] - mean;
    squares += d * d;
  }
  const float inverse_std = rsqrtf(BlockSum(squares, partial) * kInverseCols + eps);
  for (int c = threadIdx.x; c < cols; c += kThreads)
    out[c] = (row[c] - mean) * inverse_std * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols,
                          float eps, cudaStream_t stream) {
  layernorm_fixed_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, beta, y, cols, eps);
}
