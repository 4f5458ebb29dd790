// kopt_torch_bridge.cuh: the reference of a task imported from KernelBench
// (written by `kopt task import-kernelbench`; docs/kernelbench.md).
//
// The task's reference.cu defines the entry point by calling Bridge::Call,
// which hands the arguments to the problem's PyTorch Model running in a Python
// child (kopt_torch_reference.py, started on the first call, in the task
// directory beside this file) and copies its outputs back. The child is
// started by the reference's kopt-runner process, which never loads candidate
// code; it gets the inputs the runner drew (host-drawn check rounds,
// device-drawn timed sets alike), so its outputs are the expected ones for
// exactly those values.
//
// Per call, on the child's stdin: for every input, inout and scalar in
// declaration order, a little-endian uint64 byte count and the bytes. On its
// stdout: a uint64 status (0: ok, else the byte count of an error message
// that follows), then for every output and inout a uint64 byte count and the
// bytes. The call synchronizes the stream and copies through the host: the
// reference's kopt-protocol time is the bridge's, not PyTorch's (kopt reports
// PyTorch's own time separately, bench/kernelbench_compare.py).
//
// A failure (no python3, the model raising, a short read) prints one line
// "kopt torch reference: CAUSE" on stderr and aborts the reference child.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace kopt_torch_bridge {

enum class Kind { kInput, kOutput, kInout, kScalar };

struct Arg {
  const void* data;  // device pointer (tensors) or host pointer (scalars)
  unsigned long long bytes;
  Kind kind;
};

class Bridge {
 public:
  explicit Bridge(const char* this_file) {
    std::string file = this_file;
    size_t slash = file.rfind('/');
    directory_ = slash == std::string::npos ? std::string(".") : file.substr(0, slash);
  }

  void Call(const Arg* args, int count, cudaStream_t stream) {
    if (pid_ <= 0) Start();
    Check(cudaStreamSynchronize(stream), "synchronizing the stream");
    for (int i = 0; i < count; ++i) {
      const Arg& arg = args[i];
      if (arg.kind == Kind::kOutput) continue;
      WriteU64(arg.bytes);
      if (arg.kind == Kind::kScalar) {
        WriteAll(arg.data, arg.bytes);
        continue;
      }
      Stage(arg.bytes);
      Check(cudaMemcpy(host_.data(), arg.data, arg.bytes, cudaMemcpyDeviceToHost), "copying an input");
      WriteAll(host_.data(), arg.bytes);
    }
    uint64_t status = ReadU64();
    if (status != 0) {
      std::string message(status, '\0');
      ReadAll(message.data(), status);
      Fail(message);
    }
    for (int i = 0; i < count; ++i) {
      const Arg& arg = args[i];
      if (arg.kind != Kind::kOutput && arg.kind != Kind::kInout) continue;
      uint64_t bytes = ReadU64();
      if (bytes != arg.bytes) {
        Fail("the model returned " + std::to_string(bytes) + " bytes for an output of " +
             std::to_string(arg.bytes) + " bytes");
      }
      Stage(bytes);
      ReadAll(host_.data(), bytes);
      Check(cudaMemcpy(const_cast<void*>(arg.data), host_.data(), bytes, cudaMemcpyHostToDevice),
            "copying an output");
    }
  }

 private:
  void Start() {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) Fail(std::string("pipe: ") + std::strerror(errno));
    const char* python = std::getenv("KOPT_PYTHON");
    std::string program = python && *python ? python : "python3";
    std::string script = directory_ + "/kopt_torch_reference.py";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    // The runner's output channel and any other descriptor stay in the runner
    // (the runner never execs, so close-on-exec changes nothing for it).
    for (int fd = 3; fd < 1024; ++fd) {
      int flags = fcntl(fd, F_GETFD);
      if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    char* argv[] = {program.data(), script.data(), directory_.data(), nullptr};
    int error = posix_spawnp(&pid_, program.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    if (error != 0) Fail("cannot start " + program + ": " + std::strerror(error));
    signal(SIGPIPE, SIG_IGN);
    write_fd_ = to_child[1];
    read_fd_ = from_child[0];
  }

  void Stage(uint64_t bytes) {
    if (host_.size() < bytes) host_.resize(bytes);
  }

  void WriteU64(uint64_t value) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    WriteAll(bytes, 8);
  }

  uint64_t ReadU64() {
    unsigned char bytes[8];
    ReadAll(bytes, 8);
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    return value;
  }

  void WriteAll(const void* data, uint64_t bytes) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
      ssize_t n = write(write_fd_, p, bytes > (1u << 30) ? (1u << 30) : bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) Fail("the PyTorch child stopped reading (it failed; see its message above)");
      p += n;
      bytes -= static_cast<uint64_t>(n);
    }
  }

  void ReadAll(void* data, uint64_t bytes) {
    char* p = static_cast<char*>(data);
    while (bytes > 0) {
      ssize_t n = read(read_fd_, p, bytes > (1u << 30) ? (1u << 30) : bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) Fail("the PyTorch child ended early (it failed; see its message above)");
      p += n;
      bytes -= static_cast<uint64_t>(n);
    }
  }

  void Check(cudaError_t error, const char* what) {
    if (error != cudaSuccess) Fail(std::string(what) + ": " + cudaGetErrorString(error));
  }

  [[noreturn]] void Fail(const std::string& message) {
    std::fprintf(stderr, "kopt torch reference: %s\n", message.c_str());
    std::fflush(stderr);
    std::abort();
  }

  std::string directory_;
  pid_t pid_ = 0;
  int write_fd_ = -1;
  int read_fd_ = -1;
  std::vector<char> host_;
};

}  // namespace kopt_torch_bridge
