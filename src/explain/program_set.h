// A set of programs as `kopt plan` and `kopt ask --plan` read it: each TARGET
// is one program's profile (anything `kopt explain` reads: a CSV export, a
// bundle directory, an .ncu-rep report), or a directory of them (its bundle
// subdirectories when it has any, else its *.csv and *.ncu-rep files, in name
// order, each one program). Every profile is loaded, its launches selected by
// the kernel regex, and diagnosed.
//
// Errors: no target, a missing path (NotFound), a directory without a profile
// or an unreadable profile (InvalidInput), each naming the path and prefixed
// with the command that asked ("kopt plan: ...").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/diagnosis.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "profile/profile.h"

namespace kopt {

// A bundle directory: one profile's files, its raw page `raw.csv` among them.
bool IsProfileBundle(const std::filesystem::path& directory);

// The profiles the targets name, one per program, in order.
Result<std::vector<std::string>> ExpandProgramTargets(const std::vector<std::string>& targets,
                                                      std::string_view command);

struct DiagnosedProgram {
  Profile profile;
  Diagnosis diagnosis;  // its `source` is the profile's path
};

// Loads and diagnoses every profile of `profiles` (ExpandProgramTargets' answer).
Result<std::vector<DiagnosedProgram>> DiagnosePrograms(const std::vector<std::string>& profiles,
                                                       const std::string& kernel_regex,
                                                       const DiagnoseOptions& diagnose_options,
                                                       CommandRunner& runner);

}  // namespace kopt
