// Energy per launch in kopt-runner (docs/harness-protocol.md §3 `energy`;
// measurement.md §4-5). CUDA runtime and NVML code: kopt-runner only.
//
// MeasureEnergy, for one candidate already checked (and usually timed):
//  1. idle power: with the GPU idle (device synchronized), the cumulative
//     energy counter (nvmlDeviceGetTotalEnergyConsumption, mJ) is read at one
//     of its updates and again at the first update after idle_seconds;
//     idle W = delta / time between the two updates. Waiting for an update
//     ("edge") at both ends removes the counter's ~100 ms quantisation;
//  2. a 0.2 s warm-up of back-to-back launches (clocks rise again);
//  3. `windows` windows (default 3) of back-to-back launches, each from a
//     counter update to the first update after window_seconds. Launches are
//     queued in batches of about 5 ms of GPU time, one batch always queued
//     ahead while the host waits for the previous one, so the GPU never
//     idles; the counter and the instantaneous power (NVML field 186, about
//     every 10 ms) are read between batches. A window's launches are those
//     that completed between its two updates (error at most one batch per
//     end). Input sets rotate as in timing;
//  4. per window joules / launches; their mean and Bessel stdev; dynamic
//     energy (joules - idle W x window time) / launches; mean power; the
//     mean instantaneous power as a cross-check (SummarizeEnergy).
// The windows are hot (no L2 flush): energy of the kernel run back to back.
//
// Never changes clocks or power settings. NVML missing or failing gives an
// EnergyMeasurement with available = false and the reason, not an error; a
// CUDA error (the candidate's launches) is returned as a Status
// (KOPT_CUDA_CHECK, so FailureForStatus recovers its kind).
//
// Time cost: about idle_seconds + 0.2 + windows x (window_seconds + 0.1) s.
// Thread safety: one call at a time per device.
#pragma once

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "harness/energy_statistics.h"
#include "hw/nvml.h"
#include "runner/timer.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

struct EnergyContext {
  cudaStream_t stream = nullptr;
  int input_sets = 1;
  const NvmlDevice* nvml = nullptr;     // null when NVML is unavailable
  std::string nvml_unavailable_reason;  // why nvml is null (LoadNvml/Open's message)
  // Seconds per launch, e.g. the timing median; <= 0: measured here from 10 launches.
  double seconds_per_launch_estimate = 0;
};

struct EnergyOptions {
  double window_seconds = 1.0;  // each window lasts at least this long (≥ 1 s: the counter is coarse)
  double idle_seconds = 1.0;
  int windows = 3;
  double batch_seconds = 0.005;  // GPU time per queued batch
  double warmup_seconds = 0.2;
};

// The request's window_seconds and idle_seconds over the defaults above.
EnergyOptions EnergyOptionsFrom(const EnergyRequest& request);

struct EnergyMeasurement {
  bool available = false;
  std::string reason;  // when not available
  EnergySummary summary;
  std::vector<EnergyWindow> windows;
  int64_t launches_per_batch = 0;
  double temperature_before_c = 0, temperature_after_c = 0;  // 0 when not read

  // The protocol's event struct (RunnerEventToJson serializes it).
  EnergyEvent ToEvent() const;
  // {"event": "energy", <protocol fields>, <extras: launches_per_batch,
  //  temperature_before_c, temperature_after_c, window_seconds (list)>}.
  nlohmann::json ToJson() const;
};

// An unavailable measurement with `reason`.
EnergyMeasurement EnergyUnavailable(std::string reason);

Result<EnergyMeasurement> MeasureEnergy(const LaunchFunction& launch, const EnergyContext& context,
                                        const EnergyOptions& options);

}  // namespace kopt::runner
