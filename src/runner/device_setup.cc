#include "runner/device_setup.h"

#include <fmt/format.h>

#include <cstdint>
#include <future>

#include "runner/cuda_check.h"

namespace kopt::runner {
namespace {

Status CheckOrdinal(int ordinal) {
  int count = 0;
  KOPT_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (ordinal >= count) {
    // Recorded as a CUDA failure so that FailureForStatus gives device_unavailable.
    Status status = KOPT_CUDA_STATUS(cudaErrorInvalidDevice);
    return status.WithContext(
        fmt::format("device {} requested; this machine has {} CUDA device(s)", ordinal, count));
  }
  return Status::Ok();
}

Result<DeviceEvent> DescribeDevice(int ordinal) {
  cudaDeviceProp properties{};
  KOPT_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));
  int clock_khz = 0;
  KOPT_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal));
  DeviceEvent event;
  event.name = properties.name;
  event.compute_capability = fmt::format("{}.{}", properties.major, properties.minor);
  event.l2_bytes = properties.l2CacheSize;
  event.memory_bytes = static_cast<int64_t>(properties.totalGlobalMem);
  event.sm_clock_max_mhz = clock_khz / 1000.0;
  return event;
}

// What opening NVML gave: the device, or why there is none.
struct NvmlOpening {
  std::unique_ptr<NvmlDevice> device;
  std::string unavailable_reason;
};

NvmlOpening OpenNvml(int ordinal) {
  char bus_id[64] = {};
  Status bus = KOPT_CUDA_STATUS(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal));
  if (!bus.ok()) return {nullptr, bus.message()};
  Result<std::unique_ptr<NvmlDevice>> nvml = NvmlDevice::OpenByPciBusId(kNvmlLibrary, bus_id);
  if (!nvml.ok()) return {nullptr, nvml.status().message()};
  return {std::move(nvml).value(), ""};
}

void AdoptNvml(NvmlOpening opening, DeviceSetup& setup) {
  setup.nvml = std::move(opening.device);
  setup.nvml_unavailable_reason = std::move(opening.unavailable_reason);
  if (setup.nvml == nullptr) return;
  if (Result<double> maximum = setup.nvml->MaxSmClockMhz(); maximum.ok() && *maximum > 0) {
    setup.event.sm_clock_max_mhz = *maximum;
  }
  setup.event.nvml = true;
}

// The stream-ordered allocator keeps what it has mapped: with the default
// release threshold (0) the driver unmaps a pool's free memory at every
// synchronization, so an honest candidate that takes scratch with
// cudaMallocAsync and gives it back with cudaFreeAsync on the harness stream
// pays a remap on every call, inside the device-wide bracket only (measured on
// the H200, 2026-11-30: 53 us of host time in cudaDeviceSynchronize against a
// 139 us event median), and the side-stream check reads that as escaped work.
// Frameworks set the threshold the same way (PyTorch's caching allocator never
// unmaps); the memory stays the process's until it exits.
Status RetainStreamOrderedMemory(int ordinal) {
  cudaMemPool_t pool = nullptr;
  KOPT_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, ordinal));
  uint64_t threshold = UINT64_MAX;
  KOPT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  return Status::Ok();
}

}  // namespace

Result<DeviceSetup> SetUpDevice(int ordinal, bool open_nvml) {
  KOPT_RETURN_IF_ERROR(CheckOrdinal(ordinal));
  DeviceSetup setup;
  setup.ordinal = ordinal;
  // NVML opens on another thread while this one creates the CUDA context
  // (each takes tens of milliseconds; every candidate's child pays both).
  std::future<NvmlOpening> nvml;
  if (open_nvml) nvml = std::async(std::launch::async, OpenNvml, ordinal);
  KOPT_CUDA_CHECK(cudaSetDevice(ordinal));
  KOPT_CUDA_CHECK(cudaFree(nullptr));  // creates the context now, not inside the first timed call
  KOPT_RETURN_IF_ERROR(RetainStreamOrderedMemory(ordinal));
  KOPT_ASSIGN_OR_RETURN(setup.event, DescribeDevice(ordinal));
  KOPT_CUDA_CHECK(cudaStreamCreateWithFlags(&setup.stream, cudaStreamNonBlocking));
  if (open_nvml) {
    AdoptNvml(nvml.get(), setup);
  } else {
    setup.nvml_unavailable_reason = "NVML not opened: neither timing nor energy was requested";
  }
  return setup;
}

}  // namespace kopt::runner
