#include "hw/live_gpu_query.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "core/scoped_environment_test_util.h"
#include "hw/gpu_spec.h"

namespace kopt {
namespace {

TEST(GpuLiveQueryTest, MissingDriverLibraryIsUnavailable) {
  Result<std::vector<GpuSpec>> gpus = QueryLiveGpusWith("libkopt-no-such-cuda-driver.so.1");
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(gpus.status().message().find("no CUDA driver: cannot load libkopt-no-such-cuda-driver.so.1"),
            std::string::npos)
      << gpus.status().message();
}

TEST(GpuLiveQueryTest, LibraryWithoutTheDriverApiIsUnavailable) {
  Result<CudaDriverApi> driver = LoadCudaDriver("libc.so.6");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(driver.status().message().find("lacks cuInit"), std::string::npos) << driver.status().message();
}

// On the CPU machine (no driver) this is Unavailable; on a GPU machine it
// lists the GPUs. Either way it must not crash.
TEST(GpuLiveQueryTest, QueryOnThisMachineSucceedsOrIsUnavailable) {
  ScopedEnvironment no_skip("KOPT_NO_GPU_QUERY", nullptr);
  Result<std::vector<GpuSpec>> gpus = QueryLiveGpus();
  if (!gpus.ok()) {
    EXPECT_EQ(gpus.status().kind(), ErrorKind::kUnavailable);
    EXPECT_FALSE(gpus.status().message().empty());
    return;
  }
  ASSERT_FALSE(gpus->empty());
  for (const GpuSpec& gpu : *gpus) {
    EXPECT_GE(gpu.device_index, 0);
    EXPECT_GT(gpu.sm_count, 0);
    EXPECT_GT(gpu.dram_capacity_bytes, 0);
    EXPECT_FALSE(gpu.driver_version.empty());
    EXPECT_NE(gpu.source.find("live device query"), std::string::npos);
  }
}

TEST(GpuLiveQueryTest, EnvironmentVariableSkipsTheQuery) {
  ScopedEnvironment skip("KOPT_NO_GPU_QUERY", "1");
  EXPECT_TRUE(LiveGpuQueryDisabled());
  Result<std::vector<GpuSpec>> gpus = QueryLiveGpus();
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(gpus.status().message().find("KOPT_NO_GPU_QUERY=1"), std::string::npos);
}

TEST(GpuLiveQueryTest, OtherValuesOfTheVariableDoNotSkip) {
  ScopedEnvironment not_one("KOPT_NO_GPU_QUERY", "0");
  EXPECT_FALSE(LiveGpuQueryDisabled());
}

int FailWithNoDevice(unsigned int) {
  return 100;
}
int SucceedInit(unsigned int) {
  return 0;
}
int FakeErrorName(int, const char** name) {
  *name = "CUDA_ERROR_NO_DEVICE";
  return 0;
}
int FakeErrorString(int, const char** description) {
  *description = "no CUDA-capable device is detected";
  return 0;
}

TEST(GpuLiveQueryTest, DriverCallCheckerNamesCallErrorFileAndLine) {
  CudaDriverApi driver;
  driver.cuInit = FailWithNoDevice;
  driver.cuGetErrorName = FakeErrorName;
  driver.cuGetErrorString = FakeErrorString;
  int line = __LINE__ + 1;
  Status status = KOPT_CUDA_DRIVER_CALL(driver, cuInit(0));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(status.message(),
            "cuInit(0) failed with CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected at "
            "src/hw/live_gpu_query_test.cc:" +
                std::to_string(line));
}

TEST(GpuLiveQueryTest, DriverCallCheckerWithoutErrorNamesAndOnSuccess) {
  CudaDriverApi driver;
  driver.cuInit = FailWithNoDevice;
  Status status = KOPT_CUDA_DRIVER_CALL(driver, cuInit(0));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cuInit(0) failed with CUresult 100 at src/hw/live_gpu_query_test.cc:"),
            std::string::npos)
      << status.message();
  driver.cuInit = SucceedInit;
  EXPECT_TRUE(KOPT_CUDA_DRIVER_CALL(driver, cuInit(0)).ok());
}

// What the driver reported on our H200 (ncu device attributes).
DriverDeviceReport H200Report() {
  DriverDeviceReport report;
  report.device_index = 0;
  report.name = "NVIDIA H200";
  report.compute_capability_major = 9;
  report.compute_capability_minor = 0;
  report.sm_count = 132;
  report.max_sm_clock_hz = 1980000 * 1e3;
  report.memory_clock_hz = 3201000 * 1e3;
  report.memory_bus_width_bits = 6016;
  report.l2_cache_bytes = 62914560;
  report.shared_memory_per_sm_bytes = 233472;
  report.registers_per_sm = 65536;
  report.max_threads_per_sm = 2048;
  report.total_memory_bytes = 150109880320.0;
  report.driver_version = "12.8";
  return report;
}

TEST(GpuLiveQueryTest, DriverValuesOverrideTheTableRow) {
  GpuSpec gpu = MergeDriverReport(H200Report());
  const GpuSpec& row = *FindGpu("h200");
  EXPECT_EQ(gpu.key, "h200");
  EXPECT_EQ(gpu.table_key, "h200");
  EXPECT_EQ(gpu.device_index, 0);
  EXPECT_EQ(gpu.driver_version, "12.8");
  ASSERT_EQ(gpu.device_names.size(), 1u);
  EXPECT_EQ(gpu.device_names[0], "NVIDIA H200");
  EXPECT_EQ(gpu.compute_capability, "9.0");
  EXPECT_EQ(gpu.sm_count, 132);
  EXPECT_DOUBLE_EQ(gpu.boost_clock_hz, 1.98e9);
  EXPECT_NEAR(gpu.dram_bytes_per_second, 4.815e12,
              0.001e12);  // from clock and bus width, not the 4.8 datasheet
  EXPECT_DOUBLE_EQ(gpu.dram_capacity_bytes, 150109880320.0);
  EXPECT_EQ(gpu.max_warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(gpu.bf16_tensor_flops, row.bf16_tensor_flops);  // rates from the table
  EXPECT_DOUBLE_EQ(gpu.tdp_watts, row.tdp_watts);
  EXPECT_NE(gpu.source.find("CUDA driver 12.8"), std::string::npos) << gpu.source;
  EXPECT_NE(gpu.source.find("table row \"h200\""), std::string::npos) << gpu.source;
}

TEST(GpuLiveQueryTest, MigInstanceScalesRatesBySmCount) {
  DriverDeviceReport report = H200Report();
  report.name = "NVIDIA A100-SXM4-40GB MIG 1g.5gb";
  report.compute_capability_major = 8;
  report.sm_count = 14;
  GpuSpec gpu = MergeDriverReport(report);
  const GpuSpec& row = *FindGpu("a100-sxm-40gb");
  EXPECT_EQ(gpu.table_key, "a100-sxm-40gb");
  EXPECT_EQ(gpu.sm_count, 14);
  EXPECT_DOUBLE_EQ(gpu.fp32_flops, row.fp32_flops * 14 / 108);
  EXPECT_DOUBLE_EQ(gpu.int8_tensor_ops, row.int8_tensor_ops * 14 / 108);
  EXPECT_NE(gpu.source.find("scaled by 14 / 108 SMs"), std::string::npos) << gpu.source;
}

TEST(GpuLiveQueryTest, UnknownModelGetsDriverValuesAndUnknownRates) {
  DriverDeviceReport report = H200Report();
  report.name = "NVIDIA RTX A6000";
  report.compute_capability_major = 8;
  report.compute_capability_minor = 6;
  report.sm_count = 84;
  report.missing = {"CU_DEVICE_ATTRIBUTE_CLOCK_RATE (refused)"};
  GpuSpec gpu = MergeDriverReport(report);
  EXPECT_EQ(gpu.key, "rtx-a6000");
  EXPECT_EQ(gpu.name, "NVIDIA RTX A6000");
  EXPECT_TRUE(gpu.table_key.empty());
  EXPECT_EQ(gpu.compute_capability, "8.6");
  EXPECT_EQ(gpu.sm_count, 84);
  EXPECT_DOUBLE_EQ(gpu.l2_cache_bytes, 62914560);
  EXPECT_EQ(gpu.fp32_flops, 0);
  EXPECT_EQ(gpu.bf16_tensor_flops, 0);
  EXPECT_EQ(gpu.tdp_watts, 0);
  EXPECT_NE(gpu.source.find("not in kopt's table"), std::string::npos) << gpu.source;
  EXPECT_NE(gpu.source.find("not reported: CU_DEVICE_ATTRIBUTE_CLOCK_RATE"), std::string::npos) << gpu.source;
}

TEST(GpuLiveQueryTest, FormatsDriverVersion) {
  EXPECT_EQ(FormatDriverVersion(12080), "12.8");
  EXPECT_EQ(FormatDriverVersion(13000), "13.0");
  EXPECT_EQ(FormatDriverVersion(11040), "11.4");
}

}  // namespace
}  // namespace kopt
