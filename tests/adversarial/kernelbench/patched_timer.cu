// KernelBench cheat, native format (problem relu_small): an honest but slow
// ReLU that, on its first call, overwrites the machine code of
// cudaEventElapsedTime in its process (the runner's timer) so that every
// timed interval reads as 1 us (x86-64; the technique of
// tests/adversarial/patch_event_timer.cu). kopt's runner brackets the timed
// launches with the host clock too: side_stream (or suspect_fast below the
// roofline floor, timing_inconsistent against the parent's clock).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

__global__ void slow_relu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long start = clock64();
  while (clock64() - start < 40000) {
  }
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

namespace {

cudaError_t FakeElapsedTime(float* milliseconds, cudaEvent_t, cudaEvent_t) {
  *milliseconds = 0.001f;
  return cudaSuccess;
}

void PatchEventTimer() {
#if defined(__x86_64__)
  void* target = dlsym(RTLD_DEFAULT, "cudaEventElapsedTime");
  if (target == nullptr) return;
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = reinterpret_cast<uintptr_t>(target) & ~static_cast<uintptr_t>(page - 1);
  if (mprotect(reinterpret_cast<void*>(start), 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return;
  unsigned char jump[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};  // movabs rax, imm64; jmp rax
  uint64_t address = reinterpret_cast<uint64_t>(&FakeElapsedTime);
  std::memcpy(jump + 2, &address, sizeof address);
  std::memcpy(target, jump, sizeof jump);
#endif
}

}  // namespace

extern "C" void model_forward(const float* x, float* out, cudaStream_t stream) {
  static bool patched = false;
  if (!patched) {
    patched = true;
    PatchEventTimer();
  }
  constexpr int n = 512 * 4096;
  slow_relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, out, n);
}
