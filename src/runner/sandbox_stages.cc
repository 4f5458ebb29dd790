#include "runner/sandbox_stages.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/file_write_restriction.h"
#include "core/process_sandbox.h"

namespace kopt::runner {

Result<SandboxMode> SandboxModeFromText(const char* text) {
  if (text == nullptr) return SandboxMode::kFull;
  if (std::strcmp(text, "full") == 0) return SandboxMode::kFull;
  if (std::strcmp(text, "no-exec-lock") == 0) return SandboxMode::kWithoutExecutableLock;
  if (std::strcmp(text, "off") == 0 || std::strcmp(text, "0") == 0) return SandboxMode::kOff;
  return InvalidInput(
      fmt::format("KOPT_RUNNER_SANDBOX: \"{}\" is not a sandbox mode; expected full, "
                  "no-exec-lock or off",
                  text));
}

Status RestrictRunnerFileWrites(SandboxMode mode) {
  if (mode == SandboxMode::kOff) return Status::Ok();
  // The driver's initialisation writes outside the allowance (on an H100 with driver 580.159 every
  // variant without /tmp, /run, /var, /proc and /sys writable made it fail with "OS call failed"): it
  // runs first. It starts one driver thread, which the restriction does not bind; candidate code
  // does not run on it, and stage 1 binds every thread. Its error, if any, is SetUpDevice's to report.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) (void)cudaGetLastError();
  // Nsight Compute's injection (a profile, not a verdict) talks to its front end.
  bool under_profiler = std::getenv("CUDA_INJECTION64_PATH") != nullptr;
  return RestrictFileWrites(CudaDriverFileWrites(under_profiler)).status();
}

Status EnterSandbox(SandboxMode mode) {
  if (mode == SandboxMode::kOff) return Status::Ok();
  SandboxPolicy policy;
  policy.protected_ranges = LoadedObjectRanges({"libcuda.so", "libnvidia"});
  return InstallSandbox(policy);
}

Status LockExecutableMemory(SandboxMode mode) {
  if (mode != SandboxMode::kFull) return Status::Ok();
  SandboxPolicy policy;
  policy.deny_process_control = false;
  policy.deny_new_executable_memory = true;
  return InstallSandbox(policy);
}

std::string SandboxSetupHint() {
  return " (kopt-runner's file-write restriction was on, docs/harness-protocol.md §3 \"The runtime "
         "sandbox\": "
         "if this driver needs to write elsewhere, the same run with KOPT_RUNNER_SANDBOX=off in kopt's "
         "environment succeeds; please report it)";
}

std::optional<RunnerFailure> SandboxFailure() {
  SandboxViolationCount violations = SandboxViolations();
  if (violations.count == 0) return std::nullopt;
  return RunnerFailure{
      FailureKind::kSandboxViolation,
      fmt::format("the candidate's process called {} ({} denied call{} in all), which kopt-runner's sandbox "
                  "denies: no ptrace, no access to another process's memory, no new process or program, no "
                  "new executable memory, no remapping of the runner's or the CUDA runtime's pages "
                  "(docs/harness-protocol.md §3 \"The runtime sandbox\"). An honest kernel needs none of "
                  "them; to diagnose a driver that does, run with KOPT_RUNNER_SANDBOX=no-exec-lock or off",
                  SyscallName(violations.first_syscall), violations.count, violations.count == 1 ? "" : "s")};
}

}  // namespace kopt::runner
