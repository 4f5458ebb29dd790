// SystemCommandRunner: children started by StartChildProcess (clone with a
// shared address space, as posix_spawn does, but with PR_SET_PDEATHSIG armed
// before the exec), pipes drained with poll(), and a wall-clock watchdog that
// signals the child's whole process group.
#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include "core/channel_pull.h"
#include "core/interrupt.h"
#include "core/parent_death.h"

extern char** environ;

namespace kopt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";
// After the child has ended, output still arriving through an inherited pipe
// (a grandchild that outlived it) is read until the pipes are idle this long.
constexpr std::chrono::milliseconds kDrainIdleLimit{2000};
// How often the child's state is checked while its pipes are quiet (when the
// kernel offers no pidfd to wait on, this bounds how late an exit is seen).
constexpr int kPollSliceMilliseconds = 50;

std::string ErrnoText(int error_number) {
  return std::strerror(error_number);
}

// A descriptor that becomes readable when `pid` exits (Linux 5.3+), or -1.
int OpenProcessDescriptor(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = syscall(SYS_pidfd_open, pid, 0);
  return fd >= 0 ? static_cast<int>(fd) : -1;
#else
  (void)pid;
  return -1;
#endif
}

bool IsExecutableFile(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  return access(path.c_str(), X_OK) == 0;
}

// Looks `program` (no '/') up in the ':'-separated `search_path`. An empty
// entry means the current directory, as in execvp. Returns an absolute path
// (so that a working-directory change cannot re-resolve it), or "".
std::string SearchPath(const std::string& program, const std::string& search_path) {
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t end = search_path.find(':', start);
    if (end == std::string::npos) end = search_path.size();
    std::string directory = search_path.substr(start, end - start);
    if (directory.empty()) directory = ".";
    std::string candidate = directory + "/" + program;
    if (IsExecutableFile(candidate)) {
      std::error_code error;
      std::filesystem::path absolute = std::filesystem::absolute(candidate, error);
      return error ? candidate : absolute.lexically_normal().string();
    }
    start = end + 1;
  }
  return "";
}

std::string ParentPath() {
  const char* value = std::getenv("PATH");
  return value != nullptr ? value : kDefaultPath;
}

// The PATH the child will see: the spec's override, else the parent's.
std::string PathFor(const CommandSpec& spec) {
  for (const auto& [name, value] : spec.environment) {
    if (name == "PATH") return value;
  }
  return ParentPath();
}

std::vector<char*> PointerArray(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

// A file descriptor closed on destruction.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { Close(); }
  int get() const { return fd_; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  // Gives up ownership: the caller closes the descriptor.
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

struct PipePair {
  FileDescriptor read_end;
  FileDescriptor write_end;
};

Status MakePipe(PipePair& pipe_pair) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Internal("cannot create a pipe: " + ErrnoText(errno));
  pipe_pair.read_end.Reset(fds[0]);
  pipe_pair.write_end.Reset(fds[1]);
  return Status::Ok();
}

// Starts `program_path` with stdin from /dev/null, stdout/stderr into the
// given pipe ends and the channel at spec.channel_fd (StartChildProcess).
Result<pid_t> SpawnChild(const std::string& program_path, const CommandSpec& spec, int stdout_fd,
                         int stderr_fd, int channel_fd) {
  ChildProcess child;
  child.program_path = program_path;
  child.argv = spec.argv;
  child.environment = EnvironmentWith(spec.environment);
  child.working_directory = spec.working_directory;
  child.stdout_fd = stdout_fd;
  child.stderr_fd = stderr_fd;
  if (channel_fd >= 0) {
    child.extra_fd = channel_fd;
    child.extra_fd_target = spec.channel_fd;
  }
  return StartChildProcess(child);
}

// What the child needs between clone and exec, all of it built before the
// clone (the child shares kopt's memory and may only make system calls).
struct ChildSetup {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* working_directory = nullptr;  // null: the parent's
  int stdout_fd = -1;
  int stderr_fd = -1;
  int extra_fd = -1;
  int extra_fd_target = -1;
  pid_t parent = 0;
  int error = 0;  // written by the child when it fails before or at the exec
};

// `from` at descriptor `to` in the child, without close-on-exec.
bool PlaceDescriptor(int from, int to) {
  if (from == to) return fcntl(to, F_SETFD, 0) == 0;
  return dup2(from, to) == to;
}

// The child between clone and exec. Signals are all blocked here (the parent
// blocked them before the clone): every handled or ignored signal goes back to
// its default before they are unblocked, so no handler of kopt's runs on
// kopt's memory in the child.
int ChildBeforeExec(void* argument) {
  ChildSetup& setup = *static_cast<ChildSetup*>(argument);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    struct sigaction current {};
    if (sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler != SIG_DFL)
      sigaction(signal_number, &default_action, nullptr);
  }
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != setup.parent) _exit(127);  // kopt died before the signal was armed
  SweeperAddGroup(getpid());                  // before any program of the child's runs
  int null_fd = open("/dev/null", O_RDWR);
  bool placed = null_fd >= 0 && PlaceDescriptor(null_fd, STDIN_FILENO) &&
                PlaceDescriptor(setup.stdout_fd >= 0 ? setup.stdout_fd : null_fd, STDOUT_FILENO) &&
                PlaceDescriptor(setup.stderr_fd >= 0 ? setup.stderr_fd : null_fd, STDERR_FILENO) &&
                (setup.extra_fd < 0 || PlaceDescriptor(setup.extra_fd, setup.extra_fd_target));
  if (!placed || (setup.working_directory != nullptr && chdir(setup.working_directory) != 0)) {
    setup.error = errno != 0 ? errno : EBADF;
    _exit(127);
  }
  if (null_fd > STDERR_FILENO && null_fd != setup.extra_fd_target) close(null_fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(setup.program, setup.argv, setup.envp);
  setup.error = errno;
  _exit(127);
}

constexpr size_t kChildStackBytes = size_t{256} << 10;

// Drains a running child's stdout and stderr, enforces the deadline, and reaps it.
class ChildMonitor {
 public:
  ChildMonitor(pid_t pid, int stdout_fd, int stderr_fd, int channel_fd, const CommandSpec& spec)
      : pid_(pid), process_fd_(OpenProcessDescriptor(pid)), spec_(spec), start_(Clock::now()) {
    streams_[0] = {stdout_fd, &result_.stdout_text, spec.max_output_bytes, &result_.output_truncated};
    streams_[1] = {stderr_fd, &result_.stderr_text, spec.max_output_bytes, &result_.output_truncated};
    streams_[2] = {channel_fd, &result_.channel_bytes, spec.max_channel_bytes, &result_.channel_truncated};
    if (channel_fd >= 0 && spec.channel_pull) {
      if (spec.channel_storage != nullptr) {
        result_.channel_bytes = std::move(*spec.channel_storage);
        spec.channel_storage->clear();
      }
      if (result_.channel_bytes.empty() && spec.expected_channel_bytes > 0) ReserveChannel();
      size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 1, 8);
      puller_.emplace(pid_, result_.channel_bytes, spec.max_channel_bytes, channel_fd, threads);
      puller_->set_observers(spec.on_channel, spec.before_channel_moves);
    } else if (channel_fd >= 0 && spec.channel_storage != nullptr) {
      // A pipe: its capacity and pages only; the channel is appended to it.
      result_.channel_bytes = std::move(*spec.channel_storage);
      spec.channel_storage->clear();
      result_.channel_bytes.clear();
    }
    if (channel_fd >= 0 && !puller_ && spec.expected_channel_bytes > result_.channel_bytes.capacity())
      ReserveChannel();
    RegisterChildGroup(pid_);  // an interrupt of kopt kills the child's whole group (core/interrupt.h)
  }

  ~ChildMonitor() {
    ForgetGroup();
    for (Stream& stream : streams_) {
      if (stream.fd >= 0) close(stream.fd);
    }
    if (process_fd_ >= 0) close(process_fd_);
  }

  CommandResult Watch() {
    while (true) {
      Clock::time_point now = Clock::now();
      EnforceDeadline(now);
      if (!exited_) CheckExit(false);
      if (exited_ && DoneDraining(now)) break;
      if (OpenStreamCount() == 0 && !HasPendingDeadline()) {
        CheckExit(true);  // nothing to read and no watchdog: just wait
        continue;
      }
      PumpOutput(NextWaitMilliseconds(now));
    }
    if (puller_) {
      result_.channel_bytes.resize(puller_->filled());
      result_.channel_truncated = puller_->truncated();
      result_.channel_error = puller_->failure_message();
      result_.channel_refused = puller_->failure() == PullFailure::kEnvironment;
    }
    return std::move(result_);
  }

 private:
  struct Stream {
    int fd = -1;
    std::string* sink = nullptr;
    size_t max_bytes = 0;  // 0: no limit
    bool* truncated = nullptr;
  };
  static constexpr int kStreams = 3;

  // Reserves the expected channel size; for a large channel, asks for
  // transparent huge pages (best effort: 512 times fewer page faults while
  // gigabytes of outputs arrive).
  void ReserveChannel() {
    size_t bytes = spec_.expected_channel_bytes;
    if (spec_.max_channel_bytes > 0) bytes = std::min(bytes, spec_.max_channel_bytes);
    result_.channel_bytes.reserve(bytes);
    AdviseHugePages(result_.channel_bytes.data(), bytes);
  }

  int OpenStreamCount() const {
    return static_cast<int>(std::count_if(std::begin(streams_), std::end(streams_),
                                          [](const Stream& stream) { return stream.fd >= 0; }));
  }

  // After the child ended: stop at end of file, when a grandchild that holds
  // the pipes stays quiet, or when it outlives the timeout.
  bool DoneDraining(Clock::time_point now) const {
    if (OpenStreamCount() == 0 || now - last_output_ > kDrainIdleLimit) return true;
    return spec_.timeout_seconds > 0 &&
           now > start_ + Seconds(spec_.timeout_seconds) + Seconds(spec_.kill_grace_seconds);
  }

  bool HasPendingDeadline() const { return !exited_ && spec_.timeout_seconds > 0 && !kill_sent_; }

  void EnforceDeadline(Clock::time_point now) {
    if (exited_ || spec_.timeout_seconds <= 0) return;
    if (!term_sent_ && now >= start_ + Seconds(spec_.timeout_seconds)) {
      kill(-pid_, SIGTERM);
      term_sent_ = true;
      result_.timed_out = true;
      kill_at_ = now + Seconds(spec_.kill_grace_seconds);
    } else if (term_sent_ && !kill_sent_ && now >= kill_at_) {
      kill(-pid_, SIGKILL);
      kill_sent_ = true;
    }
  }

  static Clock::duration Seconds(double seconds) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, seconds)));
  }

  int NextWaitMilliseconds(Clock::time_point now) const {
    Clock::duration wait = std::chrono::milliseconds(kPollSliceMilliseconds);
    if (HasPendingDeadline()) {
      Clock::time_point next = term_sent_ ? kill_at_ : start_ + Seconds(spec_.timeout_seconds);
      wait = std::min(wait, std::max(Clock::duration::zero(), next - now));
    }
    auto milliseconds = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
    return static_cast<int>(milliseconds);
  }

  // Sees whether the child has ended (waits for it with `block`); when it has: what is left of its
  // group is killed and the group forgotten while the child is still a zombie (its pid, the group's
  // id, cannot be reused before the reap), then the child is reaped.
  void CheckExit(bool block) {
    siginfo_t info{};
    int waited;
    do {
      waited = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG));
    } while (waited < 0 && errno == EINTR);
    if (waited < 0 && errno == ECHILD) {
      exited_ = true;  // reaped elsewhere (SIGCHLD ignored): the status is lost
      last_output_ = Clock::now();
      ForgetGroup();
      return;
    }
    if (waited < 0 || info.si_pid != pid_) return;
    kill(-pid_, SIGKILL);
    ForgetGroup();
    int wait_status = 0;
    pid_t reaped;
    do {
      reaped = waitpid(pid_, &wait_status, 0);
    } while (reaped < 0 && errno == EINTR);
    exited_ = true;
    last_output_ = Clock::now();  // the drain-idle limit counts from the exit
    result_.seconds = std::chrono::duration<double>(last_output_ - start_).count();
    if (reaped != pid_) return;
    if (WIFSIGNALED(wait_status)) {
      result_.signaled = true;
      result_.signal = WTERMSIG(wait_status);
    } else if (WIFEXITED(wait_status)) {
      result_.exit_code = WEXITSTATUS(wait_status);
    }
  }

  void ForgetGroup() {
    if (group_forgotten_) return;
    group_forgotten_ = true;
    UnregisterChildGroup(pid_);
    SweeperRemoveGroup(pid_);
  }

  // Waits up to `timeout_milliseconds` for output or the child's exit, and reads what is ready.
  void PumpOutput(int timeout_milliseconds) {
    pollfd poll_fds[kStreams + 1];
    int indices[kStreams + 1];
    int count = 0;
    for (int index = 0; index < kStreams; ++index) {
      if (streams_[index].fd < 0) continue;
      poll_fds[count] = {streams_[index].fd, POLLIN, 0};
      indices[count++] = index;
    }
    if (!exited_ && process_fd_ >= 0) {
      poll_fds[count] = {process_fd_, POLLIN, 0};
      indices[count++] = -1;  // the exit is reaped by the next CheckExit
    }
    int ready = poll(poll_fds, count, timeout_milliseconds);
    if (ready <= 0) return;  // timeout or EINTR: the loop re-checks state
    for (int slot = 0; slot < count; ++slot) {
      if (poll_fds[slot].revents != 0 && indices[slot] >= 0) ReadOnce(streams_[indices[slot]]);
    }
  }

  void ReadOnce(Stream& stream) {
    if (puller_ && &stream == &streams_[2]) {
      static thread_local char records[1 << 16];
      ssize_t bytes = read(stream.fd, records, sizeof records);
      if (bytes < 0 && (errno == EINTR || errno == EAGAIN)) return;
      if (bytes > 0) {
        last_output_ = Clock::now();
        puller_->Consume(std::span<const char>(records, static_cast<size_t>(bytes)));
        if (puller_->failure() == PullFailure::kNone) return;
      }
      // The end, or a broken channel: nothing more is read from it (the child's next write fails).
      close(stream.fd);
      stream.fd = -1;
      return;
    }
    static thread_local char buffer[1 << 20];  // large tensors arrive on the channel
    ssize_t bytes = read(stream.fd, buffer, sizeof buffer);
    if (bytes < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (bytes <= 0) {
      close(stream.fd);
      stream.fd = -1;
      return;
    }
    last_output_ = Clock::now();
    size_t keep = static_cast<size_t>(bytes);
    if (stream.max_bytes > 0) {
      size_t room = stream.max_bytes - std::min(stream.max_bytes, stream.sink->size());
      if (room < keep) *stream.truncated = true;
      keep = std::min(keep, room);
    }
    stream.sink->append(buffer, keep);
    if (stream.sink == &result_.stdout_text) {
      result_.stdout_arrivals.push_back(
          {stream.sink->size(), std::chrono::duration<double>(last_output_ - start_).count()});
      if (spec_.on_stdout) spec_.on_stdout(std::string_view(buffer, static_cast<size_t>(bytes)));
    }
  }

  pid_t pid_;
  int process_fd_;  // pidfd of the child, or -1
  const CommandSpec& spec_;
  Clock::time_point start_;
  Clock::time_point kill_at_{};
  Clock::time_point last_output_{};
  bool exited_ = false;
  bool term_sent_ = false;
  bool kill_sent_ = false;
  bool group_forgotten_ = false;
  Stream streams_[kStreams];
  CommandResult result_;
  // A pulled channel (CommandSpec::channel_pull): the stream rebuilt in result_.channel_bytes.
  std::optional<PullReceiver> puller_;
};

class SystemCommandRunner : public CommandRunner {
 public:
  Result<CommandResult> Run(const CommandSpec& spec) override {
    if (spec.argv.empty() || spec.argv[0].empty()) return InvalidInput("cannot run an empty command line");
    if (InterruptRequested()) return Unavailable("kopt is interrupted: not starting '" + spec.argv[0] + "'");
    if (!spec.working_directory.empty() && !std::filesystem::is_directory(spec.working_directory)) {
      return NotFound("cannot run '" + spec.argv[0] + "': working directory '" + spec.working_directory +
                      "' does not exist or is not a directory");
    }
    std::string program_path = spec.argv[0];
    if (program_path.find('/') == std::string::npos) {
      program_path = SearchPath(spec.argv[0], PathFor(spec));
      if (program_path.empty()) {
        return NotFound("program '" + spec.argv[0] + "' not found on PATH (" + PathFor(spec) + ")");
      }
    }
    if (spec.channel_fd >= 0 && spec.channel_fd <= STDERR_FILENO) {
      return InvalidInput("CommandSpec::channel_fd must be >= 3 (or -1)");
    }
    PipePair stdout_pipe, stderr_pipe, channel_pipe;
    KOPT_RETURN_IF_ERROR(MakePipe(stdout_pipe));
    KOPT_RETURN_IF_ERROR(MakePipe(stderr_pipe));
    const bool channel_memory = spec.channel_fd >= 0 && spec.channel_memory_fd >= 0;
    if (channel_memory) {
      // A private close-on-exec copy above the low descriptors, so that the
      // dup2 onto channel_fd always clears close-on-exec in the child (a
      // dup2 onto itself would not).
      int copy = fcntl(spec.channel_memory_fd, F_DUPFD_CLOEXEC, 64);
      if (copy < 0) return Internal("cannot duplicate the channel memory's descriptor: " + ErrnoText(errno));
      channel_pipe.write_end.Reset(copy);
    } else if (spec.channel_fd >= 0 && spec.channel_pull) {
      int ends[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        return Internal("cannot create the output channel's socket: " + ErrnoText(errno));
      channel_pipe.read_end.Reset(ends[0]);
      channel_pipe.write_end.Reset(ends[1]);
    } else if (spec.channel_fd >= 0) {
      KOPT_RETURN_IF_ERROR(MakePipe(channel_pipe));
#ifdef F_SETPIPE_SZ
      (void)fcntl(channel_pipe.read_end.get(), F_SETPIPE_SZ, 1 << 20);  // best effort: fewer wake-ups
#endif
    }
    KOPT_ASSIGN_OR_RETURN(pid_t pid, SpawnChild(program_path, spec, stdout_pipe.write_end.get(),
                                                stderr_pipe.write_end.get(), channel_pipe.write_end.get()));
    stdout_pipe.write_end.Close();
    stderr_pipe.write_end.Close();
    channel_pipe.write_end.Close();
    // The monitor closes the read ends (at end of file, or when it stops).
    // Channel memory has no read end: -1, nothing to read.
    CommandResult result = ChildMonitor(pid, stdout_pipe.read_end.Release(), stderr_pipe.read_end.Release(),
                                        channel_memory ? -1 : channel_pipe.read_end.Release(), spec)
                               .Watch();
    // Killed for kopt's interrupt, or from outside just before it: never returns when that interrupt comes.
    if (!result.timed_out) AwaitInterruptAfterChildSignal(result.signaled ? result.signal : 0);
    return result;
  }

  std::string FindProgram(const std::string& program) override {
    return FindProgramOnPath(program);
  }
};

}  // namespace

std::vector<std::string> EnvironmentWith(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string_view name = text.substr(0, text.find('='));
    bool overridden =
        std::any_of(overrides.begin(), overrides.end(), [&](const auto& pair) { return pair.first == name; });
    if (!overridden) entries.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) entries.push_back(name + "=" + value);
  return entries;
}

Result<pid_t> StartChildProcess(const ChildProcess& child) {
  if (child.argv.empty()) return InvalidInput("cannot run an empty command line");
  if (child.extra_fd >= 0 && child.extra_fd_target <= STDERR_FILENO)
    return InvalidInput("ChildProcess::extra_fd_target must be >= 3");
  std::vector<std::string> arguments = child.argv;
  std::vector<std::string> environment = child.environment;
  std::vector<char*> argument_pointers = PointerArray(arguments);
  std::vector<char*> environment_pointers = PointerArray(environment);
  ChildSetup setup;
  setup.program = child.program_path.c_str();
  setup.argv = argument_pointers.data();
  setup.envp = environment_pointers.data();
  setup.working_directory = child.working_directory.empty() ? nullptr : child.working_directory.c_str();
  setup.stdout_fd = child.stdout_fd;
  setup.stderr_fd = child.stderr_fd;
  setup.extra_fd = child.extra_fd;
  setup.extra_fd_target = child.extra_fd_target;
  setup.parent = getpid();
  void* stack = mmap(nullptr, kChildStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (stack == MAP_FAILED) return Internal("cannot start '" + child.argv[0] + "': no memory for its stack");
  sigset_t all_signals, previous;
  sigfillset(&all_signals);
  pthread_sigmask(SIG_SETMASK, &all_signals, &previous);
  // CLONE_VFORK: this thread waits until the child has called execve or _exit.
  pid_t pid = clone(ChildBeforeExec, static_cast<char*>(stack) + kChildStackBytes,
                    CLONE_VM | CLONE_VFORK | SIGCHLD, &setup);
  int clone_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  munmap(stack, kChildStackBytes);
  if (pid < 0) return Internal("cannot start '" + child.argv[0] + "': " + ErrnoText(clone_error));
  if (setup.error == 0) return pid;
  SweeperRemoveGroup(pid);
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  int error = setup.error;
  if (error == ENOENT || error == EACCES || error == ENOEXEC || error == ENOTDIR || error == EISDIR) {
    return NotFound("cannot run '" + child.argv[0] + "' (" + child.program_path + "): " + ErrnoText(error));
  }
  return Internal("cannot start '" + child.argv[0] + "': " + ErrnoText(error));
}

std::string FindProgramOnPath(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return IsExecutableFile(program) ? program : "";
  return SearchPath(program, ParentPath());
}

double ArrivalSeconds(const std::vector<OutputArrival>& arrivals, size_t end_offset) {
  for (const OutputArrival& arrival : arrivals) {
    if (arrival.end_offset >= end_offset) return arrival.seconds;
  }
  return arrivals.empty() ? 0 : arrivals.back().seconds;
}

namespace {

std::string SignalName(int signal_number) {
  switch (signal_number) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    case SIGQUIT: return "SIGQUIT";
    case SIGTRAP: return "SIGTRAP";
    default: return "";
  }
}

std::string FormatSeconds(double seconds) {
  char text[32];
  if (seconds == std::floor(seconds)) {
    std::snprintf(text, sizeof text, "%.0f", seconds);
  } else {
    std::snprintf(text, sizeof text, "%g", seconds);
  }
  return text;
}

bool NeedsQuoting(const std::string& argument) {
  if (argument.empty()) return true;
  return std::any_of(argument.begin(), argument.end(), [](char character) {
    return !(std::isalnum(static_cast<unsigned char>(character)) ||
             std::strchr("_@%+=:,./-", character) != nullptr);
  });
}

}  // namespace

std::string DescribeSignal(int signal_number) {
  std::string name = SignalName(signal_number);
  return "signal " + std::to_string(signal_number) + (name.empty() ? "" : " (" + name + ")");
}

void AdviseHugePages(void* address, size_t bytes) {
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  if (address == nullptr || bytes < 4 * kHugePage) return;
  uintptr_t begin = reinterpret_cast<uintptr_t>(address);
  uintptr_t aligned = (begin + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t end = (begin + bytes) & ~(kHugePage - 1);
  if (end > aligned) (void)madvise(reinterpret_cast<void*>(aligned), end - aligned, MADV_HUGEPAGE);
}

std::unique_ptr<CommandRunner> MakeSystemCommandRunner() {
  return std::make_unique<SystemCommandRunner>();
}

std::string DescribeCommandEnd(const CommandResult& result, double timeout_seconds) {
  std::string how = result.signaled ? "killed by " + DescribeSignal(result.signal)
                                    : "exit code " + std::to_string(result.exit_code);
  if (result.timed_out) return "timed out after " + FormatSeconds(timeout_seconds) + " s (" + how + ")";
  return result.signaled ? DescribeSignal(result.signal) : how;
}

std::string CommandLineForDisplay(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& argument : argv) {
    if (!line.empty()) line += ' ';
    if (!NeedsQuoting(argument)) {
      line += argument;
      continue;
    }
    line += '\'';
    for (char character : argument)
      line += character == '\'' ? std::string("'\\''") : std::string(1, character);
    line += '\'';
  }
  return line;
}

}  // namespace kopt
