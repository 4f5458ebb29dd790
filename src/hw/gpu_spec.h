// GPU specifications for the roofline: a built-in table of datasheet values
// (each row cites its source) and, where a GPU is present, values read live
// from the device.
//
// Units: rates in operations per second (FLOP/s, OP/s for int8), bandwidth in
// bytes per second, sizes in bytes, clocks in hertz, power in watts. Tensor
// rates are dense (no 2:4 sparsity). A field that is unknown is 0.
//
// Table rows carry datasheet and whitepaper values (decimal units as NVIDIA
// prints them: "80 GB" is 80e9 bytes, "3.35 TB/s" is 3.35e12 byte/s) except
// cache and per-SM sizes, which are the exact byte counts the driver reports
// (L2 "50 MB" on H100 is 52,428,800 bytes). `source` names the documents and
// says which values are unverified.
//
// Thread safety: KnownGpus() returns an immutable table; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

struct GpuSpec {
  std::string key;                        // short id used on the command line: "h200"
  std::string name;                       // marketing name: "NVIDIA H200 SXM"
  std::vector<std::string> device_names;  // names the driver reports, for matching: "NVIDIA H200"
  std::string compute_capability;         // "9.0"
  int sm_count = 0;
  double boost_clock_hz = 0;
  double memory_clock_hz = 0;  // as the CUDA driver reports it (see DramBandwidthFromClock)
  double fp64_flops = 0;       // non-tensor FP64
  double fp64_tensor_flops = 0;
  double fp32_flops = 0;  // non-tensor FP32 (FFMA counted as 2)
  double fp16_flops = 0;  // non-tensor packed FP16 (HFMA2)
  double tf32_tensor_flops = 0;
  double fp16_tensor_flops = 0;  // FP16 inputs, FP32 accumulate
  double bf16_tensor_flops = 0;
  double fp8_tensor_flops = 0;
  double int8_tensor_ops = 0;
  double dram_bytes_per_second = 0;
  double dram_capacity_bytes = 0;
  double l2_cache_bytes = 0;
  double shared_memory_per_sm_bytes = 0;
  double registers_per_sm = 0;  // 32-bit registers
  int max_warps_per_sm = 0;
  double tdp_watts = 0;
  std::string source;  // citation for the table values, or "live device query"
  // Added fields (kept last so that existing aggregate initialisers stay valid).
  std::vector<std::string> aliases;  // other keys accepted by FindGpu: "h100" for "h100-sxm"
  int memory_bus_width_bits = 0;     // DRAM interface width in bits (5120 on H100 SXM)
  // Set by QueryLiveGpus only:
  int device_index = -1;       // CUDA driver ordinal; -1 for a table row
  std::string driver_version;  // CUDA driver API version, "12.8"; empty for a table row
  std::string table_key;       // key of the table row the rates came from; empty when none matched
};

// Ridge point of the roofline: peak rate (FLOP/s or OP/s) over DRAM
// bandwidth (byte/s), in FLOP per byte; 0 when either is unknown.
double RidgePoint(double peak_per_second, double dram_bytes_per_second);

// DRAM bandwidth in byte/s from the memory clock the CUDA driver reports
// (CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, in hertz here) and the bus width in
// bits: 2 transfers per clock × width / 8, which holds for the HBM and GDDR
// parts in the table (H200: 2 × 3.201 GHz × 6016 / 8 = 4.81 TB/s). 0 when
// either input is unknown.
double DramBandwidthFromClock(double memory_clock_hz, int memory_bus_width_bits);

// The built-in table, one row per GPU model.
const std::vector<GpuSpec>& KnownGpus();

// Finds a row by key ("h200"), alias ("h100"), marketing name, or a device name
// as the driver or ncu reports it ("NVIDIA H200", "NVIDIA H100 80GB HBM3",
// "Tesla V100-SXM2-16GB"); nullptr when none matches. Matching is exact after
// normalising: case-insensitive, runs of spaces collapsed, '_' read as '-', a
// leading "NVIDIA", "Tesla" or "GeForce" optional, and a MIG suffix
// (" MIG 1g.10gb") ignored. There is no substring matching, so a model that
// is not in the table ("NVIDIA H100 NVL", "NVIDIA L40") is not mistaken for
// one that is ("NVIDIA H100 80GB HBM3", "NVIDIA L40S"); every name is unique
// across rows, so the most specific row is the only one that can match.
const GpuSpec* FindGpu(std::string_view key_or_device_name);

// Reads the GPUs present on this machine through the CUDA driver API, loaded
// at run time with dlopen (libcuda.so.1; no link-time CUDA dependency).
// Values the driver reports override the table row of the same model
// (FindGpu on the device name): SM count, max SM clock, memory clock and bus
// width (and the DRAM bandwidth derived from them), L2, shared memory and
// registers per SM, max warps per SM, memory size, compute capability.
// Rates come from the table row, scaled by live SMs / table SMs when these
// differ (a MIG instance). A GPU not in the table gets a row with what the
// driver reports and rates 0 (unknown). `source` says what came from where.
//
// Unavailable when the environment sets KOPT_NO_GPU_QUERY=1, when
// libcuda.so.1 cannot be loaded (no driver), or when the driver reports an
// error or no GPU; the message names the failing driver call, file and line.
// Side effect: initialises the CUDA driver in this process (cuInit) without
// creating a context; a process that fork()s afterwards must exec before its
// child uses CUDA. Thread-safe.
Result<std::vector<GpuSpec>> QueryLiveGpus();

// True when the environment variable KOPT_NO_GPU_QUERY is set to "1" (golden
// tests use it so that output does not depend on the machine).
bool LiveGpuQueryDisabled();

}  // namespace kopt
