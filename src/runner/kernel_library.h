// A compiled candidate or reference: the shared object the harness compiler
// built around it (docs/harness-protocol.md §2), loaded with
// dlopen(RTLD_NOW | RTLD_LOCAL), so two libraries defining the same entry
// point each call their own.
//
// The library is never unloaded (dlclose could run CUDA teardown of a
// misbehaving candidate; the process is short-lived).
//
// Thread safety: Load on one thread; Launch as thread-safe as the candidate.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/status.h"

namespace kopt::runner {

inline constexpr int kKernelAbiVersion = 1;

class KernelLibrary {
 public:
  using LaunchSymbol = void (*)(void* const* tensors, const void* const* scalars, cudaStream_t stream);

  // Loads `path` and resolves kopt_abi_version (must return kKernelAbiVersion)
  // and kopt_launch. NotFound when the file is missing; InvalidInput when it
  // will not load (dlerror's text), lacks a symbol, or has another ABI version.
  // The runner reports every one of them as load_error.
  static Result<KernelLibrary> Load(const std::string& path);

  // Calls kopt_launch: enqueues the work on `stream`.
  void Launch(void* const* tensors, const void* const* scalars, cudaStream_t stream) const {
    launch_(tensors, scalars, stream);
  }
  const std::string& path() const { return path_; }

 private:
  KernelLibrary(std::string path, LaunchSymbol launch) : path_(std::move(path)), launch_(launch) {}
  std::string path_;
  LaunchSymbol launch_;
};

}  // namespace kopt::runner
