// `kopt explain` over many profiles (docs/diff.md):
//  - a sweep, `--sweep NAME`: TARGET (and more targets) a directory of
//    profiles, a glob, or one multi-kernel export; each profile (each launch
//    of an export) is one point, its value of NAME read from a CSV sidecar
//    (--sweep-values FILE, else sweep.csv in the directory), from its file
//    name ("n=1048576_block=256.csv", or the bundle directory's name), or from
//    its launch configuration (block, grid, …; analysis/sweep_analysis.h);
//  - versions, two or more targets without --sweep: versions of one
//    operation ranked by time, each consecutive pair explained as `kopt diff`
//    explains it (analysis/version_comparison.h).
// Every target is loaded through the settings' ProfileRequest (its
// selection and live collection settings; RequestForTarget). Profiles are
// read and diagnosed in parallel (CSV and bundle targets). Renders nothing
// (report/comparison_renderer.h does); llm.narrative adds a checked narrative
// (prompts/sweep/*, prompts/diff/*) that never fails the call.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/sweep_analysis.h"
#include "analysis/version_comparison.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "explain/explain.h"
#include "llm/log_sink.h"

namespace kopt {

// The many-profile half of `kopt explain`'s request.
struct SeriesRequest {
  std::vector<std::string> more_targets;  // the targets after the first
  std::string sweep;                      // --sweep NAME: the swept parameter; empty: versions
  std::string sweep_values_path;          // --sweep-values FILE (default: sweep.csv in or beside the target)
};

// True when the request is a sweep or versions rather than one profile: a
// --sweep, more than one target, a glob matching no file of its name, or a
// directory that is no bundle.
bool IsSeriesRequest(const ProfileRequest& profile, const SeriesRequest& series);

// The sweep over settings.profile.target and series.more_targets.
// `check_inputs`, when set, sees every file read before any analysis (ExplainEnvironment::check_inputs).
Result<SweepAnalysis> ExplainSweep(const ExplainSettings& settings, const SeriesRequest& series,
                                   CommandRunner& runner, llm::LogSink* llm_log,
                                   const InputCheck& check_inputs = nullptr);

// Two or more versions ranked, consecutive pairs compared; InvalidInput for one.
Result<VersionSeries> ExplainVersions(const ExplainSettings& settings, const SeriesRequest& series,
                                      CommandRunner& runner, llm::LogSink* llm_log,
                                      const InputCheck& check_inputs = nullptr);

// Every profile a target names: a glob's matches, a directory's profiles
// (its *.csv files other than sweep.csv and companion files, and its
// subdirectories holding raw.csv), or the target itself; sorted by name
// within each target. NotFound when a target names no profile.
Result<std::vector<std::string>> ExpandProfileTargets(const std::vector<std::string>& targets);

// A sweep sidecar: a CSV whose header has a key column ("file", "profile" or
// "launch") and numeric parameter columns. Keys: file names (with or without
// directories) or launch IDs. InvalidInput naming the file, line and column.
Result<std::map<std::string, std::map<std::string, double>>> ReadSweepSidecar(const std::string& path);

// The sweep points of loaded profiles: one per profile, or one per launch
// when a single profile holds several. Exposed for tests and bench/.
struct LoadedSweepProfile {
  std::string path;
  Profile profile;
};
std::vector<SweepPointInput> SweepPointsOf(
    const std::vector<LoadedSweepProfile>& profiles,
    const std::map<std::string, std::map<std::string, double>>& sidecar, const std::string& parameter,
    const DiagnoseOptions& diagnose);

}  // namespace kopt
