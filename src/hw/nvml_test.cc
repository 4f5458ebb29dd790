#include "hw/nvml.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace kopt {
namespace {

TEST(NvmlTest, MissingLibraryIsUnavailable) {
  Result<NvmlApi> api = LoadNvml("libkopt-no-such-nvml.so.1");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(api.status().message().find("NVML unavailable: cannot load libkopt-no-such-nvml.so.1"),
            std::string::npos)
      << api.status().message();
}

TEST(NvmlTest, OpeningADeviceWithoutTheLibraryIsUnavailable) {
  auto by_index = NvmlDevice::OpenByIndex("libkopt-no-such-nvml.so.1", 0);
  ASSERT_FALSE(by_index.ok());
  EXPECT_EQ(by_index.status().kind(), ErrorKind::kUnavailable);
  auto by_bus = NvmlDevice::OpenByPciBusId("libkopt-no-such-nvml.so.1", "0000:1B:00.0");
  ASSERT_FALSE(by_bus.ok());
  EXPECT_EQ(by_bus.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(by_bus.status().message().find("NVML unavailable"), std::string::npos);
}

TEST(NvmlTest, LibraryWithoutNvmlIsUnavailable) {
  Result<NvmlApi> api = LoadNvml("libc.so.6");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(api.status().message().find("lacks nvmlInit_v2"), std::string::npos) << api.status().message();
}

const char* FakeErrorString(int result) {
  return result == 3 ? "Not Supported" : "Unknown Error";
}

TEST(NvmlTest, FailedCallNamesTheCallTheErrorAndTheLine) {
  NvmlApi api;
  api.nvmlErrorString = &FakeErrorString;
  EXPECT_TRUE(CheckNvmlResult(api, 0, "nvmlInit_v2()", "/x/src/hw/nvml.cc", 7).ok());
  Status status = CheckNvmlResult(api, kNvmlErrorNotSupported,
                                  "nvmlDeviceGetTotalEnergyConsumption(handle_, &millijoules)",
                                  "/work/main/src/hw/nvml.cc", 42);
  EXPECT_EQ(status.kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(status.message(),
            "nvmlDeviceGetTotalEnergyConsumption(handle_, &millijoules) failed: Not Supported "
            "(nvmlReturn_t 3) at src/hw/nvml.cc:42");
}

TEST(NvmlTest, FailedCallWithoutErrorStringStillDescribesIt) {
  NvmlApi api;
  Status status = CheckNvmlResult(api, 999, "nvmlShutdown()", "nvml.cc", 1);
  EXPECT_EQ(status.message(), "nvmlShutdown() failed: unknown NVML error (nvmlReturn_t 999) at nvml.cc:1");
}

// Reads every value from device 0 on a machine with NVML; runs only with
// KOPT_LIVE_GPU_TESTS=1 (tests/gpu/README.md).
TEST(NvmlLiveTest, ReadsEnergyPowerClocksAndTemperature) {
  const char* live = std::getenv("KOPT_LIVE_GPU_TESTS");
  if (live == nullptr || std::string_view(live) != "1") GTEST_SKIP() << "KOPT_LIVE_GPU_TESTS is not 1";
  auto device = NvmlDevice::OpenByIndex(kNvmlLibrary, 0);
  ASSERT_TRUE(device.ok()) << device.status().message();
  Result<uint64_t> energy = (*device)->TotalEnergyMillijoules();
  ASSERT_TRUE(energy.ok()) << energy.status().message();
  EXPECT_GT(*energy, 0u);
  Result<double> instant = (*device)->InstantPowerWatts();
  ASSERT_TRUE(instant.ok()) << instant.status().message();
  EXPECT_GT(*instant, 10.0);
  EXPECT_LT(*instant, 2000.0);
  Result<double> clock = (*device)->SmClockMhz();
  Result<double> max_clock = (*device)->MaxSmClockMhz();
  ASSERT_TRUE(clock.ok() && max_clock.ok());
  EXPECT_GT(*max_clock, 500.0);
  EXPECT_LE(*clock, *max_clock + 1);
  EXPECT_TRUE((*device)->TemperatureCelsius().ok());
  EXPECT_TRUE((*device)->AveragePowerWatts().ok());
}

}  // namespace
}  // namespace kopt
