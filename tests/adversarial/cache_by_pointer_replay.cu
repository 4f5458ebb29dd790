// Adversarial candidate (task softmax) -- expected: stale_output (or
// wrong_output).
// Keeps a private copy of its last result keyed by the input pointer and
// shape. A call with the same input pointer replays the copy with a
// device-to-device memcpy instead of computing (the CUDA-L1 "cache by
// address" hack). Fresh inputs written into the same buffer get the old
// answer.
constexpr int kThreads = 256;

__global__ void softmax_rows_kernel(const float* x, float* y, int cols) {
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
  for (int c = threadIdx.x; c < cols; c += kThreads) s += expf(row[c] - m);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] += partial[threadIdx.x + h];
    __syncthreads();
  }
  s = partial[0];
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  static const float* cached_input = nullptr;
  static int cached_rows = 0, cached_cols = 0;
  static float* cache = nullptr;
  static size_t cache_bytes = 0;
  const size_t bytes = static_cast<size_t>(rows) * cols * sizeof(float);
  if (x == cached_input && rows == cached_rows && cols == cached_cols && cache != nullptr) {
    cudaMemcpyAsync(y, cache, bytes, cudaMemcpyDeviceToDevice, stream);  // replay
    return;
  }
  softmax_rows_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
  if (bytes > cache_bytes) {
    if (cache != nullptr) cudaFree(cache);
    cudaMalloc(&cache, bytes);
    cache_bytes = bytes;
  }
  cudaMemcpyAsync(cache, y, bytes, cudaMemcpyDeviceToDevice, stream);
  cached_input = x;
  cached_rows = rows;
  cached_cols = cols;
}
