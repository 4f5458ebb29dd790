// Adversarial candidate (task gelu) -- expected: stale_output (or
// unwritten_output, side_stream).
// Attack class "verification can be steered" (issue 30): in a timed sample
// (recognised with the stream-gate probe) the entry point enqueues only an
// event and returns; a helper thread waits until that event completes (the
// bracket's stop event is about to), then launches the real GELU on the
// harness's own stream from its thread. The old runner copied a verified
// sample's outputs on that stream only after the device was idle and the
// draw was made: the helper's kernel came first, the copy saw correct
// outputs, the events saw nothing.
// What catches it: the copy of every sample's outputs is enqueued on the
// timed stream right after the stop event, before the gate opens, so in
// stream order it precedes anything launched once the sample is seen to end
// (the staged outputs are the poison: stale_output); a kernel racing on the
// stream past cudaDeviceSynchronize's return is also outside any sample.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <thread>

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

struct Pending {
  std::atomic<bool> armed{false};
  cudaEvent_t marker = nullptr;
  cudaStream_t stream = nullptr;
  const float* x = nullptr;
  float* y = nullptr;
  int n = 0;
};
Pending pending;

void Helper() {
  for (;;) {
    if (!pending.armed.load()) {
      std::this_thread::yield();
      continue;
    }
    while (cudaEventQuery(pending.marker) == cudaErrorNotReady) {
    }
    gelu_kernel<<<(pending.n + 255) / 256, 256, 0, pending.stream>>>(pending.x, pending.y, pending.n);
    pending.armed.store(false);
  }
}
}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static bool started = false;
  if (!started) {
    started = true;
    cudaEventCreateWithFlags(&pending.marker, cudaEventDisableTiming);
    std::thread(Helper).detach();
  }
  if (!StreamIsHeld(stream) || pending.armed.load()) {
    gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
    return;
  }
  cudaEventRecord(pending.marker, stream);
  pending.stream = stream;
  pending.x = x;
  pending.y = y;
  pending.n = n;
  pending.armed.store(true);
}
