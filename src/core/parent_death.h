// A child that must not outlive the process that started it (kopt-runner,
// a suite's `kopt optimize`): the kernel sends it SIGKILL when its parent
// ends, however the parent ends (kill -9 included), so a resumed run never
// shares the GPU with an orphan that is still timing.
//
// The starter names itself in the child's environment (kParentPidVariable =
// its pid); the child calls DieWithParent first thing. PR_SET_PDEATHSIG fires
// when the thread that started the child ends: start such children from a
// thread that waits for them (CommandRunner::Run does).
//
// Thread safety: call once, early in main, before threads start.
#pragma once

#include <sys/types.h>

#include <string_view>

namespace kopt {

inline constexpr std::string_view kParentPidVariable = "KOPT_PARENT_PID";

// Arms PR_SET_PDEATHSIG(SIGKILL) for this process. When the environment names
// the starter (kParentPidVariable) and that process has already ended (it died
// before the signal was armed), returns false: the caller exits at once.
// Returns true otherwise (also when the variable is absent or malformed: a
// child started by hand).
bool DieWithParent();

}  // namespace kopt
