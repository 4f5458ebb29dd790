// Profiling one candidate of a task (the optimization loop's profiling
// agent profiles a verified node lazily, before its first optimize child:
// profiling costs more than measuring).
//
// One interface; the implementation for a real GPU (ncu_candidate_profiler.cc)
// compiles the candidate through the harness's compiler (cached: the
// measurement's build), writes a kopt-runner request that runs the candidate
// alone (no reference, no correctness rounds, one timed sample) and runs it
// under ncu with NcuProfilerSettings::collection (profile/ncu_collector.h), so every kernel in the
// profile is the candidate's. Tests use a fake returning a fixture profile.
//
// Errors: Unavailable (no ncu, no GPU), PermissionDenied (counters),
// WorkFailed (the candidate failed under ncu, or launched no kernel).
// Thread safety: ProfileCandidate may be called from several threads when the
// devices differ.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/collection_settings.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "profile/profile.h"

namespace kopt {

struct CandidateProfileRequest {
  std::string name;    // for file names: unique per run ("n7")
  std::string source;  // the candidate's CUDA text
  int device = 0;      // CUDA ordinal
};

class CandidateProfiler {
 public:
  virtual ~CandidateProfiler() = default;
  // `notes` receives what the user should know that did not stop it.
  virtual Result<Profile> ProfileCandidate(const CandidateProfileRequest& request,
                                           std::vector<std::string>& notes) = 0;
};

struct NcuProfilerSettings {
  std::string task_directory;
  std::string work_directory;   // where bundles go: <work>/<name>/ (kept)
  std::string cache_directory;  // the compiler's cache (the measurement's: <workspace>/compile-cache)
  std::string architecture;     // "sm_90a"
  std::vector<std::string> extra_flags;  // nvcc flags after the standard ones (the measurement's -I flags)
  std::string runner_program;            // kopt-runner
  // What ncu collects (analysis/collection_settings.h: its section set, or
  // only its metrics); the timeline and the sampling are unused (the child
  // is profiled whole, launch_count bounding it).
  CollectionSettings collection;
  std::string cache_control = "all";  // ncu --cache-control
  long long launch_count = 8;         // kernels profiled at most per candidate
  double timeout_seconds = 600;
};

// The real profiler. `command_runner` is borrowed.
Result<std::unique_ptr<CandidateProfiler>> MakeNcuCandidateProfiler(const NcuProfilerSettings& settings,
                                                                    CommandRunner& command_runner);

}  // namespace kopt
