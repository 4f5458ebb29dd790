// Adversarial candidate (task gelu) -- expected: sandbox_violation.
// Attack class "the runner's code is writable", new-code variant (issue 30):
// instead of patching existing code, the candidate maps a fresh executable
// page after it was loaded (as a JIT would) to hold a trampoline for a
// hook, then computes GELU honestly.
// What catches it: once the library is loaded, the sandbox's second stage
// denies every mmap/mprotect asking for PROT_EXEC; the runner reports the
// denied call: sandbox_violation.
#include <cuda_runtime.h>
#include <sys/mman.h>
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
    long page = sysconf(_SC_PAGESIZE);
    void* code =
        mmap(nullptr, static_cast<size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code != MAP_FAILED) {
      static_cast<unsigned char*>(code)[0] = 0xC3;  // ret
      (void)mprotect(code, static_cast<size_t>(page), PROT_READ | PROT_EXEC);
    }
  }
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
