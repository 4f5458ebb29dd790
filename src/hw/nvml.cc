// NVML through dlopen: loading, checked calls, one device's readings.
#include "hw/nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstddef>
#include <string_view>

namespace kopt {
namespace {

// Layout of nvmlFieldValue_t in nvml.h: two uint32, two int64, two enums, an
// 8-byte union.
static_assert(sizeof(NvmlFieldValue) == 40, "NvmlFieldValue must match nvmlFieldValue_t");
static_assert(offsetof(NvmlFieldValue, value_type) == 24, "NvmlFieldValue must match nvmlFieldValue_t");
static_assert(offsetof(NvmlFieldValue, value) == 32, "NvmlFieldValue must match nvmlFieldValue_t");

constexpr double kMilliPerUnit = 1000;
constexpr unsigned int kPowerScopeGpu = 0;
constexpr unsigned int kPowerScopeModule = 1;

template <typename Function>
bool Resolve(void* library, const char* symbol, Function* function) {
  *function = reinterpret_cast<Function>(dlsym(library, symbol));
  return *function != nullptr;
}

// Name of the first required function the library lacks; empty when none.
std::string ResolveRequired(NvmlApi& api) {
  void* library = api.library;
  if (!Resolve(library, "nvmlInit_v2", &api.nvmlInit_v2)) return "nvmlInit_v2";
  if (!Resolve(library, "nvmlShutdown", &api.nvmlShutdown)) return "nvmlShutdown";
  if (!Resolve(library, "nvmlErrorString", &api.nvmlErrorString)) return "nvmlErrorString";
  if (!Resolve(library, "nvmlDeviceGetHandleByPciBusId_v2", &api.nvmlDeviceGetHandleByPciBusId_v2)) {
    return "nvmlDeviceGetHandleByPciBusId_v2";
  }
  if (!Resolve(library, "nvmlDeviceGetHandleByIndex_v2", &api.nvmlDeviceGetHandleByIndex_v2)) {
    return "nvmlDeviceGetHandleByIndex_v2";
  }
  if (!Resolve(library, "nvmlDeviceGetTotalEnergyConsumption", &api.nvmlDeviceGetTotalEnergyConsumption)) {
    return "nvmlDeviceGetTotalEnergyConsumption";
  }
  if (!Resolve(library, "nvmlDeviceGetPowerUsage", &api.nvmlDeviceGetPowerUsage)) {
    return "nvmlDeviceGetPowerUsage";
  }
  if (!Resolve(library, "nvmlDeviceGetFieldValues", &api.nvmlDeviceGetFieldValues)) {
    return "nvmlDeviceGetFieldValues";
  }
  if (!Resolve(library, "nvmlDeviceGetClockInfo", &api.nvmlDeviceGetClockInfo))
    return "nvmlDeviceGetClockInfo";
  if (!Resolve(library, "nvmlDeviceGetMaxClockInfo", &api.nvmlDeviceGetMaxClockInfo)) {
    return "nvmlDeviceGetMaxClockInfo";
  }
  if (!Resolve(library, "nvmlDeviceGetTemperature", &api.nvmlDeviceGetTemperature)) {
    return "nvmlDeviceGetTemperature";
  }
  return "";
}

std::string_view ShortenSourcePath(std::string_view file) {
  size_t source_root = file.rfind("/src/");
  return source_root == std::string_view::npos ? file : file.substr(source_root + 1);
}

}  // namespace

Result<NvmlApi> LoadNvml(const std::string& library_name) {
  NvmlApi api;
  api.library = dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.library == nullptr) {
    const char* reason = dlerror();
    return Unavailable(fmt::format("NVML unavailable: cannot load {} ({})", library_name,
                                   reason ? reason : "unknown reason"));
  }
  std::string missing = ResolveRequired(api);
  if (!missing.empty()) {
    dlclose(api.library);
    return Unavailable(fmt::format("NVML unavailable: {} lacks {} (a driver older than R450, or not NVML)",
                                   library_name, missing));
  }
  if (!Resolve(api.library, "nvmlDeviceGetCurrentClocksEventReasons",
               &api.nvmlDeviceGetCurrentClocksEventReasons)) {
    Resolve(api.library, "nvmlDeviceGetCurrentClocksThrottleReasons",
            &api.nvmlDeviceGetCurrentClocksEventReasons);
  }
  return api;
}

Status CheckNvmlResult(const NvmlApi& api, int result, const char* call_text, const char* file, int line) {
  if (result == 0) return Status::Ok();
  const char* description = api.nvmlErrorString ? api.nvmlErrorString(result) : nullptr;
  return Unavailable(fmt::format("{} failed: {} (nvmlReturn_t {}) at {}:{}", call_text,
                                 description ? description : "unknown NVML error", result,
                                 ShortenSourcePath(file), line));
}

Result<NvmlApi> NvmlDevice::LoadAndInit(const std::string& library_name) {
  KOPT_ASSIGN_OR_RETURN(NvmlApi api, LoadNvml(library_name));
  KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api, nvmlInit_v2()));
  return api;
}

Result<std::unique_ptr<NvmlDevice>> NvmlDevice::OpenByPciBusId(const std::string& library_name,
                                                               const std::string& pci_bus_id) {
  KOPT_ASSIGN_OR_RETURN(NvmlApi api, LoadAndInit(library_name));
  NvmlApi::NvmlDeviceHandle handle = nullptr;
  Status status = KOPT_NVML_CALL(api, nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.c_str(), &handle));
  if (!status.ok()) {
    api.nvmlShutdown();
    return status.WithContext(fmt::format("NVML device with PCI bus id {}", pci_bus_id));
  }
  return std::unique_ptr<NvmlDevice>(new NvmlDevice(api, handle));
}

Result<std::unique_ptr<NvmlDevice>> NvmlDevice::OpenByIndex(const std::string& library_name,
                                                            unsigned int index) {
  KOPT_ASSIGN_OR_RETURN(NvmlApi api, LoadAndInit(library_name));
  NvmlApi::NvmlDeviceHandle handle = nullptr;
  Status status = KOPT_NVML_CALL(api, nvmlDeviceGetHandleByIndex_v2(index, &handle));
  if (!status.ok()) {
    api.nvmlShutdown();
    return status.WithContext(fmt::format("NVML device {}", index));
  }
  return std::unique_ptr<NvmlDevice>(new NvmlDevice(api, handle));
}

NvmlDevice::~NvmlDevice() {
  if (api_.nvmlShutdown) api_.nvmlShutdown();
}

Result<uint64_t> NvmlDevice::TotalEnergyMillijoules() const {
  unsigned long long millijoules = 0;
  KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api_, nvmlDeviceGetTotalEnergyConsumption(handle_, &millijoules)));
  return static_cast<uint64_t>(millijoules);
}

Result<double> NvmlDevice::AveragePowerWatts() const {
  unsigned int milliwatts = 0;
  KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api_, nvmlDeviceGetPowerUsage(handle_, &milliwatts)));
  return milliwatts / kMilliPerUnit;
}

Result<double> NvmlDevice::InstantPowerWatts() const {
  Status last = Status::Ok();
  for (unsigned int scope : {kPowerScopeGpu, kPowerScopeModule}) {
    NvmlFieldValue field;
    field.field_id = kNvmlFieldPowerInstant;
    field.scope_id = scope;
    KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api_, nvmlDeviceGetFieldValues(handle_, 1, &field)));
    last = CheckNvmlResult(api_, field.nvml_return, "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)",
                           __FILE__, __LINE__);
    if (last.ok()) {
      // Power fields are unsigned int milliwatts; accept the wider types too.
      switch (field.value_type) {
        case 0: return field.value.double_value / kMilliPerUnit;
        case 2: return static_cast<double>(field.value.unsigned_long_value) / kMilliPerUnit;
        case 3: return static_cast<double>(field.value.unsigned_long_long_value) / kMilliPerUnit;
        default: return field.value.unsigned_value / kMilliPerUnit;
      }
    }
  }
  return last;
}

Result<unsigned int> NvmlDevice::ReadClock(int clock_type, bool maximum) const {
  unsigned int mhz = 0;
  if (maximum) {
    KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api_, nvmlDeviceGetMaxClockInfo(handle_, clock_type, &mhz)));
  } else {
    KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api_, nvmlDeviceGetClockInfo(handle_, clock_type, &mhz)));
  }
  return mhz;
}

Result<double> NvmlDevice::SmClockMhz() const {
  KOPT_ASSIGN_OR_RETURN(unsigned int mhz, ReadClock(kNvmlClockSm, false));
  return static_cast<double>(mhz);
}

Result<double> NvmlDevice::MaxSmClockMhz() const {
  KOPT_ASSIGN_OR_RETURN(unsigned int mhz, ReadClock(kNvmlClockSm, true));
  return static_cast<double>(mhz);
}

Result<double> NvmlDevice::TemperatureCelsius() const {
  unsigned int celsius = 0;
  KOPT_RETURN_IF_ERROR(
      KOPT_NVML_CALL(api_, nvmlDeviceGetTemperature(handle_, kNvmlTemperatureGpu, &celsius)));
  return static_cast<double>(celsius);
}

Result<uint64_t> NvmlDevice::ClocksEventReasons() const {
  if (api_.nvmlDeviceGetCurrentClocksEventReasons == nullptr) {
    return Unavailable("NVML lacks nvmlDeviceGetCurrentClocksEventReasons and ...ThrottleReasons");
  }
  unsigned long long reasons = 0;
  KOPT_RETURN_IF_ERROR(KOPT_NVML_CALL(api_, nvmlDeviceGetCurrentClocksEventReasons(handle_, &reasons)));
  return static_cast<uint64_t>(reasons);
}

}  // namespace kopt
