// `kopt calibrate --energy`'s engine (docs/energy.md): measures kernels'
// dynamic energy per launch with NVML and their activity counts with ncu,
// and fits the energy proxy model's coefficients (analysis/energy_model.h).
//
// First every reference and candidate file is compiled on all cores into the
// measurement's cache (the sessions below run one task at a time). Then
// one sample = one kernel source of a task (its reference, or a candidate):
//  1. energy: `Measure` with energy on (kopt-runner: idle power, then three
//     NVML windows >= 1 s of back-to-back launches, L2 hot; dynamic = joules
//     above idle per launch), and the median time;
//  2. counts: the same source alone under ncu (measure/candidate_profiler.h)
//     collecting only the model's metrics (EnergyModelMetrics), caches
//     flushed before the launch: the energy windows rotate input sets as
//     timing does, so a launch finds no input in L2; the counts of one call
//     are summed over its kernels.
// Resumable: measurements come from the workspace under the work directory
// (same source, GPU and settings: measure/measure.h), profiles from the
// bundles the profiler left there (same source), so a calibration cut short
// runs again from where it stopped with the same --work-dir.
// A sample whose energy is unavailable (no NVML, counter did not advance) or
// whose source fails is not an error: it is skipped with a note naming it.
//
// The calibration set: the probes of energy_probes.cu (embedded at build
// time; each exercises one or two terms) written as one task each under the
// work directory, plus the references of the tasks given (the example
// tasks). The fit needs at least as many samples as exercised terms.
//
// Thread safety: one calibration at a time per work directory; children run
// through the environment's CommandRunner.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/energy_model.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "hw/energy_coefficients.h"
#include "hw/gpu_spec.h"

namespace kopt {

// One probe of energy_probes.cu: its number (KOPT_ENERGY_PROBE), its size.
struct EnergyProbe {
  std::string name;       // "fp64_fma"
  int number = 0;         // KOPT_ENERGY_PROBE
  long long n = 0;        // elements of x and y
  int iterations = 0;     // the probe's loop count
  std::string exercises;  // "FP64 pipe"
};
const std::vector<EnergyProbe>& EnergyProbes();

// The probe's whole source (the define, then the embedded file).
std::string EnergyProbeSource(const EnergyProbe& probe);
// Writes <directory>/task.toml and reference.cu of the probe's task.
Status WriteEnergyProbeTask(const EnergyProbe& probe, const std::string& directory);

// One kernel to sample: a task's reference (candidate_path empty) or a candidate file.
struct EnergySubject {
  std::string name;  // "gelu/reference", "probe/fp64_fma", "gelu/gelu_vec4"
  std::string task_directory;
  std::string candidate_path;  // empty: the task's reference
  std::string source;          // the candidate's text when not read from candidate_path ("" : read it)
};

struct EnergyCalibrationSettings {
  std::string work_directory;                 // required, must exist: probe tasks, workspace, profiles
  std::vector<std::string> task_directories;  // their references join the probes in the fit
  bool probes = true;                         // include the probes
  std::string architecture;                   // "sm_90a"; empty: from the GPU
  int device = 0;
  double timeout_seconds = 600;  // per child
};

struct EnergyCalibrationEnvironment {
  CommandRunner* command_runner = nullptr;                   // borrowed, required
  std::function<Result<std::vector<GpuSpec>>()> query_gpus;  // QueryLiveGpus in kopt
  std::string runner_program;                                // kopt-runner; empty: FindRunnerProgram()
  std::function<std::string()> now_utc;
  std::function<void(std::string_view)> progress;  // "measuring probe/fp64_fma (3/27)"; may be empty
};

// Samples `subjects` (rule above). Subjects that could not be sampled are
// named in `notes`. Errors: Unavailable without a GPU or ncu.
Result<std::vector<EnergySample>> MeasureEnergySamples(const std::vector<EnergySubject>& subjects,
                                                       const EnergyCalibrationSettings& settings,
                                                       const EnergyCalibrationEnvironment& environment,
                                                       std::vector<std::string>& notes);

struct EnergyCalibrationResult {
  EnergyCoefficients coefficients;
  std::vector<EnergySample> samples;
  std::vector<std::string> notes;
  std::string gpu_name;
};

// The probes' tasks written, every subject sampled, the coefficients fitted.
Result<EnergyCalibrationResult> RunEnergyCalibration(const EnergyCalibrationSettings& settings,
                                                     const EnergyCalibrationEnvironment& environment);

// Samples as JSON ({"schema": "kopt.energy_samples/1", "gpu", "samples": [{"name",
// "measured_dynamic_joules", "seconds_per_launch", "counts": {term: count}}]}) and back,
// so a fit or a validation can be redone from a capture. Parse errors name `source` and the field.
nlohmann::json EnergySamplesToJson(const std::vector<EnergySample>& samples, std::string_view gpu_name);
Result<std::vector<EnergySample>> EnergySamplesFromJson(const nlohmann::json& json, std::string_view source);

}  // namespace kopt
