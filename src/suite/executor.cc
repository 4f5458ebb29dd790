#include "suite/executor.h"

#include "core/enum_names.h"

namespace kopt::suite {
namespace {

constexpr EnumNameTable<WorkState, 5> kWorkStateNames = {{
    {WorkState::kQueued, "queued"},
    {WorkState::kRunning, "running"},
    {WorkState::kSucceeded, "succeeded"},
    {WorkState::kFailed, "failed"},
    {WorkState::kCancelled, "cancelled"},
}};

}  // namespace

std::string_view WorkStateName(WorkState state) {
  return EnumName(kWorkStateNames, state, "unknown");
}

bool IsEnded(WorkState state) {
  return state == WorkState::kSucceeded || state == WorkState::kFailed || state == WorkState::kCancelled;
}

}  // namespace kopt::suite
