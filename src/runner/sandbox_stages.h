// kopt-runner's runtime sandbox (docs/harness-protocol.md §3 "The runtime
// sandbox"), in two stages around loading the one library of the run:
//  1. EnterSandbox, after the device, NVML and the output channel are set up
//     and before the library is loaded (its constructors are the first
//     candidate code): no_new_privs and a seccomp filter on every thread that
//     denies ptrace, other processes' memory (process_vm_*, pidfd_getfd),
//     new processes (threads stay allowed: the CUDA driver starts its own),
//     exec, io_uring, opening files for writing (no /proc/self/mem write),
//     and remapping, unmapping or re-protecting the pages of every object
//     loaded so far (the runner, linked with full RELRO and BIND_NOW, the CUDA
//     runtime, the C and C++ libraries) except the CUDA driver's and NVML's
//     own (they may manage their pages).
//  2. LockExecutableMemory, once the library is loaded: no new executable
//     mapping (mmap/mprotect with PROT_EXEC) for the rest of the run.
// A denied call fails with EPERM; SandboxFailure reports it as the
// candidate's `sandbox_violation` (opening a file for writing only fails,
// quietly: the driver may try a cache file).
//
// Thread safety: call from main's thread, in this order.
#pragma once

#include <optional>
#include <string>

#include "core/status.h"
#include "runner/cuda_check.h"

namespace kopt::runner {

enum class SandboxMode {
  kFull,                   // both stages
  kWithoutExecutableLock,  // stage 1 only
  kOff,                    // no sandbox: the default (on an H100, driver 580.159, stage 1 made every
                           // cudaMallocAsync fail with out of memory)
};

// From KOPT_RUNNER_SANDBOX: "full": kFull; "no-exec-lock":
// kWithoutExecutableLock; unset, "off" or "0": kOff. Another value: InvalidInput
// naming the accepted ones.
Result<SandboxMode> SandboxModeFromText(const char* text);

// Stage 1 (see above). Unavailable where the kernel has no seccomp filters
// (the run goes on without a sandbox; the caller notes it).
Status EnterSandbox(SandboxMode mode);
// Stage 2 (see above).
Status LockExecutableMemory(SandboxMode mode);

// The `sandbox_violation` failure when a call was denied so far, naming the
// first one and saying what to do about it.
std::optional<RunnerFailure> SandboxFailure();

}  // namespace kopt::runner
