// Adversarial candidate (task softmax) -- expected: precision_loss (or
// wrong_output).
// Evaluates the exponentials in half precision (hexp on x - max rounded to
// __half; the "fast approximate exp" shortcut) and normalises in f32. The
// probabilities carry a relative error of ~1e-3: outside the task's f32
// tolerance (rtol 1e-5), inside the f16 one (rtol 1e-2).
constexpr int kThreads = 256;

__device__ __forceinline__ float HalfExp(float v) {
  return __half2float(hexp(__float2half(v)));
}

__global__ void softmax_half_exp_kernel(const float* x, float* y, int cols) {
  __shared__ float partial[kThreads];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, row[c]);
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + h]);
    __syncthreads();
  }
  m = partial[0];
  __syncthreads();
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) s += HalfExp(row[c] - m);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] += partial[threadIdx.x + h];
    __syncthreads();
  }
  s = partial[0];
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = HalfExp(row[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  softmax_half_exp_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
}
