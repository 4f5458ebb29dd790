#include "core/process_sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>
#include <utility>

namespace kopt {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t kAuditArch = 0;
#endif

constexpr uint32_t kRetAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kRetDeny = SECCOMP_RET_TRAP;  // EPERM through the SIGSYS handler, counted
constexpr uint32_t kRetNoSuchCall = SECCOMP_RET_ERRNO | ENOSYS;
constexpr uint32_t kX32SyscallBit = 0x40000000;
constexpr uint64_t kPageBytes = 4096;

constexpr uint32_t ArgLow(int index) {
  return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * index);  // little-endian
}
constexpr uint32_t ArgHigh(int index) {
  return ArgLow(index) + 4;
}

// A classic-BPF program with forward labels, resolved by Finish().
class FilterProgram {
 public:
  using Label = int;
  Label NewLabel() {
    positions_.push_back(-1);
    return static_cast<Label>(positions_.size() - 1);
  }
  void Bind(Label label) { positions_[static_cast<size_t>(label)] = static_cast<int>(code_.size()); }

  void Load(uint32_t offset) { Emit(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void LoadScratch(uint32_t slot) { Emit(BPF_STMT(BPF_LD | BPF_MEM, slot)); }
  void StoreScratch(uint32_t slot) { Emit(BPF_STMT(BPF_ST, slot)); }
  void MoveToX() { Emit(BPF_STMT(BPF_MISC | BPF_TAX, 0)); }
  void AddX() { Emit(BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0)); }
  void AddConstant(uint32_t value) { Emit(BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, value)); }
  void Return(uint32_t action) { Emit(BPF_STMT(BPF_RET | BPF_K, action)); }
  void Jump(Label target) {
    fixups_.push_back({code_.size(), target, kAlways});
    Emit(BPF_STMT(BPF_JMP | BPF_JA, 0));
  }
  // if (A <op> value) goto when_true else goto when_false; kNext falls through.
  static constexpr Label kNext = -1;
  void JumpIf(uint16_t op, uint32_t value, Label when_true, Label when_false) {
    size_t at = code_.size();
    Emit(BPF_JUMP(BPF_JMP | op | BPF_K, value, 0, 0));
    if (when_true != kNext) fixups_.push_back({at, when_true, kTrue});
    if (when_false != kNext) fixups_.push_back({at, when_false, kFalse});
  }
  void JumpIfX(uint16_t op, Label when_true, Label when_false) {
    size_t at = code_.size();
    Emit(BPF_JUMP(BPF_JMP | op | BPF_X, 0, 0, 0));
    if (when_true != kNext) fixups_.push_back({at, when_true, kTrue});
    if (when_false != kNext) fixups_.push_back({at, when_false, kFalse});
  }

  Result<std::vector<sock_filter>> Finish() {
    for (const Fixup& fixup : fixups_) {
      int target = positions_[static_cast<size_t>(fixup.label)];
      long offset = static_cast<long>(target) - static_cast<long>(fixup.at) - 1;
      if (target < 0 || offset < 0) return Internal("seccomp filter: an unbound or backward label");
      sock_filter& instruction = code_[fixup.at];
      if (fixup.which == kAlways) {
        instruction.k = static_cast<uint32_t>(offset);
      } else if (offset > 255) {
        return Internal("seccomp filter: a conditional jump longer than 255 instructions");
      } else if (fixup.which == kTrue) {
        instruction.jt = static_cast<uint8_t>(offset);
      } else {
        instruction.jf = static_cast<uint8_t>(offset);
      }
    }
    if (code_.size() > BPF_MAXINSNS) return Internal("seccomp filter: more than BPF_MAXINSNS instructions");
    return code_;
  }

 private:
  enum Which { kTrue, kFalse, kAlways };
  struct Fixup {
    size_t at;
    Label label;
    Which which;
  };
  void Emit(sock_filter instruction) { code_.push_back(instruction); }
  std::vector<sock_filter> code_;
  std::vector<int> positions_;
  std::vector<Fixup> fixups_;
};

// Scratch slots of the range check.
constexpr uint32_t kAddressLow = 0, kAddressHigh = 1, kEndLow = 2, kEndHigh = 3;

// M[] = address (arg0) and end = address + length (arg1), 64-bit.
void ComputeRangeOfCall(FilterProgram& program) {
  FilterProgram::Label no_carry = program.NewLabel(), join = program.NewLabel();
  program.Load(ArgLow(0));
  program.StoreScratch(kAddressLow);
  program.Load(ArgHigh(0));
  program.StoreScratch(kAddressHigh);
  program.Load(ArgLow(1));
  program.MoveToX();
  program.LoadScratch(kAddressLow);
  program.AddX();
  program.StoreScratch(kEndLow);
  program.LoadScratch(kAddressLow);
  program.MoveToX();
  program.LoadScratch(kEndLow);
  program.JumpIfX(BPF_JGE, no_carry, FilterProgram::kNext);  // end_low < address_low: a carry
  program.Load(ArgHigh(1));
  program.AddConstant(1);
  program.Jump(join);
  program.Bind(no_carry);
  program.Load(ArgHigh(1));
  program.Bind(join);
  program.MoveToX();
  program.LoadScratch(kAddressHigh);
  program.AddX();
  program.StoreScratch(kEndHigh);
}

// Denies when [address, end) overlaps [range.begin, range.end).
void DenyIfOverlaps(FilterProgram& program, const ProtectedRange& range) {
  const uint32_t end_high = static_cast<uint32_t>(range.end >> 32),
                 end_low = static_cast<uint32_t>(range.end);
  const uint32_t begin_high = static_cast<uint32_t>(range.begin >> 32);
  const uint32_t begin_low = static_cast<uint32_t>(range.begin);
  FilterProgram::Label skip = program.NewLabel(), check_end = program.NewLabel();
  FilterProgram::Label address_low_part = program.NewLabel(), end_low_part = program.NewLabel();
  FilterProgram::Label deny = program.NewLabel();
  // address < range.end ?
  program.LoadScratch(kAddressHigh);
  program.JumpIf(BPF_JGT, end_high, skip, FilterProgram::kNext);
  program.JumpIf(BPF_JEQ, end_high, address_low_part, check_end);
  program.Bind(address_low_part);
  program.LoadScratch(kAddressLow);
  program.JumpIf(BPF_JGE, end_low, skip, check_end);
  // end > range.begin ?
  program.Bind(check_end);
  program.LoadScratch(kEndHigh);
  program.JumpIf(BPF_JGT, begin_high, deny, FilterProgram::kNext);
  program.JumpIf(BPF_JEQ, begin_high, end_low_part, skip);
  program.Bind(end_low_part);
  program.LoadScratch(kEndLow);
  program.JumpIf(BPF_JGT, begin_low, deny, skip);
  program.Bind(deny);
  program.Return(kRetDeny);
  program.Bind(skip);
}

struct SyscallEntry {
  long number;
  const char* name;
};

// Calls denied outright by deny_process_control.
std::vector<SyscallEntry> DeniedProcessCalls() {
  std::vector<SyscallEntry> calls = {
      {SYS_ptrace, "ptrace"},
      {SYS_process_vm_readv, "process_vm_readv"},
      {SYS_process_vm_writev, "process_vm_writev"},
      {SYS_kcmp, "kcmp"},
      {SYS_execve, "execve"},
      {SYS_execveat, "execveat"},
      {SYS_unshare, "unshare"},
      {SYS_setns, "setns"},
      {SYS_userfaultfd, "userfaultfd"},
      {SYS_bpf, "bpf"},
      {SYS_perf_event_open, "perf_event_open"},
      {SYS_shmat, "shmat"},
      {SYS_remap_file_pages, "remap_file_pages"},
#ifdef SYS_pidfd_getfd
      {SYS_pidfd_getfd, "pidfd_getfd"},
#endif
#ifdef SYS_process_madvise
      {SYS_process_madvise, "process_madvise"},
#endif
#ifdef SYS_io_uring_setup
      {SYS_io_uring_setup, "io_uring_setup"},
      {SYS_io_uring_enter, "io_uring_enter"},
      {SYS_io_uring_register, "io_uring_register"},
#endif
#ifdef SYS_fork
      {SYS_fork, "fork"},
#endif
#ifdef SYS_vfork
      {SYS_vfork, "vfork"},
#endif
  };
  return calls;
}

// Other names SyscallName knows.
std::vector<SyscallEntry> OtherNamedCalls() {
  return {
      {SYS_clone, "clone"},
      {SYS_openat, "openat"},
      {SYS_mprotect, "mprotect"},
      {SYS_mmap, "mmap"},
      {SYS_munmap, "munmap"},
      {SYS_mremap, "mremap"},
      {SYS_madvise, "madvise"},
      {SYS_pkey_mprotect, "pkey_mprotect"},
      {SYS_rt_sigaction, "rt_sigaction"},
#ifdef SYS_open
      {SYS_open, "open"},
#endif
  };
}

void EmitProcessControl(FilterProgram& program) {
  FilterProgram::Label deny = program.NewLabel(), next = program.NewLabel();
  for (const SyscallEntry& call : DeniedProcessCalls()) {
    program.JumpIf(BPF_JEQ, static_cast<uint32_t>(call.number), deny, FilterProgram::kNext);
  }
  FilterProgram::Label not_clone3 = program.NewLabel();
#ifdef SYS_clone3
  program.JumpIf(BPF_JEQ, SYS_clone3, FilterProgram::kNext, not_clone3);
  program.Return(kRetNoSuchCall);
#endif
  program.Bind(not_clone3);
  // clone: threads only.
  FilterProgram::Label not_clone = program.NewLabel();
  program.JumpIf(BPF_JEQ, SYS_clone, FilterProgram::kNext, not_clone);
  program.Load(ArgLow(0));
  program.JumpIf(BPF_JSET, CLONE_THREAD, next, deny);
  program.Bind(not_clone);
  // No other SIGSYS handler: the counter stays this one's.
  program.JumpIf(BPF_JEQ, SYS_rt_sigaction, FilterProgram::kNext, next);
  program.Load(ArgLow(0));
  program.JumpIf(BPF_JEQ, SIGSYS, FilterProgram::kNext, next);
  program.Load(ArgLow(1));
  program.JumpIf(BPF_JEQ, 0, FilterProgram::kNext, deny);  // act == NULL (low half): a query
  program.Load(ArgHigh(1));
  program.JumpIf(BPF_JEQ, 0, next, deny);
  program.Bind(deny);
  program.Return(kRetDeny);
  program.Bind(next);
  program.Load(offsetof(seccomp_data, nr));
}

void EmitProtectedRanges(FilterProgram& program, const std::vector<ProtectedRange>& ranges) {
  FilterProgram::Label check = program.NewLabel(), next = program.NewLabel();
  FilterProgram::Label is_mmap = program.NewLabel(), is_mremap = program.NewLabel();
  for (long number : {long{SYS_mprotect}, long{SYS_pkey_mprotect}, long{SYS_munmap}, long{SYS_madvise}}) {
    program.JumpIf(BPF_JEQ, static_cast<uint32_t>(number), check, FilterProgram::kNext);
  }
  program.JumpIf(BPF_JEQ, SYS_mmap, is_mmap, FilterProgram::kNext);
  program.JumpIf(BPF_JEQ, SYS_mremap, is_mremap, FilterProgram::kNext);
  program.Jump(next);
  program.Bind(is_mremap);
  program.Load(ArgLow(3));
  FilterProgram::Label deny = program.NewLabel();
  program.JumpIf(BPF_JSET, MREMAP_FIXED, deny, check);
  program.Bind(deny);
  program.Return(kRetDeny);
  program.Bind(is_mmap);
  program.Load(ArgLow(3));
  program.JumpIf(BPF_JSET, MAP_FIXED, check, FilterProgram::kNext);
  program.Jump(next);
  program.Bind(check);
  ComputeRangeOfCall(program);
  for (const ProtectedRange& range : ranges) DenyIfOverlaps(program, range);
  program.Return(kRetAllow);
  program.Bind(next);
  program.Load(offsetof(seccomp_data, nr));
}

void EmitNoNewExecutableMemory(FilterProgram& program) {
  FilterProgram::Label check = program.NewLabel(), next = program.NewLabel();
  for (long number : {long{SYS_mmap}, long{SYS_mprotect}, long{SYS_pkey_mprotect}}) {
    program.JumpIf(BPF_JEQ, static_cast<uint32_t>(number), check, FilterProgram::kNext);
  }
  program.Jump(next);
  program.Bind(check);
  program.Load(ArgLow(2));
  FilterProgram::Label deny = program.NewLabel();
  program.JumpIf(BPF_JSET, PROT_EXEC, deny, FilterProgram::kNext);
  program.Load(offsetof(seccomp_data, nr));
  program.Jump(next);
  program.Bind(deny);
  program.Return(kRetDeny);
  program.Bind(next);
}

Result<std::vector<sock_filter>> BuildFilter(const SandboxPolicy& policy) {
  FilterProgram program;
  FilterProgram::Label arch_ok = program.NewLabel();
  program.Load(offsetof(seccomp_data, arch));
  program.JumpIf(BPF_JEQ, kAuditArch, arch_ok, FilterProgram::kNext);
  program.Return(SECCOMP_RET_KILL_PROCESS);
  program.Bind(arch_ok);
  program.Load(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
  FilterProgram::Label native = program.NewLabel();
  program.JumpIf(BPF_JGE, kX32SyscallBit, FilterProgram::kNext, native);
  program.Return(kRetDeny);
  program.Bind(native);
#endif
  if (policy.deny_process_control) EmitProcessControl(program);
  // Before the ranges: their check ends in an allow.
  if (policy.deny_new_executable_memory) EmitNoNewExecutableMemory(program);
  if (!policy.protected_ranges.empty()) EmitProtectedRanges(program, policy.protected_ranges);
  program.Return(kRetAllow);
  return program.Finish();
}

std::atomic<int64_t> violation_count{0};
std::atomic<int64_t> first_violation{-1};

// SIGSYS from SECCOMP_RET_TRAP: count, then make the call return -EPERM.
void OnDeniedCall(int, siginfo_t* info, void* context) {
  int64_t expected = -1;
  first_violation.compare_exchange_strong(expected, info->si_syscall);
  violation_count.fetch_add(1);
  auto* user = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  user->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
  user->uc_mcontext.regs[0] = static_cast<unsigned long long>(-EPERM);
#else
  (void)user;
#endif
}

// Once per process: the first filter denies later changes to SIGSYS.
Status InstallDeniedCallHandler() {
  static std::atomic<bool> installed{false};
  if (installed.load()) return Status::Ok();
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = OnDeniedCall;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSYS, &action, nullptr) != 0)
    return Unavailable(fmt::format("sigaction(SIGSYS): {}", std::strerror(errno)));
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, SIGSYS);
  pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  installed.store(true);
  return Status::Ok();
}

int CollectRange(dl_phdr_info* info, size_t, void* data) {
  auto* ranges = static_cast<std::vector<ProtectedRange>*>(data);
  uint64_t low = UINT64_MAX, high = 0;
  for (int index = 0; index < info->dlpi_phnum; ++index) {
    const ElfW(Phdr)& header = info->dlpi_phdr[index];
    if (header.p_type != PT_LOAD) continue;
    low = std::min<uint64_t>(low, info->dlpi_addr + header.p_vaddr);
    high = std::max<uint64_t>(high, info->dlpi_addr + header.p_vaddr + header.p_memsz);
  }
  if (low >= high) return 0;
  std::string name =
      info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' ? info->dlpi_name : "(main program)";
  ranges->push_back({low & ~(kPageBytes - 1), (high + kPageBytes - 1) & ~(kPageBytes - 1), name});
  return 0;
}

}  // namespace

std::vector<ProtectedRange> LoadedObjectRanges(const std::vector<std::string>& excluded_substrings) {
  std::vector<ProtectedRange> all;
  dl_iterate_phdr(CollectRange, &all);
  std::vector<ProtectedRange> kept;
  for (ProtectedRange& range : all) {
    if (range.name.find("linux-vdso") != std::string::npos ||
        range.name.find("linux-gate") != std::string::npos)
      continue;
    bool excluded =
        std::any_of(excluded_substrings.begin(), excluded_substrings.end(),
                    [&](const std::string& part) { return range.name.find(part) != std::string::npos; });
    if (!excluded) kept.push_back(std::move(range));
  }
  return kept;
}

Status InstallSandbox(const SandboxPolicy& policy) {
  if (kAuditArch == 0) return Unavailable("the sandbox supports Linux x86-64 and aarch64 only");
  KOPT_ASSIGN_OR_RETURN(std::vector<sock_filter> code, BuildFilter(policy));
  KOPT_RETURN_IF_ERROR(InstallDeniedCallHandler());
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return Unavailable(fmt::format("prctl(PR_SET_NO_NEW_PRIVS): {}", std::strerror(errno)));
  }
  sock_fprog program{static_cast<unsigned short>(code.size()), code.data()};
  long result = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
  if (result != 0) {
    return Unavailable(result > 0 ? fmt::format("seccomp: thread {} could not take the filter", result)
                                  : fmt::format("seccomp: {}", std::strerror(errno)));
  }
  return Status::Ok();
}

SandboxViolationCount SandboxViolations() {
  return {violation_count.load(), first_violation.load()};
}

std::string SyscallName(int64_t number) {
  for (const auto& list : {DeniedProcessCalls(), OtherNamedCalls()}) {
    for (const SyscallEntry& call : list) {
      if (call.number == number) return call.name;
    }
  }
  return fmt::format("system call {}", number);
}

Status MakeProcessNonDumpable() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    return Unavailable(fmt::format("prctl(PR_SET_DUMPABLE, 0): {}", std::strerror(errno)));
  }
  return Status::Ok();
}

}  // namespace kopt
