// The wrapper.cu the compiler builds around a candidate
// (docs/harness-protocol.md §2): the entry point's prototype before the
// candidate's #include (so a mis-typed entry point is a compile error),
// kopt_abi_version, and kopt_launch unpacking the harness's void* arrays.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "core/status.h"
#include "harness/task_spec.h"

namespace kopt {

// The ABI version kopt_abi_version() returns; the runner checks it.
inline constexpr int kWrapperAbiVersion = 1;

// The text of wrapper.cu for `task` around the candidate at
// `candidate_path`. The path must be absolute and must not contain a double
// quote, a backslash or a line break (it is written into an #include line);
// otherwise InvalidInput.
Result<std::string> GenerateWrapperSource(const TaskSpec& task, const std::string& candidate_path);

}  // namespace kopt
