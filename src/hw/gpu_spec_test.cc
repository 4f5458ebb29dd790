#include "hw/gpu_spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace kopt {
namespace {

const GpuSpec& Row(const std::string& key) {
  const GpuSpec* spec = FindGpu(key);
  EXPECT_NE(spec, nullptr) << key;
  static const GpuSpec empty;
  return spec ? *spec : empty;
}

TEST(GpuSpecTest, TableHasTheRequiredModels) {
  for (const char* key : {"h100-sxm", "h100-pcie", "h200", "a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb",
                          "a100-pcie-80gb", "l40s", "l4", "b200", "rtx4090", "v100-sxm2", "v100-pcie"}) {
    const GpuSpec* spec = FindGpu(key);
    ASSERT_NE(spec, nullptr) << key;
    EXPECT_EQ(spec->key, key);
  }
}

TEST(GpuSpecTest, EveryRowHasSourceAndPositiveCoreValues) {
  std::set<std::string> keys;
  for (const GpuSpec& spec : KnownGpus()) {
    SCOPED_TRACE(spec.key);
    EXPECT_TRUE(keys.insert(spec.key).second) << "duplicate key";
    EXPECT_FALSE(spec.name.empty());
    EXPECT_FALSE(spec.device_names.empty());
    EXPECT_FALSE(spec.compute_capability.empty());
    EXPECT_GT(spec.source.size(), 80u);
    EXPECT_GT(spec.sm_count, 0);
    EXPECT_GT(spec.boost_clock_hz, 0);
    EXPECT_GT(spec.fp64_flops, 0);
    EXPECT_GT(spec.fp32_flops, 0);
    EXPECT_GT(spec.fp16_tensor_flops, 0);
    EXPECT_GT(spec.dram_bytes_per_second, 0);
    EXPECT_GT(spec.dram_capacity_bytes, 0);
    EXPECT_GT(spec.l2_cache_bytes, 0);
    EXPECT_GT(spec.shared_memory_per_sm_bytes, 0);
    EXPECT_GT(spec.registers_per_sm, 0);
    EXPECT_GT(spec.max_warps_per_sm, 0);
    EXPECT_GT(spec.tdp_watts, 0);
    EXPECT_EQ(spec.device_index, -1);
    EXPECT_TRUE(spec.driver_version.empty());
  }
}

// Catches unit mistakes (MHz for Hz, GB/s for B/s, KiB for bytes).
TEST(GpuSpecTest, ValuesAreInBaseUnits) {
  for (const GpuSpec& spec : KnownGpus()) {
    SCOPED_TRACE(spec.key);
    EXPECT_GT(spec.boost_clock_hz, 1e9);
    EXPECT_LT(spec.boost_clock_hz, 3e9);
    if (spec.memory_clock_hz > 0) {
      EXPECT_GT(spec.memory_clock_hz, 5e8);
      EXPECT_LT(spec.memory_clock_hz, 2e10);
    }
    EXPECT_GT(spec.fp32_flops, 1e13);
    EXPECT_LT(spec.fp32_flops, 1e15);
    EXPECT_GT(spec.dram_bytes_per_second, 1e11);
    EXPECT_LT(spec.dram_bytes_per_second, 2e13);
    EXPECT_GT(spec.dram_capacity_bytes, 1e10);
    EXPECT_LT(spec.dram_capacity_bytes, 4e11);
    EXPECT_GT(spec.l2_cache_bytes, 1e6);
    EXPECT_LT(spec.l2_cache_bytes, 1e9);
    EXPECT_GE(spec.shared_memory_per_sm_bytes, 64 * 1024);
    EXPECT_LE(spec.shared_memory_per_sm_bytes, 256 * 1024);
    EXPECT_EQ(spec.registers_per_sm, 65536);
    EXPECT_GE(spec.tdp_watts, 50);
    EXPECT_LE(spec.tdp_watts, 1500);
  }
}

TEST(GpuSpecTest, TensorRatesAreOrderedAndDense) {
  for (const GpuSpec& spec : KnownGpus()) {
    SCOPED_TRACE(spec.key);
    EXPECT_GT(spec.fp16_tensor_flops, spec.fp32_flops);
    if (spec.bf16_tensor_flops > 0) EXPECT_DOUBLE_EQ(spec.bf16_tensor_flops, spec.fp16_tensor_flops);
    if (spec.tf32_tensor_flops > 0) EXPECT_LT(spec.tf32_tensor_flops, spec.fp16_tensor_flops);
    if (spec.fp8_tensor_flops > 0) EXPECT_GE(spec.fp8_tensor_flops, spec.fp16_tensor_flops);
    if (spec.fp64_tensor_flops > 0) EXPECT_GE(spec.fp64_tensor_flops, spec.fp64_flops);
    EXPECT_LE(spec.fp64_flops, spec.fp32_flops);
  }
}

// FP32 = SMs × FP32 lanes per SM × 2 (FMA) × boost clock, within 2%.
TEST(GpuSpecTest, Fp32RateMatchesSmCountAndClock) {
  for (const GpuSpec& spec : KnownGpus()) {
    SCOPED_TRACE(spec.key);
    int lanes = (spec.compute_capability == "7.0" || spec.compute_capability == "8.0") ? 64 : 128;
    double derived = spec.sm_count * lanes * 2.0 * spec.boost_clock_hz;
    EXPECT_NEAR(spec.fp32_flops / derived, 1.0, 0.02);
  }
}

// The driver's memory clock and bus width reproduce the datasheet bandwidth.
TEST(GpuSpecTest, DramBandwidthMatchesMemoryClockAndBusWidth) {
  int checked = 0;
  for (const GpuSpec& spec : KnownGpus()) {
    SCOPED_TRACE(spec.key);
    double derived = DramBandwidthFromClock(spec.memory_clock_hz, spec.memory_bus_width_bits);
    if (derived == 0) continue;
    EXPECT_NEAR(derived / spec.dram_bytes_per_second, 1.0, 0.03);
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

TEST(GpuSpecTest, H200MatchesOurDevice) {
  const GpuSpec& h200 = Row("h200");
  EXPECT_EQ(h200.compute_capability, "9.0");
  EXPECT_EQ(h200.sm_count, 132);
  EXPECT_DOUBLE_EQ(h200.boost_clock_hz, 1980e6);
  EXPECT_DOUBLE_EQ(h200.memory_clock_hz, 3201e6);
  EXPECT_EQ(h200.memory_bus_width_bits, 6016);
  EXPECT_DOUBLE_EQ(h200.l2_cache_bytes, 62914560);
  EXPECT_DOUBLE_EQ(h200.shared_memory_per_sm_bytes, 233472);
  EXPECT_DOUBLE_EQ(h200.registers_per_sm, 65536);
  EXPECT_EQ(h200.max_warps_per_sm, 2048 / 32);
  EXPECT_DOUBLE_EQ(h200.tdp_watts, 700);
  EXPECT_DOUBLE_EQ(h200.dram_bytes_per_second, 4.8e12);
  EXPECT_DOUBLE_EQ(h200.dram_capacity_bytes, 141e9);
  EXPECT_DOUBLE_EQ(h200.bf16_tensor_flops, 989.4e12);
  EXPECT_DOUBLE_EQ(h200.fp8_tensor_flops, 1978.9e12);
  EXPECT_DOUBLE_EQ(h200.fp32_flops, 66.9e12);
  // ncu on our H200: dram__bytes.sum.peak_sustained 1504 B/cycle × 3.199 GHz = 4.81 TB/s.
  EXPECT_NEAR(DramBandwidthFromClock(h200.memory_clock_hz, h200.memory_bus_width_bits), 4.815e12, 0.001e12);
}

TEST(GpuSpecTest, RidgePointsAreSane) {
  const GpuSpec& h200 = Row("h200");
  EXPECT_NEAR(RidgePoint(h200.bf16_tensor_flops, h200.dram_bytes_per_second), 206, 1);
  EXPECT_NEAR(RidgePoint(h200.fp32_flops, h200.dram_bytes_per_second), 13.9, 0.1);
  const GpuSpec& h100 = Row("h100-sxm");
  EXPECT_NEAR(RidgePoint(h100.bf16_tensor_flops, h100.dram_bytes_per_second), 295, 1);
  const GpuSpec& a100 = Row("a100-sxm-80gb");
  EXPECT_NEAR(RidgePoint(a100.bf16_tensor_flops, a100.dram_bytes_per_second), 153, 1);
  for (const GpuSpec& spec : KnownGpus()) {
    SCOPED_TRACE(spec.key);
    double fp32_ridge = RidgePoint(spec.fp32_flops, spec.dram_bytes_per_second);
    EXPECT_GT(fp32_ridge, 5);
    EXPECT_LT(fp32_ridge, 120);
    double tensor_ridge = RidgePoint(spec.fp16_tensor_flops, spec.dram_bytes_per_second);
    EXPECT_GT(tensor_ridge, 50);
    EXPECT_LT(tensor_ridge, 700);
  }
  EXPECT_EQ(RidgePoint(1e12, 0), 0);
  EXPECT_EQ(RidgePoint(0, 1e12), 0);
}

TEST(GpuSpecTest, FindGpuByDriverAndNcuDeviceNames) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NVIDIA H200", "h200"},
      {"NVIDIA H100 80GB HBM3", "h100-sxm"},
      {"NVIDIA H100 PCIe", "h100-pcie"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"},
      {"NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"},
      {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"},
      {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
      {"A100-SXM4-40GB", "a100-sxm-40gb"},
      {"NVIDIA L40S", "l40s"},
      {"NVIDIA L4", "l4"},
      {"NVIDIA B200", "b200"},
      {"NVIDIA GeForce RTX 4090", "rtx4090"},
      {"Tesla V100-SXM2-16GB", "v100-sxm2"},
      {"Tesla V100-SXM2-32GB", "v100-sxm2"},
      {"Tesla V100-PCIE-16GB", "v100-pcie"},
  };
  for (const auto& [device_name, key] : cases) {
    const GpuSpec* spec = FindGpu(device_name);
    ASSERT_NE(spec, nullptr) << device_name;
    EXPECT_EQ(spec->key, key) << device_name;
  }
}

TEST(GpuSpecTest, FindGpuIsCaseInsensitiveAndAcceptsKeysAliasesAndMig) {
  EXPECT_EQ(Row("H200").key, "h200");
  EXPECT_EQ(Row("nvidia h200").key, "h200");
  EXPECT_EQ(Row("  NVIDIA   H200 ").key, "h200");
  EXPECT_EQ(Row("nvidia a100-sxm4-80gb").key, "a100-sxm-80gb");
  EXPECT_EQ(Row("h100").key, "h100-sxm");
  EXPECT_EQ(Row("H100_SXM").key, "h100-sxm");
  EXPECT_EQ(Row("RTX 4090").key, "rtx4090");
  EXPECT_EQ(Row("V100-SXM2-16GB").key, "v100-sxm2");
  EXPECT_EQ(Row("NVIDIA H200 SXM 141GB").key, "h200");  // the marketing name
  EXPECT_EQ(Row("NVIDIA A100-SXM4-40GB MIG 1g.5gb").key, "a100-sxm-40gb");
  EXPECT_EQ(Row("NVIDIA H100 80GB HBM3 MIG 3g.40gb").key, "h100-sxm");
}

TEST(GpuSpecTest, FindGpuRejectsUnknownAndNearMissNames) {
  for (const char* name :
       {"", "   ", "NVIDIA H100 NVL", "NVIDIA H200 NVL", "NVIDIA L40", "NVIDIA GH200 480GB",
        "NVIDIA GeForce RTX 4080", "Tesla V100S-PCIE-32GB", "AMD Instinct MI300X", "nvidia", "h20"}) {
    EXPECT_EQ(FindGpu(name), nullptr) << name;
  }
}

// Every spelling of a row finds that row: no name is shared between rows.
TEST(GpuSpecTest, EverySpellingFindsItsOwnRow) {
  for (const GpuSpec& spec : KnownGpus()) {
    std::vector<std::string> spellings = spec.device_names;
    spellings.insert(spellings.end(), spec.aliases.begin(), spec.aliases.end());
    spellings.push_back(spec.key);
    spellings.push_back(spec.name);
    for (const std::string& spelling : spellings) {
      EXPECT_EQ(FindGpu(spelling), &spec) << spec.key << " / " << spelling;
    }
  }
}

TEST(GpuSpecTest, DramBandwidthFromClock) {
  EXPECT_NEAR(DramBandwidthFromClock(3201e6, 6016), 4.815e12, 0.001e12);
  EXPECT_NEAR(DramBandwidthFromClock(9001e6, 384), 864e9, 0.1e9);  // GDDR6, L40S
  EXPECT_EQ(DramBandwidthFromClock(0, 6016), 0);
  EXPECT_EQ(DramBandwidthFromClock(3201e6, 0), 0);
}

}  // namespace
}  // namespace kopt
