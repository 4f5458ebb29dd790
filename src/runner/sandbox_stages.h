// kopt-runner's runtime sandbox (docs/harness-protocol.md §3 "The runtime
// sandbox"), in three stages around loading the one library of the run:
//  0. RestrictRunnerFileWrites, first, right after the CUDA driver's
//     initialisation (which writes where no candidate may, and starts one
//     thread; Landlock binds the calling thread and those created
//     afterwards, so every thread candidate code runs on): files may be opened
//     for writing, created, removed or renamed only under /dev/nvidia*,
//     /dev/null and /dev/shm (CudaDriverFileWrites: the driver opens its
//     device nodes for writing while it runs); no /proc/<pid>/mem write, no
//     file left for a later candidate; where the kernel allows, no TCP and no
//     signal to a process outside the runner (under Nsight Compute, which
//     talks to its front end, /tmp stays writable and sockets and signals
//     stay open: a profile is not a verdict).
//  1. EnterSandbox, after the device, NVML and the output channel are set up
//     and before the library is loaded (its constructors are the first
//     candidate code): no_new_privs and a seccomp filter on every thread that
//     denies ptrace, other processes' memory (process_vm_*, pidfd_getfd),
//     new processes (threads stay allowed: the CUDA driver starts its own),
//     exec, io_uring, and remapping, unmapping or re-protecting the pages of
//     every object loaded so far (the runner, linked with full RELRO and
//     BIND_NOW, the CUDA runtime, the C and C++ libraries) except the CUDA
//     driver's and NVML's own (they may manage their pages).
//  2. LockExecutableMemory, once the library is loaded: no new executable
//     mapping (mmap/mprotect with PROT_EXEC) for the rest of the run.
// A call stage 1 or 2 denies fails with EPERM; SandboxFailure reports it as
// the candidate's `sandbox_violation`. A write stage 0 refuses fails with
// EACCES and is not reported (a library may try a cache file and carry on).
//
// Thread safety: call from main's thread, in this order.
#pragma once

#include <optional>
#include <string>

#include "core/status.h"
#include "runner/cuda_check.h"

namespace kopt::runner {

enum class SandboxMode {
  kFull,                   // every stage: the default
  kWithoutExecutableLock,  // stages 0 and 1
  kOff,                    // no sandbox
};

// From KOPT_RUNNER_SANDBOX: unset or "full": kFull; "no-exec-lock":
// kWithoutExecutableLock; "off" or "0": kOff. Another value: InvalidInput
// naming the accepted ones.
Result<SandboxMode> SandboxModeFromText(const char* text);

// Stage 0 (see above). Unavailable where the kernel has no Landlock (the run
// goes on with stages 1 and 2; the caller notes it).
Status RestrictRunnerFileWrites(SandboxMode mode);
// Stage 1 (see above). Unavailable where the kernel has no seccomp filters
// (the run goes on without a sandbox; the caller notes it).
Status EnterSandbox(SandboxMode mode);
// Stage 2 (see above).
Status LockExecutableMemory(SandboxMode mode);

// What to add to a device setup failure made under stage 0: the driver may
// need more than it allows, and how to check (KOPT_RUNNER_SANDBOX=off).
std::string SandboxSetupHint();

// The `sandbox_violation` failure when a call was denied so far, naming the
// first one and saying what to do about it.
std::optional<RunnerFailure> SandboxFailure();

}  // namespace kopt::runner
