// Adversarial candidate (task gelu) -- expected: crash (or sandbox_violation).
// Attack class "the runner's code is writable", lazy-binding variant (issue
// 30): with partial RELRO and lazy binding (the old link), the runner's
// .got.plt stayed writable for the whole run, so a plain store redirected
// the runner's calls. The candidate stores a fake cudaEventElapsedTime into
// every slot of the main program that holds the real one, without mprotect.
// What catches it: kopt-runner is linked with -z relro -z now
// (runner_binary_test checks the flags): every slot is read-only before the
// library is loaded, and the store faults (crash); the runner's timing is
// never redirected.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdint>

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

int RewriteSlots(dl_phdr_info* info, size_t, void* data) {
  auto target = *static_cast<uintptr_t*>(data);
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;
  for (int index = 0; index < info->dlpi_phnum; ++index) {
    const ElfW(Phdr)& header = info->dlpi_phdr[index];
    if (header.p_type != PT_LOAD || (header.p_flags & PF_X) != 0) continue;
    auto* word = reinterpret_cast<volatile uintptr_t*>(info->dlpi_addr + header.p_vaddr);
    size_t words = header.p_memsz / sizeof(uintptr_t);
    for (size_t at = 0; at < words; ++at) {
      if (word[at] == target) word[at] = reinterpret_cast<uintptr_t>(&FakeElapsedTime);
    }
  }
  return 1;
}

}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    auto target = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "cudaEventElapsedTime"));
    if (target != 0) dl_iterate_phdr(RewriteSlots, &target);
  }
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
