#include "analysis/stalls.h"

#include <fmt/format.h>

#include <algorithm>

namespace kopt {

const std::vector<std::string>& StallReasonNames() {
  static const std::vector<std::string> kNames = {"barrier",
                                                  "branch_resolving",
                                                  "dispatch_stall",
                                                  "drain",
                                                  "gmma",
                                                  "imc_miss",
                                                  "lg_throttle",
                                                  "long_scoreboard",
                                                  "math_pipe_throttle",
                                                  "membar",
                                                  "mio_throttle",
                                                  "misc",
                                                  "no_instruction",
                                                  "not_selected",
                                                  "selected",
                                                  "short_scoreboard",
                                                  "sleeping",
                                                  "tex_throttle",
                                                  "wait"};
  return kNames;
}

std::vector<StallReason> ExtractStallReasons(const KernelLaunch& launch) {
  std::vector<StallReason> reasons;
  double total = 0;
  for (const std::string& name : StallReasonNames()) {
    auto value =
        launch.Metric(fmt::format("smsp__average_warps_issue_stalled_{}_per_issue_active.ratio", name));
    if (!value || *value <= 0) continue;
    reasons.push_back(StallReason{name, *value, 0});
    total += *value;
  }
  for (StallReason& reason : reasons) reason.share = reason.cycles_per_issue / total;
  std::stable_sort(reasons.begin(), reasons.end(), [](const StallReason& a, const StallReason& b) {
    return a.cycles_per_issue > b.cycles_per_issue;
  });
  return reasons;
}

}  // namespace kopt
