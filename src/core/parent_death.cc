#include "core/parent_death.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace kopt {

bool DieWithParent() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* value = std::getenv(std::string(kParentPidVariable).c_str());
  if (value == nullptr) return true;
  char* end = nullptr;
  long parent = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || parent <= 1) return true;
  // The starter may be an ancestor (ncu between kopt and the runner): alive
  // is what matters, and the signal follows the direct parent.
  if (kill(static_cast<pid_t>(parent), 0) != 0 && errno == ESRCH) return false;
  return true;
}

}  // namespace kopt
