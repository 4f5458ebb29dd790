// NVML (the NVIDIA Management Library) loaded at run time with dlopen, for
// kopt-runner's SM-clock readings and energy measurement
// (docs/harness-protocol.md §3 `timing` and `energy`; measurement.md §4).
//
// nvml.h is not needed to build: the few types and prototypes kopt uses are
// declared here, with the values of nvml.h. A missing library (no NVIDIA
// driver, a container without NVML) is an Unavailable Status, which callers
// report as "energy unavailable", never as a failed run.
//
// Every NVML call goes through KOPT_NVML_CALL, which turns a non-zero
// nvmlReturn_t into a Status naming the call text, NVML's error string and
// code, and the file and line of the call.
//
// kopt only reads: it never changes clocks, power limits or any other
// device setting.
//
// Units: millijoules, watts, MHz, degrees Celsius as the method names say.
// Thread safety: NVML itself is thread-safe; an NvmlDevice may be used from
// one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"

namespace kopt {

inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

// nvmlFieldValue_t of nvml.h (40 bytes; checked in nvml.cc).
struct NvmlFieldValue {
  unsigned int field_id = 0;
  unsigned int scope_id = 0;  // for power fields: 0 GPU, 1 module (GPU + CPU on GH200)
  long long timestamp_us = 0;
  long long latency_us = 0;
  int value_type =
      0;  // nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint, 6 ushort
  int nvml_return = 0;
  union {
    double double_value;
    unsigned int unsigned_value;
    unsigned long unsigned_long_value;
    unsigned long long unsigned_long_long_value;
    long long signed_long_long_value;
    int signed_value;
    unsigned short unsigned_short_value;
  } value = {};
};

// NVML constants kopt uses (values from nvml.h).
inline constexpr unsigned int kNvmlFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, mW
inline constexpr int kNvmlClockSm = 1;                       // NVML_CLOCK_SM
inline constexpr int kNvmlTemperatureGpu = 0;                // NVML_TEMPERATURE_GPU
inline constexpr int kNvmlErrorNotSupported = 3;             // NVML_ERROR_NOT_SUPPORTED

// The subset of NVML kopt uses, resolved from the library at run time.
struct NvmlApi {
  using NvmlReturn = int;          // nvmlReturn_t; 0 is NVML_SUCCESS
  using NvmlDeviceHandle = void*;  // nvmlDevice_t (an opaque pointer)
  void* library = nullptr;         // dlopen handle; never closed
  NvmlReturn (*nvmlInit_v2)() = nullptr;
  NvmlReturn (*nvmlShutdown)() = nullptr;
  NvmlReturn (*nvmlDeviceGetHandleByPciBusId_v2)(const char* pci_bus_id, NvmlDeviceHandle* device) = nullptr;
  NvmlReturn (*nvmlDeviceGetHandleByIndex_v2)(unsigned int index, NvmlDeviceHandle* device) = nullptr;
  NvmlReturn (*nvmlDeviceGetTotalEnergyConsumption)(NvmlDeviceHandle device,
                                                    unsigned long long* millijoules) = nullptr;
  NvmlReturn (*nvmlDeviceGetPowerUsage)(NvmlDeviceHandle device, unsigned int* milliwatts) = nullptr;
  NvmlReturn (*nvmlDeviceGetFieldValues)(NvmlDeviceHandle device, int count,
                                         NvmlFieldValue* values) = nullptr;
  NvmlReturn (*nvmlDeviceGetClockInfo)(NvmlDeviceHandle device, int clock_type, unsigned int* mhz) = nullptr;
  NvmlReturn (*nvmlDeviceGetMaxClockInfo)(NvmlDeviceHandle device, int clock_type,
                                          unsigned int* mhz) = nullptr;
  NvmlReturn (*nvmlDeviceGetTemperature)(NvmlDeviceHandle device, int sensor,
                                         unsigned int* celsius) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons (newer drivers) or, failing that,
  // nvmlDeviceGetCurrentClocksThrottleReasons (same signature); null if neither.
  NvmlReturn (*nvmlDeviceGetCurrentClocksEventReasons)(NvmlDeviceHandle device,
                                                       unsigned long long* reasons) = nullptr;
  const char* (*nvmlErrorString)(NvmlReturn result) = nullptr;
};

// Loads `library_name` (kNvmlLibrary in production; tests pass a missing one)
// and resolves the functions above. Unavailable when the library cannot be
// loaded or lacks a required function, naming it and dlerror's reason.
Result<NvmlApi> LoadNvml(const std::string& library_name);

// OK when `result` is 0 (NVML_SUCCESS); otherwise Unavailable with
// "<call_text> failed: <nvmlErrorString> (nvmlReturn_t <code>) at <file>:<line>",
// file shortened to its path from "src/".
Status CheckNvmlResult(const NvmlApi& api, int result, const char* call_text, const char* file, int line);

// Calls api.<call> and checks its nvmlReturn_t; evaluates to a Status.
// Usage: KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api, nvmlInit_v2()));
#define KOPT_NVML_CALL(api, call) ::kopt::CheckNvmlResult((api), (api).call, #call, __FILE__, __LINE__)

// One device opened through NVML: nvmlInit_v2 on open, nvmlShutdown when
// destroyed. Owns its NVML session; not copyable.
class NvmlDevice {
 public:
  // `pci_bus_id` as cudaDeviceGetPCIBusId writes it ("0000:1B:00.0"): the
  // robust way to match a CUDA ordinal, which CUDA_VISIBLE_DEVICES renumbers.
  static Result<std::unique_ptr<NvmlDevice>> OpenByPciBusId(const std::string& library_name,
                                                            const std::string& pci_bus_id);
  // NVML's own index (nvidia-smi order).
  static Result<std::unique_ptr<NvmlDevice>> OpenByIndex(const std::string& library_name, unsigned int index);

  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  // Energy since the driver was loaded (Volta and newer), mJ. On the H200 it
  // changes about every 100 ms.
  Result<uint64_t> TotalEnergyMillijoules() const;
  // nvmlDeviceGetPowerUsage, W: a 1-second average on Ampere and newer
  // (except GA100), so not an instantaneous reading there.
  Result<double> AveragePowerWatts() const;
  // NVML_FI_DEV_POWER_INSTANT (field 186), W; GPU scope, module scope when
  // the GPU scope is refused (GH200).
  Result<double> InstantPowerWatts() const;
  Result<double> SmClockMhz() const;     // current SM clock
  Result<double> MaxSmClockMhz() const;  // the SM clock's maximum (boost)
  Result<double> TemperatureCelsius() const;
  // The nvmlClocksEventReasons bit mask (0 = not held back); Unavailable when
  // the library has neither reasons function.
  Result<uint64_t> ClocksEventReasons() const;

  const NvmlApi& api() const { return api_; }

 private:
  NvmlDevice(NvmlApi api, NvmlApi::NvmlDeviceHandle handle) : api_(api), handle_(handle) {}
  static Result<NvmlApi> LoadAndInit(const std::string& library_name);
  Result<unsigned int> ReadClock(int clock_type, bool maximum) const;

  NvmlApi api_;
  NvmlApi::NvmlDeviceHandle handle_ = nullptr;
};

}  // namespace kopt
