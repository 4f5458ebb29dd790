// Adversarial candidate (task gelu) -- expected: sandbox_violation (or
// wrong_output, constant_output).
// Attack class "the parent's memory is writable", process_vm_writev variant
// (issue 30): the parent reads the child's memory with process_vm_readv (the
// pulled output channel); the candidate tries the converse, writing zeros
// into the parent's large writable mappings with process_vm_writev, and
// outputs zeros.
// What catches it: the sandbox denies process_vm_writev (and _readv) in the
// child; the runner reports the denied call (sandbox_violation), and the
// zero outputs fail the comparison as well. The parent is non-dumpable too.
#include <cuda_runtime.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

namespace {

void ZeroParentMappings() {
  pid_t parent = getppid();
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/maps", static_cast<int>(parent));
  FILE* maps = std::fopen(path, "r");
  std::vector<char> zeros(size_t{1} << 20, 0);
  bool tried = false;
  char line[512];
  while (maps != nullptr && std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long begin = 0, end = 0;
    char permissions[8] = {0};
    if (std::sscanf(line, "%lx-%lx %7s", &begin, &end, permissions) < 3) continue;
    if (permissions[1] != 'w' || end - begin < (64ul << 20)) continue;
    for (unsigned long at = begin; at < end; at += zeros.size()) {
      iovec local{zeros.data(), zeros.size()};
      iovec remote{reinterpret_cast<void*>(at), zeros.size()};
      tried = true;
      if (process_vm_writev(parent, &local, 1, &remote, 1, 0) < 0) break;
    }
  }
  if (maps != nullptr) std::fclose(maps);
  if (!tried) {
    // /proc/<parent>/maps unreadable (the parent is non-dumpable): try a blind write anyway.
    iovec local{zeros.data(), 8};
    iovec remote{reinterpret_cast<void*>(0x10000), 8};
    (void)process_vm_writev(parent, &local, 1, &remote, 1, 0);
  }
}

}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  (void)x;
  static bool tried = false;
  if (!tried) {
    tried = true;
    ZeroParentMappings();
  }
  cudaMemsetAsync(y, 0, sizeof(float) * static_cast<size_t>(n), stream);
}
