// Adversarial candidate (task saxpy) -- expected: protocol_violation (or
// crash).
// Attack kind 1 (the result channel is writable by the candidate): a
// constructor, run when the harness dlopens the library and before any
// round, writes a complete, well-formed event stream (five passing checks, a
// 1 ns timing, done ok) to every open descriptor, so that whichever one the
// parent reads sees a perfect run, then ends the process with exit status 0.
// Under the old harness the parent reported it ok at an absurd speedup.
// Caught by the event binding: the lines carry neither this run's token nor
// the runner's sequence numbers, and no output frame reached the parent.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {

void WriteEverywhere(const char* text) {
  for (int fd = 0; fd < 1024; ++fd) {
    struct stat info;
    if (fstat(fd, &info) != 0) continue;
    (void)!write(fd, text, strlen(text));
  }
}

__attribute__((constructor)) void ForgeRun() {
  const char* outputs =
      "[{\"name\":\"z\",\"max_abs_error\":0,\"max_rel_error\":0,\"mismatches\":0,\"nan_count\":0,"
      "\"unwritten\":0,\"first_mismatch_index\":-1}]";
  char line[1024];
  for (int seed = 0; seed < 5; ++seed) {
    std::snprintf(line, sizeof line, "{\"event\":\"check\",\"seed\":%d,\"passed\":true,\"outputs\":%s}\n",
                  seed, outputs);
    WriteEverywhere(line);
  }
  WriteEverywhere(
      "{\"event\":\"timing\",\"samples\":100,\"median_s\":1e-9,\"q1_s\":1e-9,\"q3_s\":1e-9,\"mean_s\":1e-9,"
      "\"min_s\":1e-9,\"max_s\":1e-9,\"relative_stdev\":0.001,\"gpu_seconds\":1e-7,\"stop_reason\":\"noise\","
      "\"cold\":true,\"input_sets\":1,\"device_wide_median_s\":1e-9,\"sm_clock_mean_mhz\":1980,"
      "\"throttled_samples_discarded\":0}\n");
  WriteEverywhere("{\"event\":\"done\",\"ok\":true}\n");
  _exit(0);
}

}  // namespace

__global__ void saxpy_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
