// Finding the files kopt installs beside its own executable (its companions: kopt-launcher,
// libkopt_timeline.so, ...).
#ifndef KOPT_CORE_COMPANION_FILE_H_
#define KOPT_CORE_COMPANION_FILE_H_

#include <filesystem>
#include <initializer_list>
#include <string>

namespace kopt {

// The companion's path: the environment variable `environment_variable` when it is set and not
// empty ("none" switches the companion off: returns ""), else the first of `beside_executable`
// (paths relative to the directory of this process's executable, e.g. "kopt-launcher",
// "../lib/libkopt_timeline.so") that is a regular file, lexically normalised; "" when none is.
// The environment's value is returned as it is, unchecked (the caller reports a bad one when it
// uses it). Thread-safe as long as nobody changes the environment meanwhile.
std::string FindCompanionFile(const char* environment_variable,
                              std::initializer_list<std::filesystem::path> beside_executable);

}  // namespace kopt

#endif  // KOPT_CORE_COMPANION_FILE_H_
