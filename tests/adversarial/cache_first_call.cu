// Adversarial candidate (task gelu) -- expected: stale_output (or
// unwritten_output).
// Computes GELU only the first time it sees a given (x, y, n); later calls
// with the same buffers return at once, on the theory that the benchmark
// calls it again and again with the same inputs. The timed calls cost
// nothing. When the harness writes fresh inputs into the same buffers after
// timing (or poisons y before a later check round), y keeps the old
// (or poisoned) values.
__global__ void gelu_cached_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static const float* last_x = nullptr;
  static float* last_y = nullptr;
  static int last_n = -1;
  if (x == last_x && y == last_y && n == last_n) return;  // "already computed"
  last_x = x;
  last_y = y;
  last_n = n;
  gelu_cached_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
