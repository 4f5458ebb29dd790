// Whether a process the test started (or its descendant) still runs, for the
// tests that kill a parent and expect its children gone.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace kopt {

// Running: it exists and is not a zombie (ended, not reaped by its new parent yet).
inline bool ProcessRunning(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t state = text.rfind(')');
  return state != std::string::npos && state + 2 < text.size() && text[state + 2] != 'Z';
}

// Polls every 20 ms for up to two seconds until `pid` no longer runs; true when it stopped. One still
// running then is killed with SIGKILL, so a failing test leaves nothing behind.
inline bool StopsRunningWithinTwoSeconds(pid_t pid) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (!ProcessRunning(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  return false;
}

}  // namespace kopt
