// The failure kinds of a candidate run (docs/harness-protocol.md §4), shared by
// the compiler, kopt-runner and the parent. The names are the protocol's
// strings ("illegal_address", ...).
//
// Thread safety: pure functions over constants.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kopt {

enum class FailureKind {
  kCompileError,
  kMissingEntryPoint,
  kLoadError,
  kCrash,
  kTimeout,
  kIllegalAddress,
  kOutOfMemory,
  kLaunchFailure,
  kTooManyResources,
  kUnwrittenOutput,
  kWrongOutput,
  kPrecisionLoss,
  kConstantOutput,
  kInputMutated,
  kStaleOutput,
  kSideStream,
  kSuspectFast,
  kDeviceUnavailable,
  // The child's output is not the runner's alone: event lines without this
  // run's token or out of sequence, outputs missing for a round it claims,
  // duplicate output frames (docs/harness-protocol.md §3 "Event binding").
  kProtocolViolation,
  // The child's timing contradicts what the parent verified or observed: a
  // verified timed launch far slower than the median, more GPU time than the
  // child's wall time, a sample count or input-set count other than asked.
  kTimingInconsistent,
  // The parent's static policy screened the candidate out before it ran: it
  // uses a construct the task and the command line do not allow
  // (harness/candidate_policy.h).
  kPolicyViolation,
  // The candidate's process made a call kopt-runner's sandbox denies
  // (ptrace, another process's memory, a new process, a new executable
  // mapping, remapping the runner's or the runtime's code and relocations);
  // the kernel refused it, the runner reports it (docs/harness-protocol.md
  // §3 "The runtime sandbox").
  kSandboxViolation,
};

// The protocol name of `kind`, e.g. "illegal_address".
std::string_view FailureKindName(FailureKind kind);

// The kind named `name`; nullopt for a name the protocol does not define.
std::optional<FailureKind> ParseFailureKind(std::string_view name);

}  // namespace kopt
