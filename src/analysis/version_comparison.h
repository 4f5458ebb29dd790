// `kopt explain v1 v2 v3 …`: versions of one operation (different kernels,
// same task) ranked by time, with a diff for each consecutive pair in the
// order given (v1 → v2, v2 → v3, …), as `kopt diff` makes it.
//
// Thread safety: pure function of its inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "analysis/profile_comparison.h"
#include "core/status.h"
#include "profile/profile.h"

namespace kopt {

struct VersionInput {
  std::string label;  // the target as given
  Profile profile;
};

struct VersionSeries {
  std::vector<std::string> labels;       // in the order given
  std::vector<double> total_ns;          // every selected launch of each version
  std::vector<size_t> ranking;           // indices, fastest first
  std::vector<ProfileComparison> steps;  // steps[i]: labels[i] → labels[i + 1]
  std::optional<Narrative> narrative;
};

// InvalidInput when fewer than two versions are given, or a step's pairing fails.
Result<VersionSeries> CompareVersions(const std::vector<VersionInput>& versions,
                                      const ComparisonOptions& options);

}  // namespace kopt
