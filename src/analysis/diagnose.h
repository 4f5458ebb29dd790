// The analysis entry point: a Profile in, a Diagnosis out. Runs stage 1
// (roofline and class) and the stall breakdown for every selected launch.
// Deterministic: the same profile and options give the same diagnosis.
#pragma once

#include <string>

#include "analysis/diagnosis.h"
#include "analysis/roofline.h"
#include "hw/gpu_spec.h"
#include "profile/profile.h"

namespace kopt {

struct DiagnoseOptions {
  RooflineOptions roofline;
  // The spec row to use for ceilings the profile lacks; nullptr: matched from
  // the profile's device name (device__attribute_display_name).
  const GpuSpec* gpu = nullptr;
};

Diagnosis Diagnose(const Profile& profile, const DiagnoseOptions& options);

}  // namespace kopt
