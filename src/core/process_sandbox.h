// A seccomp-BPF sandbox for a process that is about to run untrusted code
// (kopt-runner before it loads a candidate; docs/harness-protocol.md §3 "The
// runtime sandbox"), and the parent-side counterpart (non-dumpable).
//
// The filter is written with the kernel's own macros (linux/filter.h,
// linux/seccomp.h), applied to every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC) after prctl(PR_SET_NO_NEW_PRIVS). Filters only
// ever add restrictions: a later stage (or a filter the untrusted code adds)
// cannot lift an earlier one. Denied calls fail with EPERM (the kernel never
// runs them); each is also counted, through a SIGSYS handler (which the
// filter then keeps in place), so the process can report what was attempted
// (SandboxViolations). Threads stay
// allowed (the CUDA driver starts some); new processes do not.
//
// Linux x86-64 and aarch64 only; elsewhere InstallSandbox returns
// Unavailable.
//
// Thread safety: InstallSandbox from one thread at a time;
// SandboxViolations() from any thread (lock-free counters).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace kopt {

// A range of virtual addresses [begin, end) no call may remap, unmap or
// change the protection of, in bytes.
struct ProtectedRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  std::string name;  // the object's path, for messages
};

struct SandboxPolicy {
  // Deny ptrace, process_vm_readv/writev, pidfd_getfd, kcmp, process_madvise,
  // execve(at), fork, vfork, clone without CLONE_THREAD (clone3 answers
  // ENOSYS so the C library falls back to clone), unshare, setns, io_uring
  // (its operations would bypass this filter), userfaultfd, bpf,
  // perf_event_open, shmat, remap_file_pages, and installing another SIGSYS
  // handler; every denied call is counted. Opening files for writing is not
  // this filter's (it cannot read a path): file_write_restriction.h confines
  // it by path (the CUDA driver opens its device nodes for writing while it
  // runs).
  bool deny_process_control = true;
  // mprotect, pkey_mprotect, munmap, mremap, madvise and mmap with MAP_FIXED
  // that touch one of these ranges are denied (and mremap with
  // MREMAP_FIXED anywhere).
  std::vector<ProtectedRange> protected_ranges;
  // mmap, mprotect and pkey_mprotect asking for PROT_EXEC are denied: no new
  // executable mapping (install only after every library is loaded).
  bool deny_new_executable_memory = false;
};

// The loaded objects' ranges (dl_iterate_phdr), from the lowest to the
// highest address of their PT_LOAD segments, page-rounded, except the vDSO
// and objects whose path contains one of `excluded_substrings`. The main
// program's name is "(main program)".
std::vector<ProtectedRange> LoadedObjectRanges(const std::vector<std::string>& excluded_substrings);

// Installs `policy` on every thread of the calling process (and those it
// creates later), and the SIGSYS handler that counts denied calls.
// Unavailable when the kernel refuses (no seccomp, a different
// architecture); the process then runs without this stage.
Status InstallSandbox(const SandboxPolicy& policy);

// Calls the sandbox denied so far (every stage together).
struct SandboxViolationCount {
  int64_t count = 0;
  int64_t first_syscall = -1;  // the number of the first denied call; -1 when none
};
SandboxViolationCount SandboxViolations();

// The system call's name for the common ones this sandbox denies, else
// "system call N".
std::string SyscallName(int64_t number);

// prctl(PR_SET_DUMPABLE, 0): processes of the same user can no longer open
// /proc/<this pid>/{mem,fd/*,environ} or ptrace this process. The process
// can still read memory of its own children (process_vm_readv).
Status MakeProcessNonDumpable();

}  // namespace kopt
