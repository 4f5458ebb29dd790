#include "core/file_write_restriction.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace kopt {
namespace {

// The kernel's Landlock ABI, spelled out here so that older kernel headers
// (Debian 12 ships those of Linux 6.1, ABI 2) build the newer fields; the
// values are fixed by the kernel's uapi.
constexpr uint64_t kWriteFile = 1ULL << 1;
constexpr uint64_t kRemoveDirectory = 1ULL << 4;
constexpr uint64_t kRemoveFile = 1ULL << 5;
constexpr uint64_t kMakeCharacterDevice = 1ULL << 6;
constexpr uint64_t kMakeDirectory = 1ULL << 7;
constexpr uint64_t kMakeRegular = 1ULL << 8;
constexpr uint64_t kMakeSocket = 1ULL << 9;
constexpr uint64_t kMakeFifo = 1ULL << 10;
constexpr uint64_t kMakeBlockDevice = 1ULL << 11;
constexpr uint64_t kMakeSymlink = 1ULL << 12;
constexpr uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kBindTcp = 1ULL << 0;    // ABI 4, handled_access_net
constexpr uint64_t kConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6, scoped
constexpr uint64_t kScopeSignal = 1ULL << 1;
constexpr uint32_t kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttributes {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

struct __attribute__((packed)) PathBeneathAttributes {
  uint64_t allowed_access = 0;
  int32_t parent_fd = -1;
};

// Closes a descriptor when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

long LandlockAbi() {
  return syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
}

// The file-system rights handled at `abi`: every right that writes.
uint64_t HandledFileRights(long abi) {
  uint64_t rights = kWriteFile | kRemoveDirectory | kRemoveFile | kMakeCharacterDevice | kMakeDirectory |
                    kMakeRegular | kMakeSocket | kMakeFifo | kMakeBlockDevice | kMakeSymlink;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  return rights;
}

// Adds a rule allowing `rights` on `path` (and beneath it for a directory).
// Returns false (and no error) when the path does not exist.
Result<bool> AllowPath(int ruleset, const std::string& path, uint64_t rights) {
  Descriptor target(open(path.c_str(), O_PATH | O_CLOEXEC));
  if (target.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return InvalidInput(
        fmt::format("{}: cannot open it to allow writes beneath it: {}", path, std::strerror(errno)));
  }
  PathBeneathAttributes rule;
  rule.allowed_access = rights;
  rule.parent_fd = target.get();
  if (syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0) != 0) {
    return Internal(fmt::format("landlock_add_rule({}): {}", path, std::strerror(errno)));
  }
  return true;
}

}  // namespace

FileWriteAllowance CudaDriverFileWrites(bool under_profiler) {
  FileWriteAllowance allowance;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) allowance.files.push_back(entry.path().string());
  }
  std::sort(allowance.files.begin(), allowance.files.end());
  allowance.files.push_back("/dev/null");
  allowance.trees.push_back("/dev/shm");
  if (under_profiler) {
    allowance.trees.push_back("/tmp");
    const char* temporary = std::getenv("TMPDIR");
    if (temporary != nullptr && temporary[0] == '/') allowance.trees.push_back(temporary);
    allowance.deny_tcp = false;
    allowance.deny_outside_signals_and_sockets = false;
  }
  return allowance;
}

Result<FileWriteRestriction> RestrictFileWrites(const FileWriteAllowance& allowance) {
  long abi = LandlockAbi();
  if (abi < 1) {
    return Unavailable(
        fmt::format("the kernel has no Landlock ({}): file writes are not restricted", std::strerror(errno)));
  }
  FileWriteRestriction restriction;
  restriction.landlock_abi = static_cast<int>(abi);
  RulesetAttributes attributes;
  attributes.handled_access_fs = HandledFileRights(abi);
  size_t attributes_size = sizeof(uint64_t);
  if (abi >= 4 && allowance.deny_tcp) {
    attributes.handled_access_net = kBindTcp | kConnectTcp;  // no rule: every TCP bind and connect denied
    attributes_size = 2 * sizeof(uint64_t);
    restriction.network_denied = true;
  }
  if (abi >= 6 && allowance.deny_outside_signals_and_sockets) {
    attributes.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    attributes_size = sizeof(RulesetAttributes);
    restriction.signals_scoped = true;
  }
  Descriptor ruleset(static_cast<int>(syscall(SYS_landlock_create_ruleset, &attributes, attributes_size, 0)));
  if (ruleset.get() < 0) return Internal(fmt::format("landlock_create_ruleset: {}", std::strerror(errno)));
  const uint64_t file_rights = kWriteFile | (abi >= 3 ? kTruncate : 0);
  for (const std::string& path : allowance.files) {
    KOPT_ASSIGN_OR_RETURN(bool allowed, AllowPath(ruleset.get(), path, file_rights));
    if (allowed) restriction.allowed.push_back(path);
  }
  for (const std::string& path : allowance.trees) {
    KOPT_ASSIGN_OR_RETURN(bool allowed, AllowPath(ruleset.get(), path, attributes.handled_access_fs));
    if (allowed) restriction.allowed.push_back(path);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return Unavailable(fmt::format("prctl(PR_SET_NO_NEW_PRIVS): {}", std::strerror(errno)));
  }
  if (syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
    return Unavailable(fmt::format("landlock_restrict_self: {}", std::strerror(errno)));
  }
  return restriction;
}

}  // namespace kopt
