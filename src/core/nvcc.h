// The one nvcc driver: what every nvcc caller shares (harness/compiler.cc
// building candidates, profile/cuda_build.cc building a program to profile,
// measure/calibration.cc building its microbenchmarks): finding nvcc, the
// architecture flag, the `nvcc --version` query, running a command line with
// a CommandRunner (timed, with its display form), and turning a failed build
// into a Status that names the command line and carries nvcc's words.
//
// Contracts: nothing here prints or writes files; every nvcc run goes through
// the given CommandRunner (so tests use FakeCommandRunner). A command that
// cannot be started is the runner's Status, passed through unchanged; a
// command that ran and failed is data (NvccRun) until CheckNvccBuild or the
// caller judges it. The callers' own flags and messages stay theirs: each
// caller builds its argv, and the compile cache key of harness/compiler.cc
// hashes QueryNvccVersion's text verbatim.
//
// Thread safety: all functions are safe to call from several threads when
// the CommandRunner is (SystemCommandRunner is).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

// Where FindNvcc looks after KOPT_NVCC and PATH.
inline constexpr std::string_view kDefaultNvccPath = "/usr/local/cuda/bin/nvcc";

// nvcc's location: `environment_value` (the value of KOPT_NVCC, may be null
// or empty), else nvcc on PATH, else /usr/local/cuda/bin/nvcc. NotFound
// (with the places searched) when none is executable.
Result<std::string> FindNvcc(CommandRunner& runner, const char* environment_value);

// The nvcc flag that builds for `architecture` and nothing else:
// "-arch=sm_80" (sm_80 SASS and compute_80 PTX), "-arch=native" for
// "native". An architecture-specific target ("sm_90a", "sm_100f") is
// "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]": -arch= would also
// build PTX for the plain compute_90, a second front-end pass for code that
// could only run on other GPUs.
std::string NvccArchitectureFlag(std::string_view architecture);

// The single-target flag of a build to profile:
// "-gencode=arch=compute_90a,code=sm_90a" for "sm_90a" (SASS only, no PTX);
// InvalidInput unless the architecture looks like sm_<digits>[suffix].
Result<std::string> GencodeFlagFor(std::string_view architecture);

// `nvcc --version`'s stdout, verbatim (a compile cache key hashes it).
// Unavailable "<nvcc> --version failed (<how it ended>): <stderr>" when it
// runs and fails; the runner's Status when it cannot start.
Result<std::string> QueryNvccVersion(CommandRunner& runner, const std::string& nvcc,
                                     double timeout_seconds = 60);

// One finished nvcc run.
struct NvccRun {
  CommandResult result;      // as the runner returned it (failed runs included)
  std::string command_line;  // CommandLineForDisplay(spec.argv)
  double seconds = 0;        // wall time of the run (s)
};

// Runs `spec` (argv[0] is nvcc) through `runner` and times it. The runner's
// Status when nvcc cannot be started; any run that ended, failed or not, is
// an OK NvccRun.
Result<NvccRun> RunNvcc(CommandRunner& runner, const CommandSpec& spec);

// Judges a build of `source_path` into `output_path`: OK when nvcc succeeded
// and the output exists; otherwise WorkFailed naming the command line
// ("\n$ <command>") and, for a failing compile, nvcc's stdout and stderr:
//   "nvcc timed out after <timeout_seconds> s compiling '<source>'"
//   "'<source>' does not compile (nvcc <how it ended>)"
//   "nvcc reported success but wrote no program at '<output>'"
Status CheckNvccBuild(const NvccRun& run, std::string_view source_path,
                      const std::filesystem::path& output_path, double timeout_seconds);

}  // namespace kopt
