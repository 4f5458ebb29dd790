// The built-in GPU spec table and lookup by key or device name.
//
// Conventions of the rows (see gpu_spec.h): rates are dense (no 2:4 sparsity)
// and quoted at boost clock as NVIDIA publishes them; memory clock and bus
// width are what the CUDA driver reports (deviceQuery), so that
// DramBandwidthFromClock reproduces the datasheet bandwidth; L2, shared memory
// per SM and registers per SM are exact byte/register counts as the driver
// reports them. A value not published anywhere we could check is 0 (unknown)
// or, where an estimate is more useful than nothing, is marked "unverified" in
// the row's source.
#include "hw/gpu_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "core/text.h"

namespace kopt {
namespace {

// Whole numbers of base units from datasheet figures: Tera(66.9) is exactly
// 66,900,000,000,000 FLOP/s, not 66.9 * 1e12 with its rounding error.
double Tera(double value) {
  return std::round(value * 1e12);
}
double Giga(double value) {
  return std::round(value * 1e9);
}
double Mega(double value) {
  return std::round(value * 1e6);
}
constexpr double kKibibyte = 1024;
constexpr double kMebibyte = 1024 * 1024;

// Shared by every row of compute capability 9.0 (H100, H200): whitepaper Table 3
// values at 132 SMs and 1.98 GHz; the datasheets round them to 34/67/67 and
// quote tensor rates with sparsity (twice these).
GpuSpec HopperSxmRates(GpuSpec spec) {
  spec.compute_capability = "9.0";
  spec.sm_count = 132;
  spec.boost_clock_hz = Mega(1980);
  spec.fp64_flops = Tera(33.5);
  spec.fp64_tensor_flops = Tera(66.9);
  spec.fp32_flops = Tera(66.9);
  spec.fp16_flops = Tera(133.8);
  spec.tf32_tensor_flops = Tera(494.7);
  spec.fp16_tensor_flops = Tera(989.4);
  spec.bf16_tensor_flops = Tera(989.4);
  spec.fp8_tensor_flops = Tera(1978.9);
  spec.int8_tensor_ops = Tera(1978.9);
  spec.shared_memory_per_sm_bytes = 228 * kKibibyte;  // 233,472 B
  spec.registers_per_sm = 65536;
  spec.max_warps_per_sm = 64;
  return spec;
}

GpuSpec H100Sxm() {
  GpuSpec spec;
  spec.key = "h100-sxm";
  spec.aliases = {"h100", "h100-sxm5", "h100-sxm5-80gb"};
  spec.name = "NVIDIA H100 SXM5 80GB";
  spec.device_names = {"NVIDIA H100 80GB HBM3"};
  spec = HopperSxmRates(spec);
  spec.memory_clock_hz = Mega(2619);
  spec.memory_bus_width_bits = 5120;
  spec.dram_bytes_per_second = Tera(3.35);
  spec.dram_capacity_bytes = Giga(80);
  spec.l2_cache_bytes = 50 * kMebibyte;  // 52,428,800 B
  spec.tdp_watts = 700;
  spec.source =
      "NVIDIA H100 Tensor Core GPU datasheet (3.35 TB/s, 80 GB, up to 700 W; tensor rates with sparsity, "
      "halved here) and NVIDIA H100 Tensor Core GPU Architecture whitepaper, Table 3 (dense rates, FP16 "
      "non-tensor 133.8 TFLOP/s); copies: https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html, "
      "https://glennklockwood.com/garden/processors/h100. SMs, 1980 MHz, memory clock 2619 MHz, 5120-bit "
      "bus, L2 52,428,800 B: public deviceQuery outputs. Shared memory/registers/warps per SM: CUDA C++ "
      "Programming Guide, compute capability 9.0.";
  return spec;
}

GpuSpec H100Pcie() {
  GpuSpec spec = HopperSxmRates(GpuSpec{});
  spec.key = "h100-pcie";
  spec.name = "NVIDIA H100 PCIe 80GB";
  spec.device_names = {"NVIDIA H100 PCIe"};
  spec.sm_count = 114;
  spec.boost_clock_hz = Mega(1755);
  spec.memory_clock_hz = Mega(1593);
  spec.memory_bus_width_bits = 5120;
  spec.fp64_flops = Tera(25.6);
  spec.fp64_tensor_flops = Tera(51.2);
  spec.fp32_flops = Tera(51.2);
  spec.fp16_flops = Tera(102.4);
  spec.tf32_tensor_flops = Tera(378);
  spec.fp16_tensor_flops = Tera(756.5);
  spec.bf16_tensor_flops = Tera(756.5);
  spec.fp8_tensor_flops = Tera(1513);
  spec.int8_tensor_ops = Tera(1513);
  spec.dram_bytes_per_second = Tera(2.0);
  spec.dram_capacity_bytes = Giga(80);
  spec.l2_cache_bytes = 50 * kMebibyte;
  spec.tdp_watts = 350;
  spec.source =
      "NVIDIA H100 Tensor Core GPU datasheet, PCIe column (FP64 26, FP32 51 TFLOP/s; tensor rates with "
      "sparsity, halved here; 2 TB/s HBM2e; 300-350 W configurable, 350 W here) and H100 architecture "
      "whitepaper, Table 3 (25.6/51.2/102.4 TFLOP/s). 114 SMs, 1755 MHz, memory clock 1593 MHz, 5120-bit "
      "bus (the driver-derived bandwidth is 2.04 TB/s), L2 52,428,800 B: public deviceQuery outputs.";
  return spec;
}

GpuSpec H200Sxm() {
  GpuSpec spec;
  spec.key = "h200";
  spec.aliases = {"h200-sxm", "h200-sxm-141gb"};
  spec.name = "NVIDIA H200 SXM 141GB";
  spec.device_names = {"NVIDIA H200"};
  spec = HopperSxmRates(spec);
  spec.memory_clock_hz = Mega(3201);
  spec.memory_bus_width_bits = 6016;
  spec.dram_bytes_per_second = Tera(4.8);
  spec.dram_capacity_bytes = Giga(141);
  spec.l2_cache_bytes = 60 * kMebibyte;  // 62,914,560 B
  spec.tdp_watts = 700;
  spec.source =
      "NVIDIA H200 Tensor Core GPU datasheet (FP64 34, FP32 67 TFLOP/s, tensor rates with sparsity, halved "
      "here; 4.8 TB/s HBM3e, 141 GB, up to 700 W); copies: "
      "https://lzwjava.github.io/nvidia-h200-gpu-specs-en, https://www.aiminingco.com/gpu/h200/specs. Dense "
      "rates and FP16 non-tensor from the H100 architecture whitepaper (same GH100 SM count and clock). "
      "Observed on our H200 (ncu device attributes, nvidia-smi): 132 SMs, max SM clock 1980 MHz, memory "
      "clock 3201 MHz, 6016-bit bus, L2 62,914,560 B, 233,472 B shared memory and 65,536 registers per SM, "
      "2048 threads per SM, power limit 700 W, ncu DRAM peak 4.81 TB/s, driver memory size 150,109,880,320 "
      "B.";
  return spec;
}

// Shared by the four A100 rows: A100 datasheet and whitepaper, dense rates at
// 108 SMs and 1.41 GHz.
GpuSpec AmpereA100Rates(GpuSpec spec) {
  spec.compute_capability = "8.0";
  spec.sm_count = 108;
  spec.boost_clock_hz = Mega(1410);
  spec.memory_bus_width_bits = 5120;
  spec.fp64_flops = Tera(9.7);
  spec.fp64_tensor_flops = Tera(19.5);
  spec.fp32_flops = Tera(19.5);
  spec.fp16_flops = Tera(78);
  spec.tf32_tensor_flops = Tera(156);
  spec.fp16_tensor_flops = Tera(312);
  spec.bf16_tensor_flops = Tera(312);
  spec.fp8_tensor_flops = 0;  // no FP8 tensor cores on compute capability 8.0
  spec.int8_tensor_ops = Tera(624);
  spec.l2_cache_bytes = 40 * kMebibyte;               // 41,943,040 B
  spec.shared_memory_per_sm_bytes = 164 * kKibibyte;  // 167,936 B
  spec.registers_per_sm = 65536;
  spec.max_warps_per_sm = 64;
  return spec;
}

constexpr const char* kA100Sources =
    "NVIDIA A100 Tensor Core GPU datasheet (FP64 9.7, FP64 tensor 19.5, FP32 19.5, TF32 156, FP16/BF16 312 "
    "TFLOP/s, INT8 624 TOPS dense; bandwidth and max TDP per variant) and NVIDIA A100 Tensor Core GPU "
    "Architecture whitepaper (FP16 non-tensor 78 TFLOP/s, L2 40 MB, 164 KB shared memory per SM); copies: "
    "https://glennklockwood.com/garden/processors/A100, "
    "https://www.thundercompute.com/blog/nvidia-a100-specs-full-guide. Memory clock and L2 41,943,040 B: "
    "public deviceQuery outputs";

GpuSpec A100Sxm80() {
  GpuSpec spec;
  spec.key = "a100-sxm-80gb";
  spec.aliases = {"a100", "a100-80gb", "a100-sxm4-80gb"};
  spec.name = "NVIDIA A100 SXM4 80GB";
  spec.device_names = {"NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB", "NVIDIA A100-SXM-80GB"};
  spec = AmpereA100Rates(spec);
  spec.memory_clock_hz = Mega(1593);
  spec.dram_bytes_per_second = Tera(2.039);
  spec.dram_capacity_bytes = Giga(80);
  spec.tdp_watts = 400;
  spec.source = std::string(kA100Sources) + " (1593 MHz). SXM4 80GB: 2,039 GB/s HBM2e, 400 W.";
  return spec;
}

GpuSpec A100Sxm40() {
  GpuSpec spec;
  spec.key = "a100-sxm-40gb";
  spec.aliases = {"a100-40gb", "a100-sxm4-40gb"};
  spec.name = "NVIDIA A100 SXM4 40GB";
  spec.device_names = {"NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB"};
  spec = AmpereA100Rates(spec);
  spec.memory_clock_hz = Mega(1215);
  spec.dram_bytes_per_second = Tera(1.555);
  spec.dram_capacity_bytes = Giga(40);
  spec.tdp_watts = 400;
  spec.source = std::string(kA100Sources) + " (1215 MHz). SXM4 40GB: 1,555 GB/s HBM2, 400 W.";
  return spec;
}

GpuSpec A100Pcie40() {
  GpuSpec spec;
  spec.key = "a100-pcie-40gb";
  spec.aliases = {"a100-pcie"};
  spec.name = "NVIDIA A100 PCIe 40GB";
  spec.device_names = {"NVIDIA A100-PCIE-40GB", "A100-PCIE-40GB"};
  spec = AmpereA100Rates(spec);
  spec.memory_clock_hz = Mega(1215);
  spec.dram_bytes_per_second = Tera(1.555);
  spec.dram_capacity_bytes = Giga(40);
  spec.tdp_watts = 250;
  spec.source = std::string(kA100Sources) + " (1215 MHz). PCIe 40GB: 1,555 GB/s HBM2, 250 W.";
  return spec;
}

GpuSpec A100Pcie80() {
  GpuSpec spec;
  spec.key = "a100-pcie-80gb";
  spec.name = "NVIDIA A100 PCIe 80GB";
  spec.device_names = {"NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB"};
  spec = AmpereA100Rates(spec);
  spec.memory_clock_hz = Mega(1512);
  spec.dram_bytes_per_second = Tera(1.935);
  spec.dram_capacity_bytes = Giga(80);
  spec.tdp_watts = 300;
  spec.source = std::string(kA100Sources) + " (1512 MHz, unverified). PCIe 80GB: 1,935 GB/s HBM2e, 300 W.";
  return spec;
}

// Shared by the compute capability 8.9 rows (Ada): 128 FP32 lanes per SM,
// FP16 non-tensor at the FP32 rate, FP64 at 1/64 of it, no FP64 tensor cores.
GpuSpec AdaSmResources(GpuSpec spec) {
  spec.compute_capability = "8.9";
  spec.fp64_tensor_flops = 0;
  spec.shared_memory_per_sm_bytes = 100 * kKibibyte;  // 102,400 B
  spec.registers_per_sm = 65536;
  spec.max_warps_per_sm = 48;
  return spec;
}

GpuSpec L40s() {
  GpuSpec spec = AdaSmResources(GpuSpec{});
  spec.key = "l40s";
  spec.name = "NVIDIA L40S";
  spec.device_names = {"NVIDIA L40S"};
  spec.sm_count = 142;
  spec.boost_clock_hz = Mega(2520);
  spec.memory_clock_hz = Mega(9001);
  spec.memory_bus_width_bits = 384;
  spec.fp64_flops = Tera(1.431);
  spec.fp32_flops = Tera(91.6);
  spec.fp16_flops = Tera(91.6);
  spec.tf32_tensor_flops = Tera(183);
  spec.fp16_tensor_flops = Tera(362.05);
  spec.bf16_tensor_flops = Tera(362.05);
  spec.fp8_tensor_flops = Tera(733);
  spec.int8_tensor_ops = Tera(733);
  spec.dram_bytes_per_second = Giga(864);
  spec.dram_capacity_bytes = Giga(48);
  spec.l2_cache_bytes = 96 * kMebibyte;  // 100,663,296 B
  spec.tdp_watts = 350;
  spec.source =
      "NVIDIA L40S datasheet (FP32 91.6, TF32 183, FP16/BF16 362.05, FP8 733 TFLOP/s, INT8 733 TOPS dense; "
      "864 GB/s GDDR6, 48 GB, 350 W); copy: https://www.mullet.se/product.html?product_id=355414. 142 SMs, "
      "2520 MHz, memory clock 9001 MHz, 384-bit bus, L2 100,663,296 B, 102,400 B shared memory and 1536 "
      "threads per SM: public deviceQuery output (AiglonDore/cuda-device-query README; an L2 of 48 MB "
      "quoted elsewhere is wrong). FP64 1.431 TFLOP/s (1:64) and FP16 non-tensor 91.6 (1:1): "
      "TechPowerUp-derived, unverified.";
  return spec;
}

GpuSpec L4() {
  GpuSpec spec = AdaSmResources(GpuSpec{});
  spec.key = "l4";
  spec.name = "NVIDIA L4";
  spec.device_names = {"NVIDIA L4"};
  spec.sm_count = 58;
  spec.boost_clock_hz = Mega(2040);
  spec.memory_clock_hz = Mega(6251);
  spec.memory_bus_width_bits = 192;
  spec.fp64_flops = Tera(0.473);
  spec.fp32_flops = Tera(30.3);
  spec.fp16_flops = Tera(30.3);
  spec.tf32_tensor_flops = Tera(60);
  spec.fp16_tensor_flops = Tera(121);
  spec.bf16_tensor_flops = Tera(121);
  spec.fp8_tensor_flops = Tera(242.5);
  spec.int8_tensor_ops = Tera(242.5);
  spec.dram_bytes_per_second = Giga(300);
  spec.dram_capacity_bytes = Giga(24);
  spec.l2_cache_bytes = 48 * kMebibyte;  // 50,331,648 B
  spec.tdp_watts = 72;
  spec.source =
      "NVIDIA L4 Tensor Core GPU datasheet (FP32 30.3 TFLOP/s; TF32 120, FP16/BF16 242, FP8 485 TFLOP/s and "
      "INT8 485 TOPS with sparsity, halved here; 300 GB/s GDDR6, 24 GB, 72 W); copies: "
      "https://hmc-tech.com/gpu/nvidia-l4-vs-nvidia-grid-m40, "
      "https://grokipedia.com/page/NVIDIA_L4_vs_L40S. 58 SMs, 2040 MHz, memory clock 6251 MHz, 192-bit bus, "
      "L2 50,331,648 B: public deviceQuery output (some sources say 60 SMs; 58 x 128 x 2 x 2.04 GHz = 30.3 "
      "TFLOP/s matches the datasheet). FP64 0.473 TFLOP/s (1:64) and FP16 non-tensor (1:1): derived, "
      "unverified.";
  return spec;
}

GpuSpec B200() {
  GpuSpec spec;
  spec.key = "b200";
  spec.aliases = {"b200-sxm", "hgx-b200"};
  spec.name = "NVIDIA B200 (HGX)";
  spec.device_names = {"NVIDIA B200"};
  spec.compute_capability = "10.0";
  spec.sm_count = 148;
  spec.boost_clock_hz = Mega(1965);
  spec.fp64_flops = Tera(37);
  spec.fp64_tensor_flops = Tera(37);
  spec.fp32_flops = Tera(75);
  spec.tf32_tensor_flops = Tera(1125);
  spec.fp16_tensor_flops = Tera(2250);
  spec.bf16_tensor_flops = Tera(2250);
  spec.fp8_tensor_flops = Tera(4500);
  spec.int8_tensor_ops = Tera(4500);
  spec.dram_bytes_per_second = Tera(8);
  spec.dram_capacity_bytes = Giga(180);
  spec.l2_cache_bytes = 129536 * kKibibyte;  // 132,644,864 B
  spec.shared_memory_per_sm_bytes = 228 * kKibibyte;
  spec.registers_per_sm = 65536;
  spec.max_warps_per_sm = 64;
  spec.tdp_watts = 1000;
  spec.source =
      "NVIDIA HGX B200 specifications, per GPU = 8-GPU totals / 8 (FP64 and FP64 tensor 37, FP32 75 "
      "TFLOP/s; TF32 2.25, FP16/BF16 4.5, FP8 9 PFLOP/s and INT8 9 POPS with sparsity, halved here; 64 TB/s "
      "and 1.4 TB HBM3e, i.e. 8 TB/s and 180 GB; 1000 W); see "
      "https://glennklockwood.com/garden/processors/B200 and "
      "https://zdszero.github.io/Computer/Artificial_Intelligence/Hardware.html (which lists 7.7 TB/s). "
      "Unverified: 148 SMs and L2 132,644,864 B (129,536 KiB) from a third-party device query; boost clock "
      "1965 MHz (the lock clock in NVIDIA benchmark scripts); memory clock, bus width and FP16 non-tensor "
      "rate unknown (0). Shared memory/registers/warps per SM: CUDA C++ Programming Guide, compute "
      "capability 10.0.";
  return spec;
}

GpuSpec Rtx4090() {
  GpuSpec spec = AdaSmResources(GpuSpec{});
  spec.key = "rtx4090";
  spec.aliases = {"rtx-4090", "4090", "geforce-rtx-4090"};
  spec.name = "NVIDIA GeForce RTX 4090";
  spec.device_names = {"NVIDIA GeForce RTX 4090"};
  spec.sm_count = 128;
  spec.boost_clock_hz = Mega(2520);
  spec.memory_clock_hz = Mega(10501);
  spec.memory_bus_width_bits = 384;
  spec.fp64_flops = Tera(1.29);
  spec.fp32_flops = Tera(82.6);
  spec.fp16_flops = Tera(82.6);
  spec.tf32_tensor_flops = Tera(82.6);
  spec.fp16_tensor_flops = Tera(165.2);  // FP32 accumulate; 330.3 with FP16 accumulate
  spec.bf16_tensor_flops = Tera(165.2);
  spec.fp8_tensor_flops = Tera(330.3);  // FP32 accumulate; 660.6 with FP16 accumulate
  spec.int8_tensor_ops = Tera(660.6);
  spec.dram_bytes_per_second = Giga(1008);
  spec.dram_capacity_bytes = Giga(24);
  spec.l2_cache_bytes = 72 * kMebibyte;  // 75,497,472 B
  spec.tdp_watts = 450;
  spec.source =
      "NVIDIA Ada Lovelace GPU Architecture whitepaper, Appendix A, RTX 4090 (FP32 82.6; TF32 82.6; FP16 "
      "and BF16 with FP32 accumulate 165.2 (330.3 with FP16 accumulate); FP8 with FP32 accumulate 330.3; "
      "INT8 660.6 TOPS, dense; 1008 GB/s GDDR6X, 24 GB, L2 72 MB, 450 W); copies: "
      "https://holynerdvana.blogspot.com/2022/10/nvidia-geforce-rtx-4090-specifications.html, "
      "https://waredb.com/processor/nvidia-geforce-rtx-4090. 128 SMs, 2520 MHz (some boards report 2535), "
      "memory clock 10501 MHz, 384-bit bus, L2 75,497,472 B: public deviceQuery outputs. FP64 1.29 TFLOP/s "
      "(1:64): derived, unverified.";
  return spec;
}

// Shared by the V100 rows (compute capability 7.0): FP16 tensor cores only.
GpuSpec VoltaV100(GpuSpec spec) {
  spec.compute_capability = "7.0";
  spec.sm_count = 80;
  spec.memory_clock_hz = Mega(877);
  spec.memory_bus_width_bits = 4096;
  spec.dram_bytes_per_second = Giga(900);
  spec.dram_capacity_bytes = Giga(16);               // the 32 GB variant has the same rates
  spec.l2_cache_bytes = 6 * kMebibyte;               // 6,291,456 B
  spec.shared_memory_per_sm_bytes = 96 * kKibibyte;  // 98,304 B
  spec.registers_per_sm = 65536;
  spec.max_warps_per_sm = 64;
  return spec;
}

constexpr const char* kV100Sources =
    "NVIDIA Tesla V100 datasheet and NVIDIA Tesla V100 GPU Architecture whitepaper (Volta tensor cores: "
    "FP16 inputs only; no TF32, BF16, FP8 or INT8 tensor rates, 0 here; 900 GB/s HBM2, 16 or 32 GB; the "
    "table lists 16 GB). 80 SMs, memory clock 877 MHz, 4096-bit bus, L2 6,291,456 B, 98,304 B shared memory "
    "per SM: public deviceQuery outputs. FP16 non-tensor = 2 x FP32 (unverified).";

GpuSpec V100Sxm2() {
  GpuSpec spec;
  spec.key = "v100-sxm2";
  spec.aliases = {"v100", "v100-sxm2-16gb", "v100-sxm2-32gb"};
  spec.name = "NVIDIA Tesla V100 SXM2 (16/32 GB)";
  spec.device_names = {"Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB", "Tesla V100-SXM2-32GB-LS"};
  spec = VoltaV100(spec);
  spec.boost_clock_hz = Mega(1530);
  spec.fp64_flops = Tera(7.8);
  spec.fp32_flops = Tera(15.7);
  spec.fp16_flops = Tera(31.4);
  spec.fp16_tensor_flops = Tera(125);
  spec.tdp_watts = 300;
  spec.source =
      std::string(kV100Sources) + " SXM2: FP64 7.8, FP32 15.7, tensor 125 TFLOP/s, 1530 MHz, 300 W.";
  return spec;
}

GpuSpec V100Pcie() {
  GpuSpec spec;
  spec.key = "v100-pcie";
  spec.aliases = {"v100-pcie-16gb", "v100-pcie-32gb"};
  spec.name = "NVIDIA Tesla V100 PCIe (16/32 GB)";
  spec.device_names = {"Tesla V100-PCIE-16GB", "Tesla V100-PCIE-32GB"};
  spec = VoltaV100(spec);
  spec.boost_clock_hz = Mega(1380);
  spec.fp64_flops = Tera(7);
  spec.fp32_flops = Tera(14);
  spec.fp16_flops = Tera(28);
  spec.fp16_tensor_flops = Tera(112);
  spec.tdp_watts = 250;
  spec.source = std::string(kV100Sources) + " PCIe: FP64 7, FP32 14, tensor 112 TFLOP/s, 1380 MHz, 250 W.";
  return spec;
}

std::vector<GpuSpec> BuildTable() {
  return {H100Sxm(), H100Pcie(), H200Sxm(), A100Sxm80(), A100Sxm40(), A100Pcie40(), A100Pcie80(),
          L40s(),    L4(),       B200(),    Rtx4090(),   V100Sxm2(),  V100Pcie()};
}

// Lower case, '_' as '-', whitespace runs collapsed to one space, trimmed.
std::string NormalizeSpelling(std::string_view text) {
  std::string normalized;
  for (char character : text) {
    unsigned char byte = static_cast<unsigned char>(character);
    if (std::isspace(byte)) {
      if (!normalized.empty() && normalized.back() != ' ') normalized += ' ';
      continue;
    }
    normalized += character == '_' ? '-' : static_cast<char>(std::tolower(byte));
  }
  if (!normalized.empty() && normalized.back() == ' ') normalized.pop_back();
  return normalized;
}

// The comparable form of a name: normalised, vendor and brand words and a MIG
// suffix removed ("NVIDIA A100-SXM4-40GB MIG 1g.5gb" -> "a100-sxm4-40gb").
std::string MatchForm(std::string_view text) {
  std::string name = NormalizeSpelling(text);
  size_t mig = name.find(" mig ");
  if (mig != std::string::npos) name.resize(mig);
  if (name.size() > 4 && name.ends_with(" mig")) name.resize(name.size() - 4);
  for (std::string_view prefix : {"nvidia ", "tesla ", "geforce "}) {
    if (StartsWith(name, prefix)) name.erase(0, prefix.size());
  }
  return name;
}

bool RowMatches(const GpuSpec& spec, const std::string& wanted) {
  if (MatchForm(spec.key) == wanted || MatchForm(spec.name) == wanted) return true;
  auto same = [&wanted](const std::string& candidate) { return MatchForm(candidate) == wanted; };
  return std::any_of(spec.aliases.begin(), spec.aliases.end(), same) ||
         std::any_of(spec.device_names.begin(), spec.device_names.end(), same);
}

}  // namespace

const std::vector<GpuSpec>& KnownGpus() {
  static const std::vector<GpuSpec>* const table = new std::vector<GpuSpec>(BuildTable());
  return *table;
}

const GpuSpec* FindGpu(std::string_view key_or_device_name) {
  std::string wanted = MatchForm(key_or_device_name);
  if (wanted.empty()) return nullptr;
  for (const GpuSpec& spec : KnownGpus()) {
    if (RowMatches(spec, wanted)) return &spec;
  }
  return nullptr;
}

double RidgePoint(double peak_per_second, double dram_bytes_per_second) {
  if (peak_per_second <= 0 || dram_bytes_per_second <= 0) return 0;
  return peak_per_second / dram_bytes_per_second;
}

double DramBandwidthFromClock(double memory_clock_hz, int memory_bus_width_bits) {
  if (memory_clock_hz <= 0 || memory_bus_width_bits <= 0) return 0;
  return 2 * memory_clock_hz * memory_bus_width_bits / 8;
}

}  // namespace kopt
