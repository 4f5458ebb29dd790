// Adversarial candidate (task gelu) -- expected: sandbox_violation.
// Attack class "work outside the bracket / leaking between children" (issue
// 30): a constructor forks a helper process that outlives the runner (it
// could keep a CUDA-free watcher on the file system, or wait for the next
// candidate child of the run). The entry point computes GELU honestly.
// What catches it: the sandbox denies fork/clone of processes (threads stay
// allowed); the runner reports the denied call: sandbox_violation.
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

namespace {
__attribute__((constructor)) void StartHelper() {
  pid_t child = fork();
  if (child == 0) {
    sleep(30);
    _exit(0);
  }
}
}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
