// QueryLiveGpus: the CUDA driver API through dlopen, merged with the table.
#include "hw/live_gpu_query.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace kopt {
namespace {

using CudaDevice = CudaDriverApi::CudaDevice;

constexpr const char* kDriverLibrary = "libcuda.so.1";
constexpr double kHertzPerKilohertz = 1000;

// Resolves `symbol` into `*function`; false when the library lacks it.
template <typename Function>
bool Resolve(void* library, const char* symbol, Function* function) {
  *function = reinterpret_cast<Function>(dlsym(library, symbol));
  return *function != nullptr;
}

// Name of the first required function the library lacks; empty when none.
std::string ResolveRequired(CudaDriverApi& driver) {
  void* library = driver.library;
  if (!Resolve(library, "cuInit", &driver.cuInit)) return "cuInit";
  if (!Resolve(library, "cuDriverGetVersion", &driver.cuDriverGetVersion)) return "cuDriverGetVersion";
  if (!Resolve(library, "cuDeviceGetCount", &driver.cuDeviceGetCount)) return "cuDeviceGetCount";
  if (!Resolve(library, "cuDeviceGet", &driver.cuDeviceGet)) return "cuDeviceGet";
  if (!Resolve(library, "cuDeviceGetName", &driver.cuDeviceGetName)) return "cuDeviceGetName";
  if (!Resolve(library, "cuDeviceGetAttribute", &driver.cuDeviceGetAttribute)) return "cuDeviceGetAttribute";
  if (!Resolve(library, "cuDeviceTotalMem_v2", &driver.cuDeviceTotalMem_v2)) return "cuDeviceTotalMem_v2";
  return "";
}

// "src/hw/live_gpu_query.cc" from an absolute __FILE__.
std::string_view ShortenSourcePath(std::string_view file) {
  size_t source_root = file.rfind("/src/");
  return source_root == std::string_view::npos ? file : file.substr(source_root + 1);
}

// One device attribute kopt reads, and where its value goes.
struct AttributeField {
  int id;  // CUdevice_attribute value from cuda.h
  const char* name;
  bool required;
  void (*store)(DriverDeviceReport& report, int value);
};

const AttributeField kAttributeFields[] = {
    {75, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", true,
     [](DriverDeviceReport& report, int value) { report.compute_capability_major = value; }},
    {76, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", true,
     [](DriverDeviceReport& report, int value) { report.compute_capability_minor = value; }},
    {16, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", true,
     [](DriverDeviceReport& report, int value) { report.sm_count = value; }},
    {13, "CU_DEVICE_ATTRIBUTE_CLOCK_RATE", false,
     [](DriverDeviceReport& report, int value) { report.max_sm_clock_hz = value * kHertzPerKilohertz; }},
    {36, "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE", false,
     [](DriverDeviceReport& report, int value) { report.memory_clock_hz = value * kHertzPerKilohertz; }},
    {37, "CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH", false,
     [](DriverDeviceReport& report, int value) { report.memory_bus_width_bits = value; }},
    {38, "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE", false,
     [](DriverDeviceReport& report, int value) { report.l2_cache_bytes = value; }},
    {81, "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", false,
     [](DriverDeviceReport& report, int value) { report.shared_memory_per_sm_bytes = value; }},
    {82, "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR", false,
     [](DriverDeviceReport& report, int value) { report.registers_per_sm = value; }},
    {39, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR", false,
     [](DriverDeviceReport& report, int value) { report.max_threads_per_sm = value; }},
};

// Reads the attributes of kAttributeFields; a refused optional attribute is
// recorded in report.missing, a refused required one fails the device.
Status ReadAttributes(const CudaDriverApi& driver, CudaDevice device, DriverDeviceReport& report) {
  for (const AttributeField& field : kAttributeFields) {
    int value = 0;
    Status status = KOPT_CUDA_DRIVER_CALL(driver, cuDeviceGetAttribute(&value, field.id, device));
    if (status.ok()) {
      field.store(report, value);
    } else if (field.required) {
      return status.WithContext(field.name);
    } else {
      report.missing.push_back(std::string(field.name) + " (" + status.message() + ")");
    }
  }
  return Status::Ok();
}

Result<DriverDeviceReport> ReadDevice(const CudaDriverApi& driver, int ordinal) {
  DriverDeviceReport report;
  report.device_index = ordinal;
  CudaDevice device = 0;
  KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuDeviceGet(&device, ordinal)));
  char name[256] = {};
  KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuDeviceGetName(name, sizeof(name) - 1, device)));
  report.name = name;
  size_t total_memory_bytes = 0;
  KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuDeviceTotalMem_v2(&total_memory_bytes, device)));
  report.total_memory_bytes = static_cast<double>(total_memory_bytes);
  KOPT_RETURN_IF_ERROR(ReadAttributes(driver, device, report));
  return report;
}

// "rtx-a6000" from "NVIDIA RTX A6000": a key for a model not in the table.
std::string KeyFromDeviceName(std::string_view name) {
  std::string key;
  for (char character : name) {
    unsigned char byte = static_cast<unsigned char>(character);
    if (std::isalnum(byte)) {
      key += static_cast<char>(std::tolower(byte));
    } else if (!key.empty() && key.back() != '-') {
      key += '-';
    }
  }
  while (!key.empty() && key.back() == '-') key.pop_back();
  if (key.rfind("nvidia-", 0) == 0) key.erase(0, 7);
  return key.empty() ? "unknown-gpu" : key;
}

// Overrides `spec` with every value the driver reported.
void ApplyReportedValues(const DriverDeviceReport& report, GpuSpec& spec) {
  spec.compute_capability =
      fmt::format("{}.{}", report.compute_capability_major, report.compute_capability_minor);
  if (report.sm_count > 0) spec.sm_count = report.sm_count;
  if (report.max_sm_clock_hz > 0) spec.boost_clock_hz = report.max_sm_clock_hz;
  if (report.memory_clock_hz > 0) spec.memory_clock_hz = report.memory_clock_hz;
  if (report.memory_bus_width_bits > 0) spec.memory_bus_width_bits = report.memory_bus_width_bits;
  double bandwidth = DramBandwidthFromClock(report.memory_clock_hz, report.memory_bus_width_bits);
  if (bandwidth > 0) spec.dram_bytes_per_second = bandwidth;
  if (report.total_memory_bytes > 0) spec.dram_capacity_bytes = report.total_memory_bytes;
  if (report.l2_cache_bytes > 0) spec.l2_cache_bytes = report.l2_cache_bytes;
  if (report.shared_memory_per_sm_bytes > 0)
    spec.shared_memory_per_sm_bytes = report.shared_memory_per_sm_bytes;
  if (report.registers_per_sm > 0) spec.registers_per_sm = report.registers_per_sm;
  if (report.max_threads_per_sm > 0) spec.max_warps_per_sm = report.max_threads_per_sm / 32;
}

// Table rates are for the table's SM count; a MIG instance has fewer SMs.
void ScaleRates(double factor, GpuSpec& spec) {
  for (double GpuSpec::*rate :
       {&GpuSpec::fp64_flops, &GpuSpec::fp64_tensor_flops, &GpuSpec::fp32_flops, &GpuSpec::fp16_flops,
        &GpuSpec::tf32_tensor_flops, &GpuSpec::fp16_tensor_flops, &GpuSpec::bf16_tensor_flops,
        &GpuSpec::fp8_tensor_flops, &GpuSpec::int8_tensor_ops}) {
    spec.*rate *= factor;
  }
}

std::string DescribeSources(const DriverDeviceReport& report, const GpuSpec* row) {
  std::string source = fmt::format(
      "live device query through the CUDA driver {} (device {}): compute capability, SMs, max SM clock, "
      "memory clock and bus width (DRAM bandwidth = 2 x clock x width / 8), memory size, L2, shared memory, "
      "registers and threads per SM",
      report.driver_version, report.device_index);
  if (row == nullptr) {
    source += "; model not in kopt's table, so peak rates and TDP are unknown (0)";
  } else if (report.sm_count > 0 && report.sm_count != row->sm_count) {
    source += fmt::format("; peak rates and TDP from table row \"{}\", rates scaled by {} / {} SMs", row->key,
                          report.sm_count, row->sm_count);
  } else {
    source += fmt::format("; peak rates and TDP from table row \"{}\"", row->key);
  }
  for (const std::string& missing : report.missing) source += "; not reported: " + missing;
  return source;
}

}  // namespace

Result<CudaDriverApi> LoadCudaDriver(const std::string& library_name) {
  CudaDriverApi driver;
  driver.library = dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (driver.library == nullptr) {
    const char* reason = dlerror();
    return Unavailable(
        fmt::format("no CUDA driver: cannot load {} ({}); kopt needs the NVIDIA driver to query GPUs",
                    library_name, reason ? reason : "unknown reason"));
  }
  std::string missing = ResolveRequired(driver);
  if (!missing.empty()) {
    dlclose(driver.library);
    return Unavailable(fmt::format("the CUDA driver {} lacks {}; the driver is too old or not NVIDIA's",
                                   library_name, missing));
  }
  Resolve(driver.library, "cuGetErrorName", &driver.cuGetErrorName);
  Resolve(driver.library, "cuGetErrorString", &driver.cuGetErrorString);
  return driver;
}

Status CheckCudaDriverResult(const CudaDriverApi& driver, int result, const char* call_text, const char* file,
                             int line) {
  if (result == 0) return Status::Ok();
  const char* name = nullptr;
  const char* description = nullptr;
  if (driver.cuGetErrorName == nullptr || driver.cuGetErrorName(result, &name) != 0) name = nullptr;
  if (driver.cuGetErrorString == nullptr || driver.cuGetErrorString(result, &description) != 0) {
    description = nullptr;
  }
  std::string error = name ? fmt::format("{} ({})", name, result) : fmt::format("CUresult {}", result);
  if (description) error += fmt::format(": {}", description);
  return Unavailable(
      fmt::format("{} failed with {} at {}:{}", call_text, error, ShortenSourcePath(file), line));
}

GpuSpec MergeDriverReport(const DriverDeviceReport& report) {
  const GpuSpec* row = FindGpu(report.name);
  GpuSpec spec = row ? *row : GpuSpec{};
  if (row == nullptr) {
    spec.key = KeyFromDeviceName(report.name);
    spec.name = report.name;
  }
  spec.table_key = row ? row->key : "";
  spec.device_names = {report.name};
  spec.device_index = report.device_index;
  spec.driver_version = report.driver_version;
  ApplyReportedValues(report, spec);
  if (row != nullptr && row->sm_count > 0 && report.sm_count > 0 && report.sm_count != row->sm_count) {
    ScaleRates(static_cast<double>(report.sm_count) / row->sm_count, spec);
  }
  spec.source = DescribeSources(report, row);
  return spec;
}

std::string FormatDriverVersion(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

Result<std::vector<GpuSpec>> QueryLiveGpusWith(const std::string& library_name) {
  KOPT_ASSIGN_OR_RETURN(CudaDriverApi driver, LoadCudaDriver(library_name));
  KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuInit(0)));
  int version = 0;
  KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuDriverGetVersion(&version)));
  int count = 0;
  KOPT_RETURN_IF_ERROR(KOPT_CUDA_DRIVER_CALL(driver, cuDeviceGetCount(&count)));
  if (count <= 0) return Unavailable("the CUDA driver reports no GPU (cuDeviceGetCount gave 0)");
  std::vector<GpuSpec> gpus;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    KOPT_ASSIGN_OR_RETURN(DriverDeviceReport report, ReadDevice(driver, ordinal));
    report.driver_version = FormatDriverVersion(version);
    gpus.push_back(MergeDriverReport(report));
  }
  return gpus;
}

bool LiveGpuQueryDisabled() {
  const char* value = std::getenv("KOPT_NO_GPU_QUERY");
  return value != nullptr && std::string_view(value) == "1";
}

Result<std::vector<GpuSpec>> QueryLiveGpus() {
  if (LiveGpuQueryDisabled()) return Unavailable("live GPU query skipped: KOPT_NO_GPU_QUERY=1");
  return QueryLiveGpusWith(kDriverLibrary);
}

}  // namespace kopt
