// A profile bundle: every profiled launch of one program, plus the static
// facts (SASS listing, ptxas report) of the code they ran, when collected.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profile/kernel_launch.h"
#include "profile/launch_trace.h"
#include "profile/ncu_source_page.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {

// One file a profile was read from, and what it was read as.
struct ProfileInput {
  std::string path;
  std::string role;    // "raw page", "details page", "SASS listing", "ptxas report", "source page", "report"
  std::string origin;  // "given" (the target or an option), "found beside the profile", "collected"
};

struct Profile {
  std::string source;                  // where it came from: a file path or "ncu ./app"
  std::vector<KernelLaunch> launches;  // in profiling order; the ones to diagnose
  // Every launch read, before any kernel or launch selection: the program's
  // launch timeline (launch counts, durations). Empty: same as `launches`.
  std::vector<KernelLaunch> all_launches;
  std::optional<SassListing> sass;       // absent unless collected or given
  std::optional<PtxasReport> ptxas;      // absent unless collected or given
  std::vector<SourcePage> source_pages;  // ncu source page per kernel, when collected or given
  // The program's CUPTI launch timeline (every launch, measured without ncu),
  // when collected (live collection with libkopt_timeline.so) or found beside
  // the profile (timeline*.jsonl in the bundle directory).
  std::optional<LaunchTrace> trace;
  std::vector<ProfileInput> inputs;  // every file read, in reading order (the reports list them)
};

}  // namespace kopt
