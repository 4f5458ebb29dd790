// The names a task may give its tensors and scalars (docs/task-format.md):
// a C identifier that is not a C/C++ keyword nor one of the wrapper's
// parameter names (stream, tensors, scalars). The task parser
// (task_spec_toml.cc) and generators of task files (kernelbench_task.cc)
// share this one definition.
//
// Thread safety: a pure function.
#pragma once

#include <string_view>

namespace kopt {

bool IsAllowedTensorName(std::string_view name);

}  // namespace kopt
