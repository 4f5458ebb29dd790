// GPU specifications for the roofline: a built-in table of datasheet values
// (each row cites its source) and, where a GPU is present, values read live
// from the device.
//
// Units: rates in operations per second (FLOP/s, OP/s for int8), bandwidth in
// bytes per second, sizes in bytes, clocks in hertz, power in watts. Tensor
// rates are dense (no 2:4 sparsity). A field that is unknown is 0.
//
// Thread safety: KnownGpus() returns an immutable table; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

struct GpuSpec {
  std::string key;                 // short id used on the command line: "h200"
  std::string name;                // marketing name: "NVIDIA H200 SXM"
  std::vector<std::string> device_names;  // names the driver reports, for matching: "NVIDIA H200"
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  double boost_clock_hz = 0;
  double memory_clock_hz = 0;
  double fp64_flops = 0;           // non-tensor FP64
  double fp64_tensor_flops = 0;
  double fp32_flops = 0;           // non-tensor FP32 (FFMA counted as 2)
  double fp16_flops = 0;           // non-tensor packed FP16 (HFMA2)
  double tf32_tensor_flops = 0;
  double fp16_tensor_flops = 0;    // FP16 inputs, FP32 accumulate
  double bf16_tensor_flops = 0;
  double fp8_tensor_flops = 0;
  double int8_tensor_ops = 0;
  double dram_bytes_per_second = 0;
  double dram_capacity_bytes = 0;
  double l2_cache_bytes = 0;
  double shared_memory_per_sm_bytes = 0;
  double registers_per_sm = 0;     // 32-bit registers
  int max_warps_per_sm = 0;
  double tdp_watts = 0;
  std::string source;              // citation for the table values, or "live device query"
};

// The built-in table, one row per GPU model.
const std::vector<GpuSpec>& KnownGpus();

// Finds a row by key ("h200") or by a device name as the driver or ncu reports
// it ("NVIDIA H200", "NVIDIA H100 80GB HBM3"); nullptr when none matches.
const GpuSpec* FindGpu(std::string_view key_or_device_name);

// Reads the GPUs present on this machine through the CUDA driver API, loaded
// at run time (libcuda.so.1). Values the driver reports (SMs, clocks, L2,
// shared memory, registers, memory size) override the table row of the same
// model; rates come from the table. Unavailable when no driver or no GPU.
Result<std::vector<GpuSpec>> QueryLiveGpus();

}  // namespace kopt
