#include "runner/kernel_library.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/stat.h>

namespace kopt::runner {

Result<KernelLibrary> KernelLibrary::Load(const std::string& path) {
  struct stat file_status;
  if (stat(path.c_str(), &file_status) != 0) return NotFound(fmt::format("{}: no such file", path));
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return InvalidInput(
        fmt::format("{}: dlopen failed: {}", path, reason != nullptr ? reason : "unknown reason"));
  }
  using VersionSymbol = int (*)();
  auto version = reinterpret_cast<VersionSymbol>(dlsym(handle, "kopt_abi_version"));
  if (version == nullptr) {
    return InvalidInput(
        fmt::format("{}: lacks kopt_abi_version; expected a library built by the harness wrapper "
                    "(docs/harness-protocol.md §2)",
                    path));
  }
  int abi_version = version();
  if (abi_version != kKernelAbiVersion) {
    return InvalidInput(
        fmt::format("{}: kopt_abi_version() is {}; expected {}", path, abi_version, kKernelAbiVersion));
  }
  auto launch = reinterpret_cast<LaunchSymbol>(dlsym(handle, "kopt_launch"));
  if (launch == nullptr) return InvalidInput(fmt::format("{}: lacks kopt_launch", path));
  return KernelLibrary(path, launch);
}

}  // namespace kopt::runner
