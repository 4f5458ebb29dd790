// kopt-runner REQUEST.json: the child process that checks, times and
// measures one compiled candidate (docs/harness-protocol.md §3-4).
//
// stdout: JSON-lines events only. stderr: a message for a bad request.
// Exit codes: 0 passed, 2 bad request, 3 the candidate failed, 4 not the
// candidate's fault (no device, reference failure); see run_request.h.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/file_io.h"
#include "core/parent_death.h"
#include "runner/event_sink.h"
#include "runner/run_request.h"
#include "runner_protocol/runner_request.h"

namespace {

constexpr size_t kMaxRequestBytes = size_t{64} << 20;

// No core dumps (a crashing candidate must not leave gigabytes behind); CPU
// time as the request says (SIGXCPU ends a host-side infinite loop even if
// the parent's watchdog is late).
void SetResourceLimits(const kopt::runner::RunnerRequest& request) {
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (request.cpu_seconds) {
    rlim_t seconds = static_cast<rlim_t>(std::ceil(*request.cpu_seconds));
    rlimit cpu{seconds, seconds + 1};  // soft: SIGXCPU; hard: SIGKILL one second later
    setrlimit(RLIMIT_CPU, &cpu);
  }
}

// The run token (docs/harness-protocol.md §3 "Event binding"): taken from
// KOPT_RUN_TOKEN, then removed from the environment and overwritten in the
// process's original environment block, so that /proc/self/environ and
// getenv no longer show it once a candidate is loaded. It stays in this
// process's heap (the event sink needs it); see event_sink.h for what that
// means.
std::string TakeRunToken() {
  const char* name = "KOPT_RUN_TOKEN";
  const char* value = std::getenv(name);
  if (value == nullptr) return "";
  std::string token = value;
  std::memset(const_cast<char*>(value), 'x', token.size());
  unsetenv(name);
  return token;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kopt::runner;
  const auto started = std::chrono::steady_clock::now();
  // No orphan timing on the GPU: this child ends when kopt does (kill -9 included).
  if (!kopt::DieWithParent()) return kExitNotCandidate;
  if (argc != 2) {
    std::fprintf(stderr, "usage: kopt-runner REQUEST.json (docs/harness-protocol.md §3)\n");
    return kExitBadRequest;
  }
  std::string path = argv[1];
  kopt::Result<std::string> text = kopt::ReadWholeFile(path, kMaxRequestBytes);
  if (!text.ok()) {
    std::fprintf(stderr, "kopt-runner: %s\n", text.status().message().c_str());
    return kExitBadRequest;
  }
  kopt::Result<RunnerRequest> request = ParseRunnerRequest(*text, path);
  if (!request.ok()) {
    std::fprintf(stderr, "kopt-runner: %s\n", request.status().message().c_str());
    return kExitBadRequest;
  }
  kopt::Result<SandboxMode> sandbox = SandboxModeFromText(std::getenv("KOPT_RUNNER_SANDBOX"));
  if (!sandbox.ok()) {
    std::fprintf(stderr, "kopt-runner: %s\n", sandbox.status().message().c_str());
    return kExitBadRequest;
  }
  SetResourceLimits(*request);
  StdoutEventSink events(started, TakeRunToken());
  int code = RunRequest(*request, events, *sandbox);
  // Every event is written and flushed. Leave without unwinding: the driver
  // releases the context, its buffers and streams at once when the process
  // ends, faster than freeing them one by one first (the parent waits for
  // this exit before the next candidate starts).
  std::fflush(nullptr);
  std::_Exit(code);
}
