#include "analysis/diagnose.h"

#include <fmt/format.h>

#include "analysis/stalls.h"

namespace kopt {
namespace {

const GpuSpec* SpecFor(const Profile& profile, const DiagnoseOptions& options, std::string& device_name) {
  for (const KernelLaunch& launch : profile.launches) {
    if (auto name = launch.Text("device__attribute_display_name")) {
      device_name = *name;
      break;
    }
  }
  if (options.gpu) return options.gpu;
  return device_name.empty() ? nullptr : FindGpu(device_name);
}

KernelDiagnosis DiagnoseLaunch(const KernelLaunch& launch, const GpuSpec* spec, const DiagnoseOptions& options) {
  KernelDiagnosis kernel;
  kernel.launch_id = launch.launch_id;
  kernel.kernel_name = launch.kernel_name;
  kernel.function_name = launch.FunctionName();
  kernel.grid = launch.grid;
  kernel.block = launch.block;
  kernel.registers_per_thread = launch.Metric("launch__registers_per_thread");
  kernel.shared_memory_per_block_bytes = launch.Metric("launch__shared_mem_per_block");
  kernel.roofline = AnalyzeRoofline(launch, spec, options.roofline);
  kernel.stalls = ExtractStallReasons(launch);
  if (kernel.stalls.empty()) {
    kernel.notes.push_back("No warp-stall metrics: collect with ncu --set full (or --section WarpStateStats) for "
                           "the stall breakdown.");
  }
  if (!kernel.roofline.missing_metrics.empty()) {
    kernel.notes.push_back(fmt::format("{} metric(s) that stage 1 uses are absent from this profile; ncu --set full "
                                       "collects them.",
                                       kernel.roofline.missing_metrics.size()));
  }
  return kernel;
}

}  // namespace

Diagnosis Diagnose(const Profile& profile, const DiagnoseOptions& options) {
  Diagnosis diagnosis;
  diagnosis.source = profile.source;
  const GpuSpec* spec = SpecFor(profile, options, diagnosis.device_name);
  if (spec) {
    diagnosis.gpu = *spec;
  } else {
    diagnosis.notes.push_back(fmt::format("Device \"{}\" is not in kopt's GPU table; ceilings come from the profile "
                                          "alone (kopt gpus lists the table).",
                                          diagnosis.device_name.empty() ? "unknown" : diagnosis.device_name));
  }
  for (const KernelLaunch& launch : profile.launches) {
    diagnosis.kernels.push_back(DiagnoseLaunch(launch, spec, options));
  }
  return diagnosis;
}

}  // namespace kopt
