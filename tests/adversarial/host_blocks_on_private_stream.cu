// Adversarial candidate (task gelu) -- expected: pass, timed on the honest
// work (max_speedup), or suspect_fast.
// Attack class "host-side work outside the bracket" (issue 30): the entry
// point runs the real GELU on its own stream and blocks the host until it is
// done (cudaStreamSynchronize on that stream only), then returns with nothing
// enqueued on the harness stream. The harness's stream gate holds the timed
// stream during the call, and the device-wide bracket used to open when the
// call returned: both clocks saw an empty sample.
// What catches it: a sample's time is at least the host's time inside the
// entry call (runner/timer.h), so the blocked host is the sample.
#include <cuda_runtime.h>

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  (void)stream;
  static cudaStream_t side = nullptr;
  if (side == nullptr) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  gelu_kernel<<<(n + 255) / 256, 256, 0, side>>>(x, y, n);
  cudaStreamSynchronize(side);
}
