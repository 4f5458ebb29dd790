#include "analysis/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/metric_reader.h"

namespace kopt {
namespace {

constexpr double kSectorBytes = 32;
// L1 bandwidth model when the profile has no L1 peak: 128 bytes per cycle per SM.
constexpr double kL1BytesPerCyclePerSm = 128;

double Percent(double achieved, double peak) {
  return peak > 0 ? 100.0 * achieved / peak : 0;
}

struct Context {
  MetricReader& reader;
  const GpuSpec* spec;
  double duration_seconds = 0;
  double sm_clock_hz = 0;
  std::string sm_clock_source;
};

// Scalar (non-tensor) floating-point work of one precision: add + mul + 2·fma
// thread instructions, as ncu's roofline counts them.
struct ScalarPrecision {
  const char* name;
  const char* add;
  const char* mul;
  const char* fma;
  double GpuSpec::*spec_peak;
};

constexpr ScalarPrecision kScalarPrecisions[] = {
    {"fp64", "dadd", "dmul", "dfma", &GpuSpec::fp64_flops},
    {"fp32", "fadd", "fmul", "ffma", &GpuSpec::fp32_flops},
    {"fp16", "hadd", "hmul", "hfma", &GpuSpec::fp16_flops},
};

// Thread instructions of one opcode over the launch: the .sum counter when
// collected, else the per-cycle rate times the elapsed cycles.
std::optional<double> ThreadInstructions(Context& context, const char* opcode) {
  std::string base = fmt::format("smsp__sass_thread_inst_executed_op_{}_pred_on.sum", opcode);
  if (auto total = context.reader.Peek(base)) return total;
  auto per_cycle = context.reader.Get(base + ".per_cycle_elapsed");
  if (!per_cycle || context.sm_clock_hz <= 0) return std::nullopt;
  return *per_cycle * context.sm_clock_hz * context.duration_seconds;
}

std::optional<ComputeWork> ScalarWork(Context& context, const ScalarPrecision& precision) {
  auto adds = ThreadInstructions(context, precision.add);
  auto multiplies = ThreadInstructions(context, precision.mul);
  auto fmas = ThreadInstructions(context, precision.fma);
  if (!adds && !multiplies && !fmas) return std::nullopt;
  ComputeWork work;
  work.precision = precision.name;
  work.operations = adds.value_or(0) + multiplies.value_or(0) + 2 * fmas.value_or(0);
  std::string peak_metric =
      fmt::format("sm__sass_thread_inst_executed_op_{}_pred_on.sum.peak_sustained", precision.fma);
  if (auto fma_per_cycle = context.reader.Peek(peak_metric); fma_per_cycle && context.sm_clock_hz > 0) {
    work.peak_per_second = 2 * *fma_per_cycle * context.sm_clock_hz;
    work.peak_source = fmt::format("profile: 2 × {} × {}", peak_metric, context.sm_clock_source);
  } else if (context.spec && context.spec->*precision.spec_peak > 0) {
    work.peak_per_second = context.spec->*precision.spec_peak;
    work.peak_source = "spec table: " + context.spec->name;
  }
  return work;
}

struct TensorPrecision {
  const char* name;
  const char* ops_metric;         // counts FLOP (2 per multiply-add)
  const char* dense_peak_metric;  // per-cycle dense peak of the wgmma path, when ncu reports one
  double GpuSpec::*spec_peak;
};

constexpr TensorPrecision kTensorPrecisions[] = {
    {"tensor_fp16", "sm__ops_path_tensor_src_fp16.sum",
     "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained", &GpuSpec::fp16_tensor_flops},
    {"tensor_bf16", "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
     "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained",
     &GpuSpec::bf16_tensor_flops},
    {"tensor_tf32", "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
     "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained",
     &GpuSpec::tf32_tensor_flops},
    {"tensor_fp8", "sm__ops_path_tensor_src_fp8_sparsity_off.sum", "", &GpuSpec::fp8_tensor_flops},
    {"tensor_int8", "sm__ops_path_tensor_src_int8.sum",
     "sm__ops_path_tensor_op_igmma_src_int8_sparsity_off.sum.peak_sustained", &GpuSpec::int8_tensor_ops},
    {"tensor_fp64", "sm__ops_path_tensor_src_fp64.sum", "", &GpuSpec::fp64_tensor_flops},
};

std::optional<ComputeWork> TensorWork(Context& context, const TensorPrecision& precision) {
  auto operations = context.reader.Peek(precision.ops_metric);
  if (!operations || *operations <= 0) return std::nullopt;
  ComputeWork work;
  work.precision = precision.name;
  work.operations = *operations;
  auto per_cycle =
      *precision.dense_peak_metric ? context.reader.Peek(precision.dense_peak_metric) : std::nullopt;
  if (per_cycle && context.sm_clock_hz > 0) {
    work.peak_per_second = *per_cycle * context.sm_clock_hz;
    work.peak_source = fmt::format("profile: {} × {}", precision.dense_peak_metric, context.sm_clock_source);
  } else if (context.spec && context.spec->*precision.spec_peak > 0) {
    work.peak_per_second = context.spec->*precision.spec_peak;
    work.peak_source = "spec table: " + context.spec->name + " (dense)";
  }
  return work;
}

void CollectCompute(Context& context, RooflineAnalysis& analysis) {
  for (const ScalarPrecision& precision : kScalarPrecisions) {
    auto work = ScalarWork(context, precision);
    if (!work) continue;
    if (work->operations > 0 || std::string_view(precision.name) == "fp32") analysis.compute.push_back(*work);
  }
  for (const TensorPrecision& precision : kTensorPrecisions) {
    if (auto work = TensorWork(context, precision)) analysis.compute.push_back(*work);
  }
  for (ComputeWork& work : analysis.compute) {
    work.achieved_per_second = context.duration_seconds > 0 ? work.operations / context.duration_seconds : 0;
    work.percent_of_peak = Percent(work.achieved_per_second, work.peak_per_second);
    analysis.total_flops += work.operations;
  }
}

std::optional<MemoryTraffic> DramTraffic(Context& context) {
  MetricReader& reader = context.reader;
  std::optional<double> bytes = reader.Peek("dram__bytes.sum");
  if (!bytes) bytes = reader.SumOfPresent({"dram__bytes_read.sum", "dram__bytes_write.sum"});
  if (!bytes) return std::nullopt;
  MemoryTraffic traffic;
  traffic.level = "dram";
  traffic.bytes = *bytes;
  auto per_cycle = reader.Peek("dram__bytes.sum.peak_sustained");
  auto dram_clock = reader.Peek("dram__cycles_elapsed.avg.per_second");
  if (per_cycle && dram_clock) {
    traffic.peak_bytes_per_second = *per_cycle * *dram_clock;
    traffic.peak_source = "profile: dram__bytes.sum.peak_sustained × dram__cycles_elapsed.avg.per_second";
  } else if (context.spec && context.spec->dram_bytes_per_second > 0) {
    traffic.peak_bytes_per_second = context.spec->dram_bytes_per_second;
    traffic.peak_source = "spec table: " + context.spec->name;
  }
  return traffic;
}

std::optional<MemoryTraffic> L2Traffic(Context& context) {
  auto sectors = context.reader.Get("lts__t_sectors.sum");
  if (!sectors) return std::nullopt;
  MemoryTraffic traffic;
  traffic.level = "l2";
  traffic.bytes = *sectors * kSectorBytes;
  // ncu reports the sector rate's share of its peak; the peak follows from it.
  auto percent = context.reader.Peek("lts__t_sectors.sum.pct_of_peak_sustained_elapsed");
  if (percent && *percent > 0 && context.duration_seconds > 0) {
    traffic.peak_bytes_per_second = traffic.bytes / context.duration_seconds / (*percent / 100);
    traffic.peak_source =
        "profile: lts__t_sectors achieved rate ÷ lts__t_sectors.sum.pct_of_peak_sustained_elapsed";
  }
  return traffic;
}

std::optional<MemoryTraffic> L1Traffic(Context& context) {
  auto sectors = context.reader.SumOfPresent(
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
       "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
       "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"});
  if (!sectors) return std::nullopt;
  MemoryTraffic traffic;
  traffic.level = "l1";
  traffic.bytes = *sectors * kSectorBytes;
  auto sm_count = context.reader.Peek("launch__sm_count");
  if (!sm_count) sm_count = context.reader.Peek("device__attribute_multiprocessor_count");
  if (!sm_count && context.spec) sm_count = context.spec->sm_count;
  if (sm_count && context.sm_clock_hz > 0) {
    traffic.peak_bytes_per_second = kL1BytesPerCyclePerSm * *sm_count * context.sm_clock_hz;
    traffic.peak_source = fmt::format("model: {} byte/cycle/SM × {} SMs × {}", kL1BytesPerCyclePerSm,
                                      *sm_count, context.sm_clock_source);
  }
  return traffic;
}

void CollectMemory(Context& context, RooflineAnalysis& analysis) {
  for (auto level : {DramTraffic(context), L2Traffic(context), L1Traffic(context)}) {
    if (!level) continue;
    level->achieved_bytes_per_second =
        context.duration_seconds > 0 ? level->bytes / context.duration_seconds : 0;
    level->percent_of_peak = Percent(level->achieved_bytes_per_second, level->peak_bytes_per_second);
    analysis.memory.push_back(*level);
  }
}

// The measured ceilings at this kernel's DRAM bytes and FP32 FLOP.
void AttachAchievableCeilings(const CeilingsTable& ceilings, RooflineAnalysis& analysis) {
  analysis.ceilings_table = ceilings.path.empty() ? ceilings.gpu_name : ceilings.path;
  for (const MemoryTraffic& level : analysis.memory) {
    if (level.level == "dram" && level.bytes > 0)
      analysis.achievable_dram = AchievableDram(ceilings, level.bytes);
  }
  for (const ComputeWork& work : analysis.compute) {
    if (work.precision == "fp32" && work.operations > 0)
      analysis.achievable_fp32 = AchievableFp32(ceilings, work.operations);
  }
}

}  // namespace

RooflineAnalysis AnalyzeRoofline(const KernelLaunch& launch, const GpuSpec* spec,
                                 const RooflineOptions& options, const CeilingsTable* ceilings) {
  MetricReader reader(launch);
  RooflineAnalysis analysis;
  Context context{reader, spec, 0, 0, ""};
  analysis.duration_ns = reader.Get("gpu__time_duration.sum").value_or(0);
  context.duration_seconds = analysis.duration_ns * 1e-9;
  if (auto clock =
          reader.GetFirst({"smsp__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second"})) {
    context.sm_clock_hz = *clock;
    context.sm_clock_source = "smsp__cycles_elapsed.avg.per_second";
  } else if (spec && spec->boost_clock_hz > 0) {
    context.sm_clock_hz = spec->boost_clock_hz;
    context.sm_clock_source = "boost clock (spec table)";
  }
  CollectCompute(context, analysis);
  CollectMemory(context, analysis);
  if (ceilings) AttachAchievableCeilings(*ceilings, analysis);
  analysis.sm_throughput_percent = reader.Get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  analysis.memory_throughput_percent =
      reader.Get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  SummarizeRoofline(launch, options, analysis);
  analysis.missing_metrics = reader.missing();
  return analysis;
}

}  // namespace kopt
