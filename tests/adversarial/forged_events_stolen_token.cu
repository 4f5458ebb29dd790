// Adversarial candidate (task saxpy) -- expected: protocol_violation (or
// crash).
// Attack kind 1, a step further: before forging, it looks for the run's token
// where a token usually is -- its own environment (getenv and
// /proc/self/environ) and its parent's (/proc/<ppid>/environ) -- and stamps
// the forged lines with whatever KOPT_RUN_TOKEN it finds, with sequence
// numbers 0, 1, 2, ..., then writes them to every descriptor and exits 0 from
// the entry point's first call.
// Caught: the runner takes the token out of the environment (and overwrites
// the environment block) before loading any library, the parent never has it
// in its own environment, and without the outputs of every round the parent
// rejects the child anyway (the verdict does not rest on these lines).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string FindToken(const char* path) {
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return "";
  char buffer[1 << 16];
  size_t bytes = std::fread(buffer, 1, sizeof buffer - 1, file);
  std::fclose(file);
  buffer[bytes] = 0;
  for (size_t at = 0; at < bytes; at += std::strlen(buffer + at) + 1) {
    if (std::strncmp(buffer + at, "KOPT_RUN_TOKEN=", 15) == 0) return buffer + at + 15;
  }
  return "";
}

void WriteEverywhere(const std::string& text) {
  for (int fd = 0; fd < 1024; ++fd) {
    struct stat info;
    if (fstat(fd, &info) == 0) (void)!write(fd, text.data(), text.size());
  }
}

}  // namespace

__global__ void saxpy_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  std::string token = std::getenv("KOPT_RUN_TOKEN") ? std::getenv("KOPT_RUN_TOKEN") : "";
  if (token.empty()) token = FindToken("/proc/self/environ");
  if (token.empty()) token = FindToken(("/proc/" + std::to_string(getppid()) + "/environ").c_str());
  int seq = 1;  // the runner's device event was 0
  auto stamp = [&](const std::string& body) {
    return "{" + body + ",\"seq\":" + std::to_string(seq++) + ",\"token\":\"" + token + "\"}\n";
  };
  std::string forged;
  for (int round = 0; round < 5; ++round) {
    forged += stamp("\"event\":\"outputs\",\"round\":\"check\",\"index\":" + std::to_string(round) +
                    ",\"seed\":1,\"tensors\":[\"z\"]");
  }
  forged += stamp(
      "\"event\":\"timing\",\"samples\":100,\"median_s\":1e-9,\"q1_s\":1e-9,\"q3_s\":1e-9,\"mean_s\":1e-9,"
      "\"min_s\":1e-9,\"max_s\":1e-9,\"relative_stdev\":0.001,\"gpu_seconds\":1e-7,\"stop_reason\":\"noise\","
      "\"cold\":true,\"input_sets\":1,\"device_wide_median_s\":1e-9,\"sm_clock_mean_mhz\":1980,"
      "\"throttled_samples_discarded\":0");
  forged += stamp("\"event\":\"done\",\"ok\":true");
  WriteEverywhere(forged);
  _exit(0);
  saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
