#include "analysis/version_comparison.h"

#include <algorithm>
#include <numeric>

namespace kopt {

Result<VersionSeries> CompareVersions(const std::vector<VersionInput>& versions,
                                      const ComparisonOptions& options) {
  if (versions.size() < 2) return InvalidInput("versions: give at least two profiles to rank");
  VersionSeries series;
  for (size_t i = 0; i + 1 < versions.size(); ++i) {
    KOPT_ASSIGN_OR_RETURN(ProfileComparison step,
                          CompareProfiles(versions[i].profile, versions[i + 1].profile, options));
    if (i == 0) series.total_ns.push_back(step.total_before_ns);
    series.total_ns.push_back(step.total_after_ns);
    series.steps.push_back(std::move(step));
  }
  for (const VersionInput& version : versions) series.labels.push_back(version.label);
  series.ranking.resize(versions.size());
  std::iota(series.ranking.begin(), series.ranking.end(), 0);
  std::stable_sort(series.ranking.begin(), series.ranking.end(),
                   [&](size_t a, size_t b) { return series.total_ns[a] < series.total_ns[b]; });
  return series;
}

}  // namespace kopt
