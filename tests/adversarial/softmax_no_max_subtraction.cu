// Adversarial candidate (task softmax) -- expected: wrong_output.
// The textbook shortcut exp(x) / sum(exp(x)) without subtracting the row
// maximum (one pass less). On the task's heavy-tailed inputs (Student-t,
// 2 degrees of freedom) rows contain values above 88, exp overflows to inf
// and the row becomes inf/inf = NaN where the reference has finite values.
constexpr int kThreads = 256;

__global__ void softmax_unsafe_kernel(const float* x, float* y, int cols) {
  __shared__ float partial[kThreads];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) s += expf(row[c]);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] += partial[threadIdx.x + h];
    __syncthreads();
  }
  s = partial[0];
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row[c]) / s;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  softmax_unsafe_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
}
