#include "suite/local_executor.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

#include "core/interrupt.h"
#include "core/parent_death.h"
#include "core/subprocess.h"

namespace kopt::suite {
namespace {

struct LocalWork {
  ProblemWork work;
  WorkStatus status;
  std::vector<int> devices;  // held while running
  pid_t pid = -1;
  double term_sent_seconds = 0;  // Cancel: when SIGTERM went to the group (0: not sent)
  bool cancelled = false;
};

// The child process of a work: its command with --devices, its environment, stdout and stderr to the log.
ChildProcess WorkProcess(const ProblemWork& work, const std::vector<int>& devices, int log_fd) {
  ChildProcess child;
  child.program_path = work.command.front();
  child.argv = work.command;
  std::string list;
  for (int device : devices) list += (list.empty() ? "" : ",") + std::to_string(device);
  child.argv.push_back("--devices");
  child.argv.push_back(list);
  child.environment = EnvironmentWith(work.environment);
  child.stdout_fd = log_fd;
  child.stderr_fd = log_fd;
  return child;
}

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(LocalExecutorSettings settings)
      : settings_(std::move(settings)), free_devices_(settings_.devices), start_(Clock::now()) {}

  ~LocalExecutor() override {
    for (LocalWork& work : works_) {
      if (work.pid > 0) {
        kill(-work.pid, SIGKILL);
        UnregisterChildGroup(work.pid);
        SweeperRemoveGroup(work.pid);
        waitpid(work.pid, nullptr, 0);
      }
    }
  }

  std::string_view Name() const override { return "local"; }
  int Capacity() const override { return static_cast<int>(settings_.devices.size()); }

  Status Submit(const ProblemWork& work) override {
    if (work.command.empty() || work.command.front().find('/') == std::string::npos)
      return InvalidInput("work " + work.key + ": the command must start with an absolute program path");
    if (work.gpus < 1 || work.gpus > Capacity())
      return InvalidInput(fmt::format("work {}: asks for {} GPUs; this host's executor has {}", work.key,
                                      work.gpus, Capacity()));
    for (const LocalWork& held : works_) {
      if (held.work.key == work.key && !IsEnded(held.status.state))
        return InvalidInput("work " + work.key + " is already queued or running");
    }
    Forget(work.key);
    LocalWork entry;
    entry.work = work;
    entry.status.key = work.key;
    works_.push_back(std::move(entry));
    return Status::Ok();
  }

  Result<std::vector<WorkStatus>> Poll() override {
    Reap();
    EscalateCancels();
    StartQueued();
    std::vector<WorkStatus> statuses;
    for (const LocalWork& work : works_) statuses.push_back(work.status);
    return statuses;
  }

  Status Cancel(const std::string& key) override {
    for (LocalWork& work : works_) {
      if (work.work.key != key || IsEnded(work.status.state)) continue;
      work.cancelled = true;
      if (work.pid < 0) {
        End(work, WorkState::kCancelled, "cancelled before it started");
      } else if (work.term_sent_seconds == 0) {
        kill(-work.pid, SIGTERM);
        work.term_sent_seconds = std::max(Now(), 1e-9);
      }
    }
    return Status::Ok();
  }

  Status CancelAll() override {
    for (LocalWork& work : works_) KOPT_RETURN_IF_ERROR(Cancel(work.work.key));
    return Status::Ok();
  }

  void Forget(const std::string& key) override {
    std::erase_if(works_,
                  [&](const LocalWork& work) { return work.work.key == key && IsEnded(work.status.state); });
  }

  Result<std::vector<WorkStatus>> Attach(const std::string&) override { return std::vector<WorkStatus>{}; }

 private:
  using Clock = std::chrono::steady_clock;

  double Now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void End(LocalWork& work, WorkState state, std::string detail) {
    work.status.state = state;
    work.status.detail = std::move(detail);
    work.status.ended_seconds = std::max(Now(), 1e-9);
    if (work.pid > 0) UnregisterChildGroup(work.pid);
    work.pid = -1;
    free_devices_.insert(free_devices_.end(), work.devices.begin(), work.devices.end());
    std::sort(free_devices_.begin(), free_devices_.end());
    work.devices.clear();
  }

  // A work that ended: what is left of its group is killed and the group forgotten while the work is
  // still a zombie (its pid, the group's id, cannot be reused before the reap), then it is reaped.
  void Reap() {
    for (LocalWork& work : works_) {
      if (work.pid < 0) continue;
      siginfo_t info{};
      if (waitid(P_PID, static_cast<id_t>(work.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
          info.si_pid != work.pid)
        continue;
      kill(-work.pid, SIGKILL);
      UnregisterChildGroup(work.pid);
      SweeperRemoveGroup(work.pid);
      int wait_status = 0;
      waitpid(work.pid, &wait_status, 0);
      CommandResult result;
      if (WIFEXITED(wait_status)) {
        result.exit_code = WEXITSTATUS(wait_status);
        work.status.exit_code = result.exit_code;
      } else if (WIFSIGNALED(wait_status)) {
        result.signaled = true;
        result.signal = WTERMSIG(wait_status);
      }
      WorkState state = work.cancelled       ? WorkState::kCancelled
                        : result.Succeeded() ? WorkState::kSucceeded
                                             : WorkState::kFailed;
      End(work, state, DescribeCommandEnd(result, 0));
    }
  }

  void EscalateCancels() {
    for (LocalWork& work : works_) {
      if (work.pid > 0 && work.term_sent_seconds > 0 &&
          Now() - work.term_sent_seconds >= settings_.kill_grace_seconds) {
        kill(-work.pid, SIGKILL);
      }
    }
  }

  void StartQueued() {
    for (LocalWork& work : works_) {
      if (work.status.state != WorkState::kQueued) continue;
      if (static_cast<int>(free_devices_.size()) < work.work.gpus) continue;
      std::vector<int> devices(free_devices_.begin(), free_devices_.begin() + work.work.gpus);
      free_devices_.erase(free_devices_.begin(), free_devices_.begin() + work.work.gpus);
      work.devices = devices;
      Start(work);
    }
  }

  void Start(LocalWork& work) {
    std::string placement = "gpu ";
    for (size_t index = 0; index < work.devices.size(); ++index)
      placement += (index ? "," : "") + std::to_string(work.devices[index]);
    work.status.placement = placement;
    work.status.started_seconds = std::max(Now(), 1e-9);
    int log_fd = open(work.work.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      End(work, WorkState::kFailed,
          fmt::format("cannot open the log {}: {}", work.work.log_path, std::strerror(errno)));
      return;
    }
    if (access(work.work.command.front().c_str(), X_OK) != 0) {
      close(log_fd);
      End(work, WorkState::kFailed, "cannot run " + work.work.command.front() + ": " + std::strerror(errno));
      return;
    }
    Result<pid_t> pid = StartChildProcess(WorkProcess(work.work, work.devices, log_fd));
    close(log_fd);
    if (!pid.ok()) {
      End(work, WorkState::kFailed, pid.status().message());
      return;
    }
    work.pid = *pid;
    RegisterChildGroup(*pid);
    work.status.state = WorkState::kRunning;
  }

  LocalExecutorSettings settings_;
  std::vector<int> free_devices_;
  std::vector<LocalWork> works_;
  Clock::time_point start_;
};

}  // namespace

Result<std::unique_ptr<Executor>> MakeLocalExecutor(const LocalExecutorSettings& settings) {
  if (settings.devices.empty()) return InvalidInput("--devices: no device given");
  std::set<int> seen;
  for (int device : settings.devices) {
    if (device < 0) return InvalidInput(fmt::format("--devices: {} is not a CUDA ordinal", device));
    if (!seen.insert(device).second) return InvalidInput(fmt::format("--devices: {} is named twice", device));
  }
  return std::unique_ptr<Executor>(std::make_unique<LocalExecutor>(settings));
}

}  // namespace kopt::suite
