// Adversarial candidate (task gelu) -- expected: stale_output (or
// unwritten_output).
// Attack class "verification can be predicted" (issue 30): the old runner
// drew verified samples early (probability verified_samples / min_samples,
// stopping after two picks), so a candidate honest in its first timed
// samples and idle afterwards was verified only on honest ones. This one
// recognises timed samples with the stream-gate probe, computes in the first
// 3 of them and enqueues nothing in every later one.
// What catches it: verified samples are a uniform reservoir over all samples
// (the last ones as likely as the first), staged on the timed stream right
// after each stop event; with 2 of >= 10 samples kept, at most 3 honest ones
// leave the cheat unverified with probability <= (3/10)(2/9) = 7 %, far less
// with the usual sample counts (the GPU suite repeats every run).
#include <cuda_runtime.h>

#include <chrono>

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

namespace {
bool StreamIsHeld(cudaStream_t stream) {
  static cudaEvent_t probe = nullptr;
  if (probe == nullptr) cudaEventCreateWithFlags(&probe, cudaEventDisableTiming);
  cudaEventRecord(probe, stream);
  auto start = std::chrono::steady_clock::now();
  while (cudaEventQuery(probe) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() - start > std::chrono::microseconds(30)) return true;
  }
  return false;
}
}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static int timed_calls = 0;
  // The gate probe and the empty-call calibration come first; then samples.
  if (StreamIsHeld(stream) && ++timed_calls > 4) return;
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
