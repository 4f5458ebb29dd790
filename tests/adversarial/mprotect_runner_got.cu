// Adversarial candidate (task gelu) -- expected: sandbox_violation.
// Attack class "the runner's code is writable" (issue 30): the runner calls
// cudaEventElapsedTime through its global offset table. The candidate finds
// the runner's slot holding that function's address (a scan of the main
// program's loaded segments for the address dlsym gives), makes its page
// writable with mprotect (the runner is linked with full RELRO: the table is
// read-only once relocated) and points it at a function that reports 1 us.
// It computes GELU honestly either way.
// What catches it: the sandbox denies mprotect on every page of the runner
// and of the CUDA runtime (seccomp, installed before the candidate's library
// is loaded); the runner reports the denied call: sandbox_violation.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

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

struct Search {
  uintptr_t target = 0;
  uintptr_t* slot = nullptr;
};

int ScanMainProgram(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // the main program only
  for (int index = 0; index < info->dlpi_phnum && search->slot == nullptr; ++index) {
    const ElfW(Phdr)& header = info->dlpi_phdr[index];
    if (header.p_type != PT_LOAD || (header.p_flags & PF_X) != 0) continue;
    auto* word = reinterpret_cast<uintptr_t*>(info->dlpi_addr + header.p_vaddr);
    size_t words = header.p_memsz / sizeof(uintptr_t);
    for (size_t at = 0; at < words; ++at) {
      if (word[at] == search->target) {
        search->slot = &word[at];
        break;
      }
    }
  }
  return 1;
}

void RewriteRunnerSlot() {
  Search search;
  search.target = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "cudaEventElapsedTime"));
  if (search.target == 0) return;
  dl_iterate_phdr(ScanMainProgram, &search);
  if (search.slot == nullptr) return;
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = reinterpret_cast<uintptr_t>(search.slot) & ~static_cast<uintptr_t>(page - 1);
  if (mprotect(reinterpret_cast<void*>(start), page, PROT_READ | PROT_WRITE) != 0) return;
  *search.slot = reinterpret_cast<uintptr_t>(&FakeElapsedTime);
}

}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    RewriteRunnerSlot();
  }
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
