// Test-only: realistic Diagnosis values for the renderer tests (H200 SXM).
//
// - MemoryBoundSample: a saxpy-like stream at 80% of 4.81 TB/s DRAM, 57664 ns,
//   long_scoreboard 88.7 of 100 cycles per issue, one minor "near the ceiling"
//   finding.
// - FindingSample: a naive transpose whose uncoalesced loads dominate, with
//   three ranked findings, evidence, recommendations and source locations; it
//   does no floating-point work.
// - MissingMetricsSample: a launch profiled with few sections: unknown class,
//   no stalls, missing metrics and notes.
// - HostileSample: every string field holds markup, quotes or control
//   characters, to test escaping.
//
// Numbers are consistent with each other (bytes / duration = bandwidth).
#pragma once

#include <string>

#include "analysis/diagnosis.h"

namespace kopt::render_test {

inline GpuSpec H200Spec() {
  GpuSpec spec;
  spec.key = "h200";
  spec.name = "NVIDIA H200 SXM";
  spec.device_names = {"NVIDIA H200"};
  spec.compute_capability = "9.0";
  spec.sm_count = 132;
  spec.boost_clock_hz = 1.98e9;
  spec.fp64_flops = 33.5e12;
  spec.fp32_flops = 66.9e12;
  spec.fp16_tensor_flops = 989.4e12;
  spec.dram_bytes_per_second = 4.8e12;
  spec.l2_cache_bytes = 50331648;
  spec.source = "NVIDIA H200 datasheet";
  return spec;
}

inline MemoryTraffic Traffic(std::string level, double bytes, double duration_ns, double peak,
                             std::string source) {
  MemoryTraffic traffic;
  traffic.level = std::move(level);
  traffic.bytes = bytes;
  traffic.achieved_bytes_per_second = bytes / (duration_ns * 1e-9);
  traffic.peak_bytes_per_second = peak;
  traffic.percent_of_peak = peak > 0 ? traffic.achieved_bytes_per_second / peak * 100 : 0;
  traffic.peak_source = std::move(source);
  return traffic;
}

inline ComputeWork Work(std::string precision, double operations, double duration_ns, double peak,
                        std::string source) {
  ComputeWork work;
  work.precision = std::move(precision);
  work.operations = operations;
  work.achieved_per_second = operations / (duration_ns * 1e-9);
  work.peak_per_second = peak;
  work.percent_of_peak = peak > 0 ? work.achieved_per_second / peak * 100 : 0;
  work.peak_source = std::move(source);
  return work;
}

inline std::vector<StallReason> Stalls(const std::vector<std::pair<std::string, double>>& cycles) {
  double total = 0;
  for (const auto& entry : cycles) total += entry.second;
  std::vector<StallReason> stalls;
  for (const auto& [name, value] : cycles) stalls.push_back({name, value, value / total});
  return stalls;
}

inline KernelDiagnosis SaxpyKernel() {
  constexpr double kDuration = 57664;
  constexpr double kDramBytes = 0.80 * 4.81e12 * kDuration * 1e-9;  // 80% of 4.81 TB/s
  constexpr double kFlops = kDramBytes / 12 * 2;                    // 2 FLOP per 12 bytes
  KernelDiagnosis kernel;
  kernel.launch_id = 0;
  kernel.kernel_name = "saxpy(float, const float *, float *, int)";
  kernel.function_name = "saxpy";
  kernel.grid = {72226, 1, 1};
  kernel.block = {256, 1, 1};
  kernel.registers_per_thread = 16;
  kernel.shared_memory_per_block_bytes = 0;
  RooflineAnalysis& roofline = kernel.roofline;
  roofline.duration_ns = kDuration;
  roofline.compute = {
      Work("fp32", kFlops, kDuration, 66.9e12, "profile: 2 × sm__inst_executed_pipe_fma × sm clock")};
  roofline.memory = {
      Traffic("dram", kDramBytes, kDuration, 4.81e12,
              "profile: dram__bytes.sum.peak_sustained × dram__cycles_elapsed.avg.per_second"),
      Traffic("l2", kDramBytes * 1.02, kDuration, 12.1e12, "profile: lts__t_sectors rate ÷ pct_of_peak"),
      Traffic("l1", kDramBytes, kDuration, 33.5e12, "model: 128 byte/cycle/SM × 132 SMs × 1.98 GHz")};
  roofline.total_flops = kFlops;
  roofline.dominant_precision = "fp32";
  roofline.arithmetic_intensity = kFlops / kDramBytes;
  roofline.ridge_point = 66.9e12 / 4.81e12;
  roofline.compute_percent_of_peak = roofline.compute[0].percent_of_peak;
  roofline.memory_percent_of_peak = 80.0;
  roofline.busiest_memory_level = "dram";
  roofline.sm_throughput_percent = 18.3;
  roofline.memory_throughput_percent = 80.4;
  roofline.speed_of_light_percent = 80.4;
  roofline.speed_of_light_known = true;
  roofline.floor_ns = kDramBytes / 4.81e12 * 1e9;
  roofline.bottleneck = BottleneckClass::kMemoryBound;
  roofline.reason =
      "Memory-bound: DRAM is at 80% of its peak (3.85 TB/s of 4.81 TB/s), while the SM is at 18% of its "
      "peak; "
      "0.167 FLOP/byte is below the ridge point of 13.9.";
  kernel.stalls = Stalls({{"long_scoreboard", 88.7},
                          {"lg_throttle", 4.1},
                          {"wait", 2.5},
                          {"not_selected", 1.2},
                          {"selected", 1.0},
                          {"short_scoreboard", 0.9},
                          {"dispatch_stall", 0.6},
                          {"no_instruction", 0.5},
                          {"math_pipe_throttle", 0.3},
                          {"barrier", 0.2}});
  return kernel;
}

inline Finding NearCeilingFinding() {
  Finding finding;
  finding.tool = "healthy_near_ceiling";
  finding.title = "Near the DRAM ceiling: little left to gain inside this kernel";
  finding.severity = Severity::kMinor;
  finding.estimated_gain = 0.20;
  finding.gain_method = "1 − roofline floor ÷ duration (46.1 µs ÷ 57.7 µs)";
  finding.evidence = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 80.0, "%", ">=", 70.0}};
  finding.root_cause =
      "The kernel streams each byte once at 80% of the DRAM peak; the rest is the usual gap "
      "between sustained and datasheet bandwidth.";
  finding.recommendations = {{"Fuse saxpy with the kernel that produces x or consumes y",
                              "The data then crosses DRAM once instead of twice",
                              "Up to 2× less DRAM traffic for the pair of kernels"}};
  finding.confidence = 0.85;
  return finding;
}

inline Diagnosis MemoryBoundSample() {
  Diagnosis diagnosis;
  diagnosis.source = "examples/kernels/saxpy.csv";
  diagnosis.device_name = "NVIDIA H200";
  diagnosis.gpu = H200Spec();
  diagnosis.kernels.push_back(SaxpyKernel());
  diagnosis.kernels.back().findings.push_back(NearCeilingFinding());
  return diagnosis;
}

inline Finding UncoalescedLoadsFinding() {
  Finding finding;
  finding.tool = "uncoalesced_global_loads";
  finding.title = "Uncoalesced global loads: 32 sectors per request instead of 4";
  finding.severity = Severity::kMajor;
  finding.estimated_gain = 0.62;
  finding.gain_method =
      "excess L2 sectors (28 of 32 per request) × share of long-scoreboard stalls, capped by the "
      "roofline floor";
  finding.evidence = {
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum ÷ l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
       32.0, "sector/request", ">", 8.0},
      {"long_scoreboard share of stall cycles", 71.0, "%", ">=", 40.0},
      {"lts__t_bytes.sum", 2.15e9, "byte", ">", 5.4e8}};
  finding.root_cause =
      "Consecutive threads of a warp read floats one row apart (stride = width × 4 bytes), so "
      "every load instruction touches 32 different 32-byte sectors.";
  finding.recommendations = {
      {"Stage a 32×32 tile through shared memory: read it with threadIdx.x along the contiguous dimension, "
       "__syncthreads(), then write the transposed tile",
       "Reads and writes both become coalesced (4 sectors per request)",
       "L2 traffic drops about 4×; kernel time −55% to −65%"},
      {"Pad the shared tile to 33 columns", "Avoids the 32-way bank conflicts a square tile would add",
       "Shared-memory wavefronts stay at 1 per request"}};
  finding.locations = {{"transpose.cu:14", 0x90, "LDG.E R2, desc[UR4][R2.64]", 0.71},
                       {"transpose.cu:14", 0xb0, "STG.E desc[UR4][R4.64], R2", 0.08}};
  finding.confidence = 0.9;
  return finding;
}

inline Finding OccupancyFinding() {
  Finding finding;
  finding.tool = "achieved_occupancy_gap";
  finding.title = "Achieved occupancy 41% of a theoretical 100%";
  finding.severity = Severity::kModerate;
  finding.estimated_gain = 0.08;
  finding.gain_method = "missing warps × latency-hiding share";
  finding.evidence = {{"sm__warps_active.avg.pct_of_peak_sustained_active", 41.0, "%", "<", 80.0}};
  finding.root_cause = "Warps finish unevenly across the SMs.";
  finding.recommendations = {{"Fix the loads first", "", ""}};
  finding.confidence = 0.6;
  return finding;
}

inline Finding TailFinding() {
  Finding finding;
  finding.tool = "tail_effect";
  finding.title = "Partial last wave";
  finding.severity = Severity::kInfo;
  finding.estimated_gain = 0.02;
  finding.gain_method = "idle fraction of the last wave";
  finding.evidence = {{"launch__waves_per_multiprocessor", 7.2, "", "<", 0.0}};
  finding.confidence = 0.5;
  return finding;
}

inline KernelDiagnosis TransposeKernel() {
  constexpr double kDuration = 412300;
  KernelDiagnosis kernel;
  kernel.launch_id = 3;
  kernel.kernel_name = "void transpose_naive<(int)32>(const float *, float *, int, int)";
  kernel.function_name = "transpose_naive<(int)32>";
  kernel.grid = {256, 256, 1};
  kernel.block = {32, 32, 1};
  kernel.registers_per_thread = 18;
  kernel.shared_memory_per_block_bytes = 0;
  RooflineAnalysis& roofline = kernel.roofline;
  roofline.duration_ns = kDuration;
  roofline.compute = {Work("fp32", 0, kDuration, 66.9e12, "spec table: NVIDIA H200 SXM")};
  roofline.memory = {Traffic("dram", 5.369e8, kDuration, 4.81e12, "spec table: NVIDIA H200 SXM"),
                     Traffic("l2", 2.15e9, kDuration, 12.1e12, "profile"),
                     Traffic("l1", 4.3e9, kDuration, 33.5e12, "model")};
  roofline.dominant_precision = "fp32";
  roofline.ridge_point = 66.9e12 / 4.81e12;
  roofline.memory_percent_of_peak = roofline.memory[1].percent_of_peak;
  roofline.busiest_memory_level = "l2";
  roofline.sm_throughput_percent = 12.0;
  roofline.memory_throughput_percent = 68.0;
  roofline.speed_of_light_percent = 68.0;
  roofline.speed_of_light_known = true;
  roofline.floor_ns = 5.369e8 / 4.81e12 * 1e9;
  roofline.bottleneck = BottleneckClass::kMemoryBound;
  roofline.reason =
      "Memory-bound: L2 is at 43% of its peak (5.21 TB/s of 12.1 TB/s) with memory throughput at "
      "68%, while the SM is at 12% of its peak.";
  kernel.stalls = Stalls({{"long_scoreboard", 61.0},
                          {"lg_throttle", 12.0},
                          {"mio_throttle", 6.0},
                          {"wait", 3.0},
                          {"selected", 1.0}});
  kernel.findings = {UncoalescedLoadsFinding(), OccupancyFinding(), TailFinding()};
  return kernel;
}

// A compute-bound FP16 tensor-core GEMM (4096³ in 171 µs), with FP32 and FP16
// epilogue work: several ceilings close together.
inline KernelDiagnosis GemmKernel() {
  constexpr double kDuration = 171000;
  constexpr double kTensorFlops = 2.0 * 4096 * 4096 * 4096;
  KernelDiagnosis kernel;
  kernel.launch_id = 5;
  kernel.kernel_name =
      "void gemm_wgmma<128, 256, 64>(const __half *, const __half *, float *, int, int, int)";
  kernel.function_name = "gemm_wgmma<128, 256, 64>";
  kernel.grid = {16, 32, 1};
  kernel.block = {384, 1, 1};
  kernel.registers_per_thread = 168;
  kernel.shared_memory_per_block_bytes = 196608;
  RooflineAnalysis& roofline = kernel.roofline;
  roofline.duration_ns = kDuration;
  roofline.compute = {
      Work("tensor_fp16", kTensorFlops, kDuration, 989.4e12, "spec table: NVIDIA H200 SXM (dense)"),
      Work("fp32", 4096.0 * 4096 * 2, kDuration, 66.9e12, "spec table: NVIDIA H200 SXM"),
      Work("fp16", 4096.0 * 4096, kDuration, 133.8e12, "spec table: NVIDIA H200 SXM"),
      Work("fp64", 0, kDuration, 33.5e12, "spec table: NVIDIA H200 SXM")};
  roofline.memory = {Traffic("dram", 1.9e8, kDuration, 4.81e12, "spec table: NVIDIA H200 SXM"),
                     Traffic("l2", 1.2e9, kDuration, 12.1e12, "profile"),
                     Traffic("l1", 3.1e9, kDuration, 33.5e12, "model")};
  roofline.total_flops = kTensorFlops + 4096.0 * 4096 * 3;
  roofline.dominant_precision = "tensor_fp16";
  roofline.arithmetic_intensity = roofline.total_flops / 1.9e8;
  roofline.ridge_point = 989.4e12 / 4.81e12;
  roofline.compute_percent_of_peak = roofline.compute[0].percent_of_peak;
  roofline.memory_percent_of_peak = roofline.memory[1].percent_of_peak;
  roofline.busiest_memory_level = "l2";
  roofline.sm_throughput_percent = 84.0;
  roofline.speed_of_light_percent = 84.0;
  roofline.speed_of_light_known = true;
  roofline.floor_ns = kTensorFlops / 989.4e12 * 1e9;
  roofline.bottleneck = BottleneckClass::kComputeBound;
  roofline.reason =
      "Compute-bound: the SM is at 84% of its peak (FP16 tensor arithmetic at 81% of its ceiling), "
      "while L2 is at 58% of its peak.";
  kernel.stalls = Stalls({{"math_pipe_throttle", 9.0},
                          {"gmma", 6.0},
                          {"long_scoreboard", 2.0},
                          {"barrier", 1.5},
                          {"selected", 1.0}});
  return kernel;
}

inline Diagnosis FindingSample() {
  Diagnosis diagnosis;
  diagnosis.source = "examples/kernels/transpose_naive.cu";
  diagnosis.device_name = "NVIDIA H200";
  diagnosis.gpu = H200Spec();
  diagnosis.kernels.push_back(TransposeKernel());
  return diagnosis;
}

inline Diagnosis SeveralKernelsSample() {
  Diagnosis diagnosis = MemoryBoundSample();
  diagnosis.source = "python train_step.py";
  diagnosis.kernels.push_back(TransposeKernel());
  diagnosis.kernels.push_back(GemmKernel());
  return diagnosis;
}

inline Diagnosis MissingMetricsSample() {
  Diagnosis diagnosis;
  diagnosis.source = "launch_stats_only.csv";
  diagnosis.device_name = "NVIDIA H200";
  KernelDiagnosis kernel;
  kernel.launch_id = 7;
  kernel.kernel_name = "reduce(const float *, float *, int)";
  kernel.function_name = "reduce";
  kernel.grid = {1, 1, 1};
  kernel.block = {1024, 1, 1};
  kernel.roofline.duration_ns = 8200;
  kernel.roofline.bottleneck = BottleneckClass::kUnknown;
  kernel.roofline.reason = "Unknown: the profile lacks the duration and throughput metrics stage 1 needs.";
  kernel.roofline.missing_metrics = {
      "dram__bytes.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
      "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"};
  kernel.notes = {"Warp-stall metrics are absent: collect the WarpStateStats section."};
  diagnosis.kernels.push_back(kernel);
  diagnosis.notes = {"The profile was captured with --section LaunchStats only."};
  return diagnosis;
}

inline constexpr const char* kHostileName = "<script>alert(1)</script> & \"quotes\" 'apostrophes'";

inline Diagnosis HostileSample() {
  Diagnosis diagnosis = FindingSample();
  diagnosis.source = "evil\"><script>alert('source')</script>.cu";
  diagnosis.device_name = "</title><script>alert(0)</script>";
  diagnosis.notes = {"</style><script>alert('note')</script>"};
  KernelDiagnosis& kernel = diagnosis.kernels.front();
  kernel.kernel_name = std::string("void k<(int)1>(float*, <script>) ") + kHostileName + " \x1b[31mred\x07";
  kernel.function_name = kHostileName;
  kernel.roofline.reason = "Reason with <b>markup</b> & | pipes | and `ticks`";
  kernel.roofline.memory[0].peak_source = "\"><svg onload=alert(3)>";
  kernel.stalls[0].name = "<script>stall</script>";
  Finding& finding = kernel.findings.front();
  finding.title = "<img src=x onerror=alert(2)> title";
  finding.root_cause = "root </article><script>x</script>";
  finding.evidence[0].metric = "a<b && c>d | e";
  finding.locations[0].source_line = "evil.cu:1 <b>\"'";
  finding.locations[0].sass_text = "LDG <x>";
  finding.recommendations[0].change = "use <shared> & \x1b[2Jclear";
  finding.merged_tools = {"<script>merged</script>"};
  kernel.skipped_tools = {
      {"<script>skipped</script>", {"<b>metric</b> | pipe"}, "ncu \x1b[31m<i>collect</i>"}};
  return diagnosis;
}

// A healthy compute-bound FP32 kernel (94% of its FP32 ceiling): the healthy
// verdict first, a minor finding that folded another tool's finding into it
// (its evidence appended), and tools skipped for lack of inputs.
inline Finding HealthyFinding() {
  Finding finding;
  finding.tool = "healthy";
  finding.title = "Healthy: at 94% of its SM throughput ceiling";
  finding.severity = Severity::kInfo;
  finding.estimated_gain = 0.06;
  finding.gain_method = "next-order gain: the gap to the ceiling, 1 − speed of light";
  finding.evidence = {{"speed of light (max of SM and memory throughput)", 94.0, "%", ">=", 80.0},
                      {"duration / roofline floor", 1.06, "x", "", 0}};
  finding.root_cause =
      "Nothing is wrong: the kernel is compute-bound and runs at 94% of the ceiling that bounds it.";
  finding.recommendations = {{"Do less work per result: cheaper instructions or algorithmic savings",
                              "At the compute ceiling only fewer or cheaper instructions make it faster",
                              "time falls in proportion to the instructions removed"}};
  finding.confidence = 0.9;
  return finding;
}

inline Finding MergedSpillFinding() {
  Finding finding;
  finding.tool = "local_memory_spills";
  finding.title = "Register spills to local memory";
  finding.severity = Severity::kMinor;
  finding.estimated_gain = 0.04;
  finding.gain_method = "local-memory share of L1 traffic × long-scoreboard share";
  finding.evidence = {{"ptxas spill stores", 48, "byte", ">", 0},
                      {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 1.2e6, "sector", ">", 0},
                      {"local share of L1 sectors", 3.1, "%", ">=", 1.0},
                      {"long_scoreboard share of stall cycles", 22.0, "%", ">=", 20.0}};
  finding.root_cause =
      "The unrolled accumulator array does not fit the 64-register budget, so ptxas spills it.";
  finding.recommendations = {{"Drop __launch_bounds__(1024, 2) to (1024, 1)", "Frees registers",
                              "spills disappear; about 4% faster"}};
  finding.locations = {{"fma.cu:31", 0x1f0, "LDL.64 R8, [R1+0x10]", 0.12}};
  finding.confidence = 0.7;
  finding.merged_tools = {"memory_latency"};
  return finding;
}

inline KernelDiagnosis HealthyFmaKernel() {
  constexpr double kDuration = 120000;
  constexpr double kFlops = 0.94 * 66.9e12 * kDuration * 1e-9;
  KernelDiagnosis kernel;
  kernel.launch_id = 2;
  kernel.kernel_name = "fma_chain(float *, int)";
  kernel.function_name = "fma_chain";
  kernel.grid = {1056, 1, 1};
  kernel.block = {1024, 1, 1};
  kernel.registers_per_thread = 64;
  RooflineAnalysis& roofline = kernel.roofline;
  roofline.duration_ns = kDuration;
  roofline.compute = {Work("fp32", kFlops, kDuration, 66.9e12, "spec table: NVIDIA H200 SXM")};
  roofline.memory = {Traffic("dram", 4.3e6, kDuration, 4.81e12, "spec table: NVIDIA H200 SXM")};
  roofline.total_flops = kFlops;
  roofline.dominant_precision = "fp32";
  roofline.arithmetic_intensity = kFlops / 4.3e6;
  roofline.ridge_point = 66.9e12 / 4.81e12;
  roofline.compute_percent_of_peak = 94.0;
  roofline.busiest_memory_level = "dram";
  roofline.memory_percent_of_peak = roofline.memory[0].percent_of_peak;
  roofline.sm_throughput_percent = 94.0;
  roofline.speed_of_light_percent = 94.0;
  roofline.speed_of_light_known = true;
  roofline.floor_ns = kFlops / 66.9e12 * 1e9;
  roofline.bottleneck = BottleneckClass::kComputeBound;
  roofline.reason =
      "Compute-bound: FP32 arithmetic is at 94% of its ceiling, while DRAM is at 0% of its peak.";
  kernel.stalls = Stalls({{"math_pipe_throttle", 5.0}, {"long_scoreboard", 1.5}, {"selected", 1.0}});
  kernel.findings = {HealthyFinding(), MergedSpillFinding()};
  kernel.skipped_tools = {
      {"shared_bank_conflicts",
       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
       "ncu --set full"},
      {"uncoalesced_global_stores", {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"}, "ncu --set full"},
      {"fp64_in_float_code",
       {"SASS listing"},
       "the SASS listing (cuobjdump -sass; kopt explain --sass FILE)"}};
  return kernel;
}

inline Diagnosis HealthySkippedMergedSample() {
  Diagnosis diagnosis;
  diagnosis.source = "tests/fixtures/h200/healthy_fp32_fma/raw.csv";
  diagnosis.device_name = "NVIDIA H200";
  diagnosis.gpu = H200Spec();
  diagnosis.kernels.push_back(HealthyFmaKernel());
  return diagnosis;
}

// A kernel with more findings than a bounded report shows: `count` findings
// with falling gains, each with long evidence and several recommendations.
inline Diagnosis ManyFindingsSample(size_t count) {
  Diagnosis diagnosis = FindingSample();
  KernelDiagnosis& kernel = diagnosis.kernels.front();
  kernel.findings.clear();
  for (size_t index = 0; index < count; ++index) {
    Finding finding = UncoalescedLoadsFinding();
    finding.tool = "tool_" + std::to_string(index);
    finding.title = "Finding number " + std::to_string(index + 1);
    finding.estimated_gain = 0.5 / static_cast<double>(index + 1);
    finding.evidence.push_back({"extra_metric_" + std::to_string(index) + ".sum", 1, "", ">", 0});
    finding.evidence.push_back({"second_extra_metric_" + std::to_string(index) + ".sum", 2, "", ">", 0});
    finding.recommendations.push_back(finding.recommendations.front());
    finding.recommendations.push_back(finding.recommendations.front());
    kernel.findings.push_back(finding);
  }
  return diagnosis;
}

}  // namespace kopt::render_test
