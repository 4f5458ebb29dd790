// Adversarial candidate (task gelu) -- expected: sandbox_violation.
// Attack class "the parent's memory is writable", debugger variant (issue
// 30): PTRACE_SEIZE on the parent (kopt), then PTRACE_POKEDATA could change
// its verdict; or PTRACE_TRACEME to keep a debugger-only channel. The
// candidate tries both, then computes GELU honestly.
// What catches it: the sandbox denies ptrace in the child (and the parent is
// non-dumpable); the runner reports the denied call: sandbox_violation.
#include <cuda_runtime.h>
#include <sys/ptrace.h>
#include <unistd.h>

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    (void)ptrace(PTRACE_SEIZE, getppid(), nullptr, nullptr);
    (void)ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
  }
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
