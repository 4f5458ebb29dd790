// Confines which files a process may write, create, remove, rename or link,
// with the kernel's Landlock LSM (kopt-runner before it loads a candidate;
// docs/harness-protocol.md §3 "The runtime sandbox").
//
// Reading stays allowed everywhere. Writing is allowed only to the files and
// beneath the directories a FileWriteAllowance names; any other open for
// writing (open, openat, openat2, creat, O_TRUNC, /proc/<pid>/mem and
// /proc/self/mem included), mknod, mkdir, unlink, rename or link fails with
// EACCES (or EXDEV). Where the kernel's Landlock is recent enough, the
// process also can no longer bind or connect TCP sockets (ABI 4), signal
// processes outside the restricted domain, nor connect to their abstract
// Unix sockets (ABI 6). Restrictions only ever add up: code that runs later
// cannot lift them.
//
// Landlock binds the calling thread and the threads and processes it creates
// afterwards, not threads that already exist: call RestrictFileWrites while
// the process has one thread.
//
// Thread safety: call from one thread, before any other thread is started.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace kopt {

struct FileWriteAllowance {
  // Files that may be opened for writing (and truncated); paths that do not
  // exist are skipped. A directory here allows writing the files beneath it
  // but not creating, removing or renaming them.
  std::vector<std::string> files;
  // Directories beneath which anything may be created, written, removed or
  // renamed; paths that do not exist are skipped.
  std::vector<std::string> trees;
  // Where the kernel can (Landlock ABI 4): deny every TCP bind and connect.
  bool deny_tcp = true;
  // Where the kernel can (ABI 6): deny signals and abstract Unix socket
  // connections to processes outside the restricted ones.
  bool deny_outside_signals_and_sockets = true;
};

// What the kernel enforces after RestrictFileWrites.
struct FileWriteRestriction {
  int landlock_abi = 0;         // the kernel's Landlock ABI version (1 or more)
  bool network_denied = false;  // TCP bind/connect denied (ABI >= 4)
  bool signals_scoped = false;  // signals and abstract Unix sockets to outside processes denied (ABI >= 6)
  std::vector<std::string> allowed;  // the paths that exist and were allowed
};

// The allowance the CUDA driver needs: every /dev/nvidia* node (the
// directories among them, such as /dev/nvidia-caps, for their files),
// /dev/null, and /dev/shm as a tree (the driver's and profilers' shared
// memory files). `under_profiler` (a process that Nsight Compute injects
// into, which talks to its front end through sockets and temporary files)
// adds /tmp and $TMPDIR as trees and keeps TCP and outside signals and
// sockets.
FileWriteAllowance CudaDriverFileWrites(bool under_profiler);

// Restricts the calling thread (and what it creates later) to `allowance`.
// Unavailable where the kernel has no Landlock (before Linux 5.13, or not in
// the kernel's LSM list): the caller then goes on without this restriction
// and says so. InvalidInput when a path cannot be opened for a reason other
// than not existing.
Result<FileWriteRestriction> RestrictFileWrites(const FileWriteAllowance& allowance);

}  // namespace kopt
