// Internals of QueryLiveGpus (gpu_spec.h), exposed for tests: the CUDA driver
// API loaded with dlopen, the checker for driver calls, and the merge of what
// the driver reports into a GpuSpec.
//
// Every driver call goes through KOPT_CUDA_DRIVER_CALL, which turns a
// non-zero CUresult into a Status naming the call text, the error name and
// description the driver gives, and the file and line of the call.
//
// Thread safety: LoadCudaDriver and QueryLiveGpusWith may run on any thread;
// the CUDA driver API is thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"
#include "hw/gpu_spec.h"

namespace kopt {

// The subset of the CUDA driver API kopt uses, as function pointers resolved
// from libcuda at run time (types as in cuda.h: CUresult and CUdevice are int).
struct CudaDriverApi {
  using CudaResult = int;
  using CudaDevice = int;
  void* library = nullptr;  // dlopen handle; never closed (the driver may keep threads)
  CudaResult (*cuInit)(unsigned int flags) = nullptr;
  CudaResult (*cuDriverGetVersion)(int* version) = nullptr;
  CudaResult (*cuDeviceGetCount)(int* count) = nullptr;
  CudaResult (*cuDeviceGet)(CudaDevice* device, int ordinal) = nullptr;
  CudaResult (*cuDeviceGetName)(char* name, int length, CudaDevice device) = nullptr;
  CudaResult (*cuDeviceGetAttribute)(int* value, int attribute, CudaDevice device) = nullptr;
  CudaResult (*cuDeviceTotalMem_v2)(size_t* bytes, CudaDevice device) = nullptr;
  // Optional (used for error messages only; null when the library lacks them).
  CudaResult (*cuGetErrorName)(CudaResult error, const char** name) = nullptr;
  CudaResult (*cuGetErrorString)(CudaResult error, const char** description) = nullptr;
};

// Loads `library_name` with dlopen and resolves the functions above.
// Unavailable when the library cannot be loaded (no NVIDIA driver) or lacks a
// required function; the message says which and what dlerror reported.
Result<CudaDriverApi> LoadCudaDriver(const std::string& library_name);

// OK when `result` is 0 (CUDA_SUCCESS); otherwise Unavailable with
// "<call_text> failed: <ERROR_NAME> (<description>) at <file>:<line>", where
// file is shortened to its path from "src/".
Status CheckCudaDriverResult(const CudaDriverApi& driver, int result, const char* call_text, const char* file,
                             int line);

// Calls driver.<call> and checks its CUresult; evaluates to a Status.
// Usage: KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuInit(0)));
#define KOPT_CUDA_DRIVER_CALL(driver, call) \
  ::kopt::CheckCudaDriverResult((driver), (driver).call, #call, __FILE__, __LINE__)

// What the driver reports for one device, converted to kopt's units. A field
// the driver did not report is 0.
struct DriverDeviceReport {
  int device_index = 0;
  std::string name;  // "NVIDIA H200"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  double max_sm_clock_hz = 0;  // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz) × 1000
  double memory_clock_hz = 0;  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz) × 1000
  int memory_bus_width_bits = 0;
  double l2_cache_bytes = 0;
  double shared_memory_per_sm_bytes = 0;
  double registers_per_sm = 0;
  int max_threads_per_sm = 0;
  double total_memory_bytes = 0;
  std::string driver_version;        // "12.8"
  std::vector<std::string> missing;  // attributes the driver refused, with the reason
};

// The GpuSpec for a device: the table row matching report.name (FindGpu)
// with every reported value overriding it, rates scaled by reported SMs /
// table SMs when they differ; or, for a model not in the table, the reported
// values alone with rates 0. `source` says which values came from where.
GpuSpec MergeDriverReport(const DriverDeviceReport& report);

// "12.8" from the integer cuDriverGetVersion gives (12080).
std::string FormatDriverVersion(int version);

// QueryLiveGpus with the library to load named (tests pass a missing one).
// Does not consult KOPT_NO_GPU_QUERY.
Result<std::vector<GpuSpec>> QueryLiveGpusWith(const std::string& library_name);

}  // namespace kopt
