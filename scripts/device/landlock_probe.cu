// Which part of kopt-runner's Landlock stage (src/core/file_write_restriction.cc)
// keeps the CUDA driver from starting on a GPU machine: each variant restricts a
// forked child, then initialises CUDA (device count, a stream-ordered
// allocation, a kernel) and prints what failed. A diagnostic, not product code.
// Build: nvcc -O1 -cudart static -o landlock_probe scripts/device/landlock_probe.cu
#include <cuda_runtime.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <string>
#include <vector>

__global__ void Touch(int* value) { *value = 7; }

struct Variant {
  const char* name;
  uint64_t handled_fs;
  uint64_t handled_net;
  uint64_t scoped;
  std::vector<std::string> trees;  // allowed everything beneath
  bool nvidia_files;               // /dev/nvidia* and /dev/null as files
  bool initialise_first = false;   // cudaGetDeviceCount before the restriction
};

int ThreadCount() {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  while (dirent* entry = tasks ? readdir(tasks) : nullptr) count += entry->d_name[0] != '.';
  if (tasks) closedir(tasks);
  return count;
}

constexpr uint64_t kWriteFile = 1ULL << 1, kAllWrites = 0x7FF2ULL /* bits 1, 4..14 */;

int Restrict(const Variant& variant) {
  if (variant.handled_fs == 0 && variant.handled_net == 0 && variant.scoped == 0) return 0;
  struct {
    uint64_t fs, net, scoped;
  } attributes{variant.handled_fs, variant.handled_net, variant.scoped};
  int ruleset = syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
  if (ruleset < 0) return printf("  create_ruleset: %s\n", strerror(errno)), 1;
  auto allow = [&](const std::string& path, uint64_t rights) {
    int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct __attribute__((packed)) {
      uint64_t allowed;
      int32_t parent;
    } rule{rights & variant.handled_fs, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
      printf("  add_rule %s: %s\n", path.c_str(), strerror(errno));
    close(fd);
  };
  if (variant.nvidia_files) {
    DIR* dev = opendir("/dev");
    while (dirent* entry = dev ? readdir(dev) : nullptr) {
      if (strncmp(entry->d_name, "nvidia", 6) == 0) allow(std::string("/dev/") + entry->d_name, kWriteFile | (1ULL << 14));
    }
    if (dev) closedir(dev);
    allow("/dev/null", kWriteFile | (1ULL << 14));
  }
  for (const std::string& tree : variant.trees) allow(tree, variant.handled_fs);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) return printf("  restrict_self: %s\n", strerror(errno)), 1;
  return 0;
}

int UseCuda() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return printf("  cudaGetDeviceCount: %s\n", cudaGetErrorString(error)), 2;
  cudaFree(nullptr);
  printf("  after the context: %d threads\n", ThreadCount());
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int* value = nullptr;
  error = cudaMallocAsync(&value, sizeof(int), stream);
  if (error != cudaSuccess) return printf("  cudaMallocAsync: %s\n", cudaGetErrorString(error)), 3;
  Touch<<<1, 1, 0, stream>>>(value);
  error = cudaStreamSynchronize(stream);
  if (error != cudaSuccess) return printf("  kernel: %s\n", cudaGetErrorString(error)), 4;
  return 0;
}

int main() {
  std::vector<Variant> variants = {
      {"no restriction", 0, 0, 0, {}, false},
      {"kopt's stage 0 (writes, TCP, scopes)", kAllWrites, 3, 3, {"/dev/shm"}, true},
      {"writes only", kAllWrites, 0, 0, {"/dev/shm"}, true},
      {"TCP only", 0, 3, 0, {}, false},
      {"abstract unix socket scope only", 0, 0, 1, {}, false},
      {"signal scope only", 0, 0, 2, {}, false},
      {"writes, /dev as a tree", kAllWrites, 0, 0, {"/dev"}, false},
      {"writes, /dev /tmp /run /var /proc /sys as trees", kAllWrites, 0, 0, {"/dev", "/tmp", "/run", "/var", "/proc", "/sys"}, false},
      {"write_file only, /dev/nvidia*", kWriteFile, 0, 0, {"/dev/shm"}, true},
      {"writes, /dev/nvidia* and /proc", kAllWrites, 0, 0, {"/dev/shm", "/proc"}, true},
      {"writes, /dev/nvidia* and /tmp /run /var /sys", kAllWrites, 0, 0, {"/dev/shm", "/tmp", "/run", "/var", "/sys"}, true},
      {"writes, /dev/nvidia* and /proc/self/task", kAllWrites, 0, 0, {"/dev/shm", "/proc/self/task"}, true},
      {"cuInit first, then kopt's stage 0", kAllWrites, 3, 3, {"/dev/shm"}, true, true},
      {"cuInit first, then writes only", kAllWrites, 0, 0, {"/dev/shm"}, true, true},
  };
  for (const Variant& variant : variants) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      alarm(60);
      if (variant.initialise_first) {
        int count = 0;
        cudaError_t error = cudaGetDeviceCount(&count);
        printf("  initialised first: %s, %d threads\n", cudaGetErrorString(error), ThreadCount());
      }
      int code = Restrict(variant);
      if (code == 0) code = UseCuda();
      fflush(stdout);
      _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("%-50s %s\n", variant.name,
           WIFEXITED(status) ? (WEXITSTATUS(status) == 0 ? "CUDA works" : "CUDA FAILS") : "killed (hang?)");
  }
  return 0;
}
