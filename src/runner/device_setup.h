// Opens the requested CUDA device for kopt-runner: checks that a device and a
// driver exist, makes the device current, describes it (the `device` event),
// creates the harness stream, sets the device's default memory pool to keep
// the memory it has mapped (release threshold UINT64_MAX: cudaMallocAsync
// scratch costs the same on every call), and opens NVML for it when asked.
//
// Errors: no device, no driver, a stub library, an ordinal beyond the
// device count: a Status whose failure kind (FailureForStatus) is
// device_unavailable.
//
// Ownership: DeviceSetup owns the stream (destroyed with the process) and
// the NVML session. Thread safety: call once, on the main thread.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "core/status.h"
#include "hw/nvml.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

struct DeviceSetup {
  int ordinal = 0;
  DeviceEvent event;                 // name, compute capability, L2 and memory bytes, max SM clock, nvml
  cudaStream_t stream = nullptr;     // the harness stream (non-blocking: work on the legacy
                                     // default stream does not join it, so side streams show)
  std::unique_ptr<NvmlDevice> nvml;  // null when not asked for or unavailable
  std::string nvml_unavailable_reason;
};

// `open_nvml`: open NVML (timing and energy use it); failure to open is
// recorded in nvml_unavailable_reason, not an error.
Result<DeviceSetup> SetUpDevice(int ordinal, bool open_nvml);

}  // namespace kopt::runner
