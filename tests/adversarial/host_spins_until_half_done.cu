// Adversarial candidate (task gelu) -- expected: pass, timed on the honest
// work (max_speedup).
// Attack class "host-side work outside the bracket", split variant (issue
// 30): the first half of the elements runs on a private stream while the
// host spins on an event query (no synchronize call for a scanner to see);
// the second half is enqueued on the harness stream after it. Events see
// half the work; the host's own time in the call holds the other half.
// What catches it: the sample's time adds the host's time in the call beyond
// an enqueue's grace to the event time (runner/timer.h): the whole GELU.
#include <cuda_runtime.h>

__global__ void gelu_kernel(const float* x, float* y, int begin, int end) {
  int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static cudaStream_t side = nullptr;
  static cudaEvent_t done = nullptr;
  if (side == nullptr) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  }
  int half = n / 2;
  gelu_kernel<<<(half + 255) / 256, 256, 0, side>>>(x, y, 0, half);
  cudaEventRecord(done, side);
  while (cudaEventQuery(done) == cudaErrorNotReady) {
  }
  gelu_kernel<<<(n - half + 255) / 256, 256, 0, stream>>>(x, y, half, n);
}
