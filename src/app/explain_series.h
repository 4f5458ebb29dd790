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
// Profiles are read and diagnosed in parallel (CSV and bundle targets).
// Rendered by report/comparison_renderer.h; --llm adds a checked narrative
// (prompts/sweep/*, prompts/diff/*).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/sweep_analysis.h"
#include "app/explain.h"
#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

// True when `options` asks for a sweep or versions rather than one profile.
bool IsSeriesRequest(const ExplainOptions& options);

Status RunExplainSeries(const ExplainOptions& options, CommandRunner& runner, std::ostream& out,
                        std::ostream& log);

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
