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
};

// The protocol name of `kind`, e.g. "illegal_address".
std::string_view FailureKindName(FailureKind kind);

// The kind named `name`; nullopt for a name the protocol does not define.
std::optional<FailureKind> ParseFailureKind(std::string_view name);

}  // namespace kopt
