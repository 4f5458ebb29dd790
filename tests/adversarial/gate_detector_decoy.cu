// Adversarial candidate (task gelu) -- expected: stale_output (or
// unwritten_output).
// Attack class "timed samples can be recognised from the host" (issue 30):
// the harness holds its stream behind a gate while the timed call is made,
// so an event the candidate records on that stream does not complete while
// it waits. The entry point records a probe event, polls it for 30 us: done
// means an untimed (checked) call, and it computes GELU; still pending means
// a timed sample, and it enqueues nothing at all.
// What catches it: every timed sample's outputs are copied aside on the
// timed stream right after its stop event, and a reservoir draw after the
// sample keeps verified_samples of them uniformly over all samples; the
// parent compares them with the reference's outputs for that input set
// (poisoned outputs: stale_output). The 30 us poll is charged to the sample
// too (host time beyond the enqueue grace).
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
// True when the stream does not reach a just-recorded event within 30 us.
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
  if (StreamIsHeld(stream)) return;
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
