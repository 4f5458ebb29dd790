// kopt-launcher (src/launcher/kopt_launcher.cc): live collection of a .cu builds it as a shared object
// while ncu already runs this launcher, which initialises CUDA at once and waits for the build; ncu's
// start, its connection to the process and the context creation (about a second on the H200) then
// overlap nvcc instead of following it. profile/ncu_collector.cc drives it; this file holds the
// launcher's contract as kopt sees it:
//
//  - FindProgramLauncher: $KOPT_LAUNCHER when set ("none" switches the overlap off), else
//    kopt-launcher beside the kopt binary, else in ../libexec/ or ../lib/ from it; "" when none.
//  - LauncherArgv: the command ncu runs: {launcher, READY_FILE, PROGRAM.so, args...}.
//  - SharedObjectFlags: the nvcc flags that build a .cu's program as a shared object the launcher can
//    load (position-independent host code; every symbol resolved at link time, so that a missing
//    library is nvcc's link error as it is for an executable). The device code is the same.
//  - WriteReadyFile: tells the waiting launcher how the build ended ("ok", or "failed": it exits
//    with kLauncherBuildFailed without running anything).
//  - LauncherCouldNotLoad: true when ncu's output says the launcher could not load the shared object
//    or found no main in it (exit status 98 or 99): the collection then builds an executable instead.
//  - The warm-up: with KOPT_LAUNCHER_WARMUP=1 in its environment (LauncherWarmupEnvironment) the
//    launcher also launches an empty kernel, kopt_warmup, before it waits, so that ncu sets its
//    profiling up during the build; DropLauncherWarmup removes that launch from a profile.
//
// Thread safety: pure functions, except FindProgramLauncher (reads the environment and the file
// system) and WriteReadyFile (writes one file).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "profile/profile.h"

namespace kopt {

inline constexpr int kLauncherBuildFailed = 96;
inline constexpr int kLauncherNoReadyFile = 97;
inline constexpr int kLauncherNotLoaded = 98;
inline constexpr int kLauncherNoMain = 99;
inline constexpr std::string_view kLauncherWarmupKernel = "kopt_warmup";

std::string FindProgramLauncher();

std::vector<std::string> LauncherArgv(const std::string& launcher, const std::string& ready_file,
                                      const std::string& shared_object,
                                      const std::vector<std::string>& arguments = {});

std::vector<std::string> SharedObjectFlags();

Status WriteReadyFile(const std::string& ready_file, bool build_succeeded);

bool LauncherCouldNotLoad(std::string_view ncu_output);

// True when `program` (an argv) runs kopt-launcher.
bool RunsLauncher(const std::vector<std::string>& program);

std::pair<std::string, std::string> LauncherWarmupEnvironment();

// Whether live collection asks the launcher for its warm-up: yes unless $KOPT_LAUNCHER_WARMUP is "0".
bool LauncherWarmupWanted();

// Removes the launches of kLauncherWarmupKernel; returns how many it removed.
size_t DropLauncherWarmup(Profile& profile);

}  // namespace kopt
