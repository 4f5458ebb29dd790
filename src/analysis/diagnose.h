// The analysis entry point: a Profile in, a Diagnosis out. Runs stage 1
// (roofline and class), the stall breakdown, and stage 2 (every relevant
// micro-profiling tool, analysis/orchestrator.h) once per group of repeated
// launches (one kernel, one grid and block: analysis/launch_timeline.h), on the
// group's median-duration launch; KernelDiagnosis::launches gives the group's
// size and duration spread. Time and memory linear in the launches.
// Deterministic: the same profile and options give the same diagnosis.
#pragma once

#include <string>

#include "analysis/diagnosis.h"
#include "analysis/orchestrator.h"
#include "analysis/roofline.h"
#include "hw/ceilings_table.h"
#include "hw/energy_coefficients.h"
#include "hw/gpu_spec.h"
#include "profile/profile.h"

namespace kopt {

struct DiagnoseOptions {
  RooflineOptions roofline;
  // The spec row to use for ceilings the profile lacks; nullptr: matched from
  // the profile's device name (device__attribute_display_name).
  const GpuSpec* gpu = nullptr;
  OrchestrationOptions tools;  // threshold overrides for the micro-profiling tools
  // The measured ceilings of the profile's GPU (`kopt calibrate`); nullptr: the
  // peaks alone. Explain finds it by the GPU name (hw/ceilings_table.h).
  const CeilingsTable* ceilings = nullptr;
  // The energy model's coefficients for the profile's GPU (hw/energy_coefficients.h;
  // explain finds them with FindEnergyCoefficients); nullptr: no energy section
  // and no energy savings (analysis/energy_analysis.h).
  const EnergyCoefficients* energy_coefficients = nullptr;
};

Diagnosis Diagnose(const Profile& profile, const DiagnoseOptions& options);

}  // namespace kopt
