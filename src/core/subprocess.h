// Running other programs (nvcc, ncu, cuobjdump, the user's program), behind an
// interface so that tests can substitute a fake.
//
// The system implementation uses posix_spawn with pipes for stdout and stderr,
// a wall-clock watchdog (SIGTERM, then SIGKILL after a grace period, killing
// the child's whole process group), and never uses a shell: arguments are
// passed verbatim.
//
// Thread safety: SystemCommandRunner may be used from several threads at once.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace kopt {

struct CommandSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::vector<std::pair<std::string, std::string>> environment;  // added to / overriding the parent's
  std::string working_directory;  // empty: the parent's
  double timeout_seconds = 0;     // 0: no limit
};

struct CommandResult {
  int exit_code = -1;     // valid when !signaled && !timed_out
  bool signaled = false;  // ended by a signal (crash)
  int signal = 0;
  bool timed_out = false;
  std::string stdout_text;
  std::string stderr_text;
  bool Succeeded() const { return !signaled && !timed_out && exit_code == 0; }
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs the command to completion. A program that cannot be started (not
  // found, not executable) is a NotFound status; a program that ran and
  // failed is an OK result with its exit code.
  virtual Result<CommandResult> Run(const CommandSpec& spec) = 0;
  // The full path of `program` when it is found on PATH (or is a path), else "".
  virtual std::string FindProgram(const std::string& program) = 0;
};

std::unique_ptr<CommandRunner> MakeSystemCommandRunner();

}  // namespace kopt
