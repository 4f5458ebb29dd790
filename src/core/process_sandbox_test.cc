// The sandbox installed in a forked child (a filter cannot be removed, so
// never in the test process): each case exits 0 when every expectation
// held, else the number of the first that failed.
#include "core/process_sandbox.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "core/forked_child_test_util.h"

namespace kopt {
namespace {

bool DeniedWithPermission(long result) {
  return result == -1 && errno == EPERM;
}

TEST(ProcessSandboxTest, DeniesProcessControlButKeepsThreadsAndOpens) {
  int code = InChild([] {
    SandboxPolicy policy;
    if (!InstallSandbox(policy).ok()) return 1;
    if (!DeniedWithPermission(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr))) return 2;
    char byte = 0;
    iovec local{&byte, 1}, remote{&byte, 1};
    if (!DeniedWithPermission(process_vm_writev(getppid(), &local, 1, &remote, 1, 0))) return 3;
    if (!DeniedWithPermission(process_vm_readv(getpid(), &local, 1, &remote, 1, 0))) return 4;
    int writable = open("/dev/null", O_WRONLY);  // file writes are file_write_restriction.h's
    if (writable < 0) return 5;
    close(writable);
    int readable = open("/proc/self/status", O_RDONLY);
    if (readable < 0) return 7;
    close(readable);
    if (!DeniedWithPermission(fork())) return 8;
    bool ran = false;
    std::thread thread([&] { ran = true; });
    thread.join();
    if (!ran) return 9;
    if (getpid() <= 0) return 10;
    char* const arguments[] = {const_cast<char*>("/bin/true"), nullptr};
    if (!DeniedWithPermission(execv("/bin/true", arguments))) return 11;
    if (SandboxViolations().count != 5) return 12;
    if (SyscallName(SandboxViolations().first_syscall) != "ptrace") return 13;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST(ProcessSandboxTest, ProtectedRangeCannotBeRemappedUnmappedOrReprotected) {
  int code = InChild([] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    auto* base = static_cast<char*>(mmap(nullptr, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base == MAP_FAILED) return 1;
    SandboxPolicy policy;
    policy.deny_process_control = false;
    policy.protected_ranges.push_back(
        {reinterpret_cast<uint64_t>(base + page), reinterpret_cast<uint64_t>(base + 3 * page), "test"});
    if (!InstallSandbox(policy).ok()) return 2;
    if (!DeniedWithPermission(mprotect(base + page, page, PROT_READ | PROT_WRITE))) return 3;
    if (!DeniedWithPermission(mprotect(base, 2 * page, PROT_READ | PROT_WRITE))) return 4;  // straddles
    if (!DeniedWithPermission(mprotect(base + 2 * page, 2 * page, PROT_READ))) return 5;
    if (mprotect(base, page, PROT_READ | PROT_WRITE) != 0) return 6;             // below the range
    if (mprotect(base + 3 * page, page, PROT_READ | PROT_WRITE) != 0) return 7;  // above it
    if (!DeniedWithPermission(munmap(base + page, page))) return 8;
    void* fixed =
        mmap(base + 2 * page, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (fixed != MAP_FAILED || errno != EPERM) return 9;
    if (!DeniedWithPermission(syscall(SYS_madvise, base + page, page, MADV_DONTNEED))) return 10;
    void* elsewhere = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (elsewhere == MAP_FAILED) return 11;
    if (munmap(elsewhere, page) != 0) return 12;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST(ProcessSandboxTest, NoNewExecutableMemory) {
  int code = InChild([] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    auto* data =
        static_cast<char*>(mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    SandboxPolicy policy;
    policy.deny_process_control = false;
    policy.deny_new_executable_memory = true;
    if (!InstallSandbox(policy).ok()) return 1;
    if (!DeniedWithPermission(mprotect(data, page, PROT_READ | PROT_EXEC))) return 2;
    void* code_page = mmap(nullptr, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code_page != MAP_FAILED || errno != EPERM) return 3;
    if (mprotect(data, page, PROT_READ) != 0) return 4;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST(ProcessSandboxTest, LoadedObjectRangesCoverThisProgramsCode) {
  std::vector<ProtectedRange> ranges = LoadedObjectRanges({});
  auto here = reinterpret_cast<uint64_t>(&InChild);
  bool covered = false;
  for (const ProtectedRange& range : ranges) {
    EXPECT_LT(range.begin, range.end) << range.name;
    covered = covered || (range.begin <= here && here < range.end);
  }
  EXPECT_TRUE(covered);
  for (const ProtectedRange& range : LoadedObjectRanges({"libc.so"}))
    EXPECT_EQ(range.name.find("libc.so"), std::string::npos);
}

TEST(ProcessSandboxTest, TheWholeRunnerPolicyOnThisProcessKeepsItWorking) {
  int code = InChild([] {
    SandboxPolicy policy;
    policy.protected_ranges = LoadedObjectRanges({});
    if (!InstallSandbox(policy).ok()) return 1;
    SandboxPolicy second;
    second.deny_process_control = false;
    second.deny_new_executable_memory = true;
    if (!InstallSandbox(second).ok()) return 2;
    std::vector<char> memory(size_t{64} << 20, 1);  // malloc through mmap and back
    std::thread thread([&] { memory[0] = 2; });
    thread.join();
    if (memory[0] != 2) return 3;
    if (SandboxViolations().count != 0) return 4;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST(ProcessSandboxTest, ANonDumpableProcessHidesItsMemoryFromItsChildren) {
  int code = InChild([] {
    // As root (CAP_SYS_PTRACE opens any process's memory), both processes become an ordinary user.
    constexpr uid_t kNobody = 65534;
    if (geteuid() == 0 && (setgid(kNobody) != 0 || setuid(kNobody) != 0)) return 4;
    prctl(PR_SET_DUMPABLE, 1);  // a change of user made it non-dumpable; the control needs it dumpable
    pid_t parent = getpid();
    auto child_opens_parent_memory = [parent] {
      return InChild([parent] {
        std::string path = "/proc/" + std::to_string(parent) + "/mem";
        int descriptor = open(path.c_str(), O_RDWR);
        if (descriptor >= 0) return 0;
        return errno == EACCES || errno == EPERM ? 1 : 2;
      });
    };
    // The control, where Yama does not already forbid it (ptrace_scope absent or 0).
    std::ifstream yama("/proc/sys/kernel/yama/ptrace_scope");
    int scope = 0;
    if (yama) yama >> scope;
    if (scope == 0 && child_opens_parent_memory() != 0) return 5;
    if (!MakeProcessNonDumpable().ok()) return 1;
    if (prctl(PR_GET_DUMPABLE) != 0) return 2;
    return child_opens_parent_memory() == 1 ? 0 : 3;
  });
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace kopt
