// The warp-stall breakdown of one launch, from ncu's per-issue stall metrics
// (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio, the
// WarpStateStats section). Each reason's share is its fraction of the sum over
// all reasons, which approximates the cycles between two issues of a warp.
#pragma once

#include <vector>

#include "analysis/diagnosis.h"
#include "profile/kernel_launch.h"

namespace kopt {

// Reasons with a non-zero value, largest first; empty when not collected.
std::vector<StallReason> ExtractStallReasons(const KernelLaunch& launch);

// The reasons ncu reports on sm_90 ("gmma" is Hopper-only).
const std::vector<std::string>& StallReasonNames();

}  // namespace kopt
