// Stage 1 of the diagnosis: roofline placement and bottleneck class.
//
// From one launch's metrics: FLOPs per precision (FP64, FP32, FP16 and tensor
// work), bytes moved at DRAM, L2 and L1, arithmetic intensity, achieved rates
// against each ceiling, percent of speed of light, and the class (memory-,
// compute-, latency-bound or mixed) with a one-sentence reason.
//
// Ceilings come from the profile itself where ncu reports peaks
// (`*.peak_sustained` × clock), else from the GpuSpec table; each Ceiling says
// which. With a measured ceilings table of the GPU (`kopt calibrate`,
// hw/ceilings_table.h) the floors are also bounded by what that GPU achieves
// at the kernel's size: the DRAM floor is at least the time a tuned copy of
// the same bytes takes, the FP32 floor at least that of FFMA chains of the
// same FLOP; `achievable_percent` says how close the kernel is to those.
// Units: FLOP, FLOP/s, byte, byte/s, ns, %.
//
// Thread safety: pure function of its inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw/ceilings_table.h"
#include "hw/gpu_spec.h"
#include "profile/kernel_launch.h"

namespace kopt {

enum class BottleneckClass { kMemoryBound, kComputeBound, kLatencyBound, kMixed, kUnknown };
std::string_view BottleneckClassName(BottleneckClass bottleneck_class);  // "memory-bound", ...

// Work done in one precision, against that precision's ceiling.
struct ComputeWork {
  std::string precision;  // "fp64", "fp32", "fp16", "tensor_fp16", "tensor_bf16", "tensor_tf32",
                          // "tensor_fp8", "tensor_int8", "tensor_fp64"
  double operations = 0;  // FLOP (OP for int8)
  double achieved_per_second = 0;
  double peak_per_second = 0;  // 0 when unknown
  double percent_of_peak = 0;
  std::string peak_source;  // "profile: ..." or "spec table: H200"
};

// Traffic at one level of the memory hierarchy.
struct MemoryTraffic {
  std::string level;  // "dram", "l2", "l1"
  double bytes = 0;
  double achieved_bytes_per_second = 0;
  double peak_bytes_per_second = 0;  // 0 when unknown
  double percent_of_peak = 0;
  std::string peak_source;
};

struct RooflineAnalysis {
  double duration_ns = 0;
  std::vector<ComputeWork> compute;   // precisions with non-zero work, plus fp32 always
  std::vector<MemoryTraffic> memory;  // levels whose metrics were present
  double total_flops = 0;
  std::string dominant_precision;      // the precision closest to its ceiling
  double arithmetic_intensity = 0;     // total FLOP per DRAM byte (0 when no DRAM bytes)
  double ridge_point = 0;              // dominant precision peak / DRAM peak, FLOP/byte
  double compute_percent_of_peak = 0;  // the dominant precision's percent of its ceiling
  double memory_percent_of_peak = 0;   // the busiest memory level's percent of its ceiling
  std::string busiest_memory_level;    // "dram", "l2", "l1"; empty when no level was measured
  // True when the busiest level was chosen by ncu's unit throughput (e.g.
  // l1tex__throughput for shared-memory traffic) rather than by bytes moved.
  bool busiest_memory_from_unit_throughput = false;
  // ncu's own speed-of-light percentages when present.
  std::optional<double> sm_throughput_percent;
  std::optional<double> memory_throughput_percent;
  double speed_of_light_percent = 0;  // max of everything above: how close to any ceiling
  // False when no percent above was measured (no peak known, no ncu throughput metric): then
  // speed_of_light_percent is 0 by default, not a measurement, and reports say "not measured".
  bool speed_of_light_known = false;
  // Roofline floor: the least time the work could take at the ceilings (ns):
  // max(compute_floor_ns, memory_floor_ns).
  double floor_ns = 0;
  double compute_floor_ns = 0;  // every precision's work at its peak, serialized
  double memory_floor_ns = 0;   // the DRAM bytes at DRAM peak
  // Measured, size-limited ceilings: set only when a ceilings table was used.
  std::optional<AchievableCeiling> achievable_dram;  // for this kernel's DRAM bytes
  std::optional<AchievableCeiling> achievable_fp32;  // for its FP32 FLOP
  std::string ceilings_table;                        // the table's file (or GPU name); empty: none used
  double achievable_percent = 0;  // 100 × floor / duration with the measured floors; 0 without a table
  BottleneckClass bottleneck = BottleneckClass::kUnknown;
  std::string reason;                        // one sentence with the numbers that decide the class
  std::vector<std::string> missing_metrics;  // metrics stage 1 wanted but the profile lacked
};

// Thresholds of the classifier, in percent of peak. Plain struct; defaults are
// the values the analysis uses unless configured.
// The rule follows ncu's SpeedOfLight triage: below `bound_percent` on both
// sides the kernel is latency-bound; above it, the side ahead by at least
// `balance_points` names the class, else it is mixed.
struct RooflineOptions {
  double bound_percent = 60;   // a unit at or above this share of its peak bounds the kernel
  double balance_points = 10;  // compute and memory within this many points: mixed
};

// Fills the derived fields (dominant precision, intensity, ridge point, speed
// of light, floor, class and reason) from `analysis.compute`/`memory`. Exposed
// for tests; AnalyzeRoofline calls it.
void SummarizeRoofline(const KernelLaunch& launch, const RooflineOptions& options,
                       RooflineAnalysis& analysis);

// `ceilings`: the measured table of the profile's GPU, or nullptr.
RooflineAnalysis AnalyzeRoofline(const KernelLaunch& launch, const GpuSpec* spec,
                                 const RooflineOptions& options = {},
                                 const CeilingsTable* ceilings = nullptr);

}  // namespace kopt
