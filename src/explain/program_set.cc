#include "explain/program_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "explain/profile_request.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

bool IsProfileFile(const fs::path& path) {
  std::string extension = path.extension().string();
  return extension == ".csv" || extension == ".ncu-rep";
}

// A directory's programs: its bundle subdirectories when there are any (a CSV beside them is their
// sidecar), else its profile files; in name order.
Result<std::vector<std::string>> ProgramsIn(const std::string& directory, std::string_view command) {
  std::error_code error;
  std::vector<std::string> bundles, files;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    if (entry.is_directory() && IsProfileBundle(entry.path())) bundles.push_back(entry.path().string());
    if (entry.is_regular_file() && IsProfileFile(entry.path())) files.push_back(entry.path().string());
  }
  if (bundles.empty()) bundles = std::move(files);
  if (bundles.empty()) {
    return InvalidInput(fmt::format(
        "{}: {}: the directory holds no profile (*.csv, *.ncu-rep, or a bundle directory with raw.csv)",
        command, directory));
  }
  std::sort(bundles.begin(), bundles.end());
  return bundles;
}

}  // namespace

bool IsProfileBundle(const fs::path& directory) {
  std::error_code error;
  return fs::is_regular_file(directory / "raw.csv", error);
}

Result<std::vector<std::string>> ExpandProgramTargets(const std::vector<std::string>& targets,
                                                      std::string_view command) {
  if (targets.empty())
    return InvalidInput(fmt::format("{}: expected at least one TARGET (a profile or a directory)", command));
  std::vector<std::string> profiles;
  for (const std::string& target : targets) {
    std::error_code error;
    if (!fs::exists(target, error))
      return NotFound(fmt::format("{}: {}: no such file or directory", command, target));
    if (!fs::is_directory(target, error) || IsProfileBundle(target)) {
      profiles.push_back(target);
      continue;
    }
    KOPT_ASSIGN_OR_RETURN(std::vector<std::string> found, ProgramsIn(target, command));
    profiles.insert(profiles.end(), found.begin(), found.end());
  }
  return profiles;
}

Result<std::vector<DiagnosedProgram>> DiagnosePrograms(const std::vector<std::string>& profiles,
                                                       const std::string& kernel_regex,
                                                       const DiagnoseOptions& diagnose_options,
                                                       CommandRunner& runner) {
  std::vector<DiagnosedProgram> programs;
  programs.reserve(profiles.size());
  for (const std::string& path : profiles) {
    std::vector<std::string> notes;
    DiagnosedProgram program;
    KOPT_ASSIGN_OR_RETURN(program.profile,
                          LoadSelectedProfile(RequestFor(path, kernel_regex), runner, notes));
    program.diagnosis = Diagnose(program.profile, diagnose_options);
    program.diagnosis.source = path;
    programs.push_back(std::move(program));
  }
  return programs;
}

}  // namespace kopt
