// Runs a test body in a forked child, for restrictions that cannot be lifted
// once installed (seccomp, Landlock): never in the test process itself.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace kopt {

// Runs `body` in a forked child; returns its exit code (or 128 + the signal
// that ended it).
inline int InChild(const std::function<int()>& body) {
  pid_t child = fork();
  if (child == 0) _exit(body());
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace kopt
