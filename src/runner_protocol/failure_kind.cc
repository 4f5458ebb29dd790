#include "runner_protocol/failure_kind.h"

#include "core/enum_names.h"

namespace kopt {
namespace {

constexpr EnumNameTable<FailureKind, 22> kFailureKindNames = {{
    {FailureKind::kCompileError, "compile_error"},
    {FailureKind::kMissingEntryPoint, "missing_entry_point"},
    {FailureKind::kLoadError, "load_error"},
    {FailureKind::kCrash, "crash"},
    {FailureKind::kTimeout, "timeout"},
    {FailureKind::kIllegalAddress, "illegal_address"},
    {FailureKind::kOutOfMemory, "out_of_memory"},
    {FailureKind::kLaunchFailure, "launch_failure"},
    {FailureKind::kTooManyResources, "too_many_resources"},
    {FailureKind::kUnwrittenOutput, "unwritten_output"},
    {FailureKind::kWrongOutput, "wrong_output"},
    {FailureKind::kPrecisionLoss, "precision_loss"},
    {FailureKind::kConstantOutput, "constant_output"},
    {FailureKind::kInputMutated, "input_mutated"},
    {FailureKind::kStaleOutput, "stale_output"},
    {FailureKind::kSideStream, "side_stream"},
    {FailureKind::kSuspectFast, "suspect_fast"},
    {FailureKind::kDeviceUnavailable, "device_unavailable"},
    {FailureKind::kProtocolViolation, "protocol_violation"},
    {FailureKind::kTimingInconsistent, "timing_inconsistent"},
    {FailureKind::kPolicyViolation, "policy_violation"},
    {FailureKind::kSandboxViolation, "sandbox_violation"},
}};

}  // namespace

std::string_view FailureKindName(FailureKind kind) {
  return EnumName(kFailureKindNames, kind, "unknown");
}

std::optional<FailureKind> ParseFailureKind(std::string_view name) {
  return EnumFromName(kFailureKindNames, name);
}

}  // namespace kopt
