// Adversarial candidate (task gelu) -- expected: stale_output (or
// unwritten_output, timing_inconsistent).
// Attack kind 2 (timed launches can be told apart from checked ones): the
// correctness rounds are the first calls a child makes, so it computes GELU
// on its first 16 calls (3 seeds, the variants, the start of the warm-up)
// and returns at once after that: timing sees a no-op.
// Caught: timed samples chosen at random after they ran are checked by the
// parent against the reference's outputs for that input set; every timed
// launch starts from poisoned outputs, so a skipped one is all poison.
__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static int calls = 0;
  if (++calls > 16) return;
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
