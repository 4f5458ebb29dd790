// kopt-launcher's contract as kopt sees it. See program_launcher.h.
#include "profile/program_launcher.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/companion_file.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLauncherName = "kopt-launcher";

}  // namespace

std::string FindProgramLauncher() {
  return FindCompanionFile("KOPT_LAUNCHER", {kLauncherName, fs::path("..") / "libexec" / kLauncherName,
                                             fs::path("..") / "lib" / kLauncherName});
}

std::vector<std::string> LauncherArgv(const std::string& launcher, const std::string& ready_file,
                                      const std::string& shared_object,
                                      const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {launcher, ready_file, shared_object};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return argv;
}

std::vector<std::string> SharedObjectFlags() {
  return {"-shared", "-Xcompiler", "-fPIC", "-Xlinker", "-zdefs"};
}

Status WriteReadyFile(const std::string& ready_file, bool build_succeeded) {
  // Written under another name and renamed: the launcher never reads a half-written file.
  std::string partial = ready_file + ".partial";
  {
    std::ofstream stream(partial, std::ios::trunc);
    stream << (build_succeeded ? "ok" : "failed") << "\n";
    if (!stream) return WorkFailed("cannot write " + partial + " (is the work directory writable?)");
  }
  std::error_code error;
  fs::rename(partial, ready_file, error);
  if (error) return WorkFailed("cannot rename " + partial + " to " + ready_file + ": " + error.message());
  return Status::Ok();
}

bool LauncherCouldNotLoad(std::string_view ncu_output) {
  bool not_loaded = ncu_output.find("kopt-launcher: cannot load") != std::string::npos;
  bool no_main = ncu_output.find("kopt-launcher: ") != std::string::npos &&
                 ncu_output.find(" has no main") != std::string::npos;
  return not_loaded || no_main;
}

bool RunsLauncher(const std::vector<std::string>& program) {
  return program.size() >= 3 && fs::path(program.front()).filename() == kLauncherName;
}

std::pair<std::string, std::string> LauncherWarmupEnvironment() {
  return {"KOPT_LAUNCHER_WARMUP", "1"};
}

bool LauncherWarmupWanted() {
  const char* configured = std::getenv("KOPT_LAUNCHER_WARMUP");
  return !(configured && std::string_view(configured) == "0");
}

size_t DropLauncherWarmup(Profile& profile) {
  size_t before = profile.launches.size();
  std::erase_if(profile.launches,
                [](const KernelLaunch& launch) { return launch.FunctionName() == kLauncherWarmupKernel; });
  return before - profile.launches.size();
}

}  // namespace kopt
