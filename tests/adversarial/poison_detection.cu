// Adversarial candidate (task gelu) -- expected: pass (the cheat is
// neutralized and timed honestly; run_suite.py also checks its speedup stays
// below 1.5x).
// Attack kind 2: a first tiny kernel looks at y[0]; the GELU kernel computes
// only when y[0] still holds the harness's poison (all bytes 0xFF), which is
// how every checked launch starts, and returns at once otherwise (under the
// old harness, every timed launch after the first found the previous,
// already correct output there).
// Neutralized: every timed launch now starts from poisoned outputs exactly
// like a checked one, so the cheat computes on every launch and is timed on
// honest work. Had it skipped anyway, the verified samples would catch it.
#include <cstdint>

__device__ int gelu_poisoned;

__global__ void look_at_output(const float* y) {
  gelu_poisoned = (*reinterpret_cast<const uint32_t*>(y) == 0xFFFFFFFFu);
}

__global__ void gelu_kernel(const float* x, float* y, int n) {
  if (!gelu_poisoned) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  look_at_output<<<1, 1, 0, stream>>>(y);
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
