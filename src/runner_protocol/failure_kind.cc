#include "runner_protocol/failure_kind.h"

#include <array>
#include <utility>

namespace kopt {
namespace {

constexpr std::array<std::pair<FailureKind, std::string_view>, 20> kFailureKindNames = {{
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
}};

}  // namespace

std::string_view FailureKindName(FailureKind kind) {
  for (const auto& [entry_kind, name] : kFailureKindNames) {
    if (entry_kind == kind) return name;
  }
  return "unknown";
}

std::optional<FailureKind> ParseFailureKind(std::string_view name) {
  for (const auto& [kind, entry_name] : kFailureKindNames) {
    if (entry_name == name) return kind;
  }
  return std::nullopt;
}

}  // namespace kopt
