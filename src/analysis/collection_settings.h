// How a live collection collects: the settings a user chooses (`--set`,
// `--launches-per-kernel`, `--timeline none`) in one struct with the one
// default of each, and the one place that turns them into the profile
// layer's options (ProfileSources for explain, diff, versions and sweeps;
// CollectionOptions for the candidate profiler).
//
// Thread safety: pure functions, except that ApplyCollectionSettings on a
// ProfileSources reads the environment and the file system to find
// libkopt_timeline.so and kopt-launcher (profile/launch_trace_collection.h,
// profile/program_launcher.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profile/ncu_collector.h"
#include "profile/profile_loader.h"

namespace kopt {

// `--set targeted`: the collection analysis/collection_metrics.h describes.
inline constexpr std::string_view kTargetedCollection = "targeted";

struct CollectionSettings {
  // "targeted" (the default): the metrics and sections kopt's analysis reads
  // (analysis/collection_metrics.h), one ncu process that prints the raw page
  // and writes no report; else an ncu section set ("full", "detailed", …:
  // ncu --set) written to a report whose raw and source pages are exported.
  std::string section_set = std::string(kTargetedCollection);
  // When not empty: exactly these metrics (ncu --metrics) and no sections,
  // written to a report; section_set is then unused (the energy model's
  // collection, measure/energy_calibration.h).
  std::vector<std::string> metrics;
  // Live collection of a program or a .cu: the program first runs once under
  // libkopt_timeline.so for the launch timeline (when the library is found),
  // and ncu then profiles the first `launches_per_configuration` launches of
  // each launch configuration (0: every launch; docs/live-collection.md).
  bool timeline = true;
  long long launches_per_configuration = 3;
};

// What ncu collects: section set, metrics, sections and whether a report is
// written. The timeline and the sampling are not set: the candidate profiler
// profiles a kopt-runner child whole.
void ApplyCollectionSettings(const CollectionSettings& settings, CollectionOptions& options);

// The same for a profile source; for a live target (IsLiveCollection) also
// the timeline library (settings.timeline) and the launches per
// configuration, and for a .cu target kopt-launcher with its warm-up.
void ApplyCollectionSettings(const CollectionSettings& settings, ProfileSources& sources);

}  // namespace kopt
