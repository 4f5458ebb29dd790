// Adversarial candidate (task gelu) -- expected: pass, not mounted, timed
// on the honest work (max_speedup).
// Attack class "the runner's code is writable", /proc/self/mem variant
// (issue 30): writes through /proc/self/mem ignore page protections (the
// kernel writes as a debugger would), so neither RELRO nor a read-only text
// segment stops them. The candidate opens /proc/self/mem for writing and
// writes a jump to a fake cudaEventElapsedTime (1 us) over the start of the
// real one in the shared CUDA runtime. It computes GELU honestly.
// What stops it: the sandbox refuses every open for writing (EPERM; quietly,
// since a library may try a cache file), so the patch is never made: "not
// mounted", and the run is timed on the honest kernel.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

namespace {

cudaError_t FakeElapsedTime(float* milliseconds, cudaEvent_t, cudaEvent_t) {
  *milliseconds = 0.001f;
  return cudaSuccess;
}

void PatchThroughProcMem() {
#if defined(__x86_64__)
  void* target = dlsym(RTLD_DEFAULT, "cudaEventElapsedTime");
  if (target == nullptr) return;
  int memory = open("/proc/self/mem", O_RDWR);
  if (memory < 0) return;
  unsigned char jump[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};  // movabs rax, imm64; jmp rax
  uint64_t address = reinterpret_cast<uint64_t>(&FakeElapsedTime);
  std::memcpy(jump + 2, &address, sizeof address);
  (void)pwrite(memory, jump, sizeof jump, static_cast<off_t>(reinterpret_cast<uintptr_t>(target)));
  close(memory);
#endif
}

}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    PatchThroughProcMem();
  }
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
