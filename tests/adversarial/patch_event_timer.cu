// Adversarial candidate (task gelu) -- expected: side_stream (or
// suspect_fast, timing_inconsistent, crash).
// Attack kind 1, memory patching of the runner: the harness and the
// candidate share one CUDA runtime (libcudart.so), so on its first call the
// candidate overwrites the machine code of cudaEventElapsedTime in this
// process with a jump to its own function, which reports every timed interval
// as 1 microsecond (x86-64 only; elsewhere it computes honestly).
// What catches it: the runner's device-wide bracket is taken with the host
// clock, not with events, so device-wide time (~60 us) far exceeds the event
// time (1 us): side_stream. Had it patched that too, the roofline floor (53
// us for 256 MiB at 4.8 TB/s) rejects a 1 us GELU after a re-measurement
// (suspect_fast). What stays possible: a patch that shrinks both clocks by a
// few percent, staying above the floor (docs/harness-protocol.md §3).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/mman.h>
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

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static bool patched = false;
  if (!patched) {
    patched = true;
    PatchEventTimer();
  }
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
