#include "analysis/collection_settings.h"

#include "analysis/collection_metrics.h"
#include "core/text.h"
#include "profile/launch_trace_collection.h"
#include "profile/program_launcher.h"

namespace kopt {
namespace {

// The ncu half, shared by both option structs (their fields have the same names and meanings).
template <typename Options>
void ApplyNcuHalf(const CollectionSettings& settings, Options& options) {
  options.section_set = settings.section_set;
  options.metrics.clear();
  options.sections.clear();
  if (!settings.metrics.empty()) {
    options.metrics = settings.metrics;
    return;
  }
  if (settings.section_set != kTargetedCollection) return;
  for (std::string_view metric : TargetedCollectionMetrics()) options.metrics.emplace_back(metric);
  for (std::string_view section : TargetedCollectionSections()) options.sections.emplace_back(section);
  options.write_report = false;  // ncu prints the raw page: one ncu process
}

}  // namespace

void ApplyCollectionSettings(const CollectionSettings& settings, CollectionOptions& options) {
  ApplyNcuHalf(settings, options);
}

void ApplyCollectionSettings(const CollectionSettings& settings, ProfileSources& sources) {
  ApplyNcuHalf(settings, sources);
  sources.launches_per_configuration = settings.launches_per_configuration;
  if (!IsLiveCollection(sources)) return;
  if (settings.timeline) sources.timeline_library = FindTimelineLibrary();
  if (EndsWith(sources.target, ".cu")) {
    sources.launcher = FindProgramLauncher();
    sources.launcher_warmup = LauncherWarmupWanted();
  }
}

}  // namespace kopt
