#include "analysis/metric_glossary.h"

#include <fmt/format.h>

#include <utility>

#include "core/text.h"

namespace kopt {
namespace {

using enum MetricShape;

// The meanings follow the Nsight Compute Kernel Profiling Guide ("Metrics Decoder", "Metrics
// Reference", "Warp Stall Reasons") and the hardware model kopt's tools assume (docs/rules.md).
const std::vector<MetricCounter> kCounters = {
    // The launch and the device.
    {"launch__grid_size", kAttribute, "The number of thread blocks in the launch's grid"},
    {"launch__block_size", kAttribute, "The number of threads in each block of the launch"},
    {"launch__thread_count", kAttribute, "The number of threads in the launch's whole grid"},
    {"launch__sm_count", kAttribute, "The number of SMs of the GPU the kernel ran on"},
    {"launch__waves_per_multiprocessor", kAttribute,
     "The waves the grid needs: its blocks divided by the blocks all SMs can hold at once at the launch's "
     "occupancy"},
    {"launch__occupancy_limit_registers", kAttribute,
     "The most blocks an SM can hold given the registers each thread is allocated"},
    {"launch__occupancy_limit_shared_mem", kAttribute,
     "The most blocks an SM can hold given the shared memory each block is allocated"},
    {"launch__occupancy_limit_warps", kAttribute,
     "The most blocks an SM can hold given its warp slots and the warps of one block"},
    {"launch__occupancy_limit_blocks", kAttribute,
     "The most blocks an SM can hold by the hardware's limit on resident blocks per SM"},
    {"launch__registers_per_thread", kAttribute, "The registers allocated to each thread of the launch"},
    {"launch__shared_mem_per_block", kAttribute, "The shared memory allocated to each block of the launch"},
    {"launch__shared_mem_per_block_static", kAttribute,
     "The shared memory each block declares statically (__shared__ arrays of fixed size)"},
    {"launch__shared_mem_per_block_dynamic", kAttribute,
     "The dynamic shared memory each block was launched with (the launch's third configuration argument)"},
    {"sm__maximum_warps_per_active_cycle_pct", kAttribute,
     "The theoretical occupancy: the most warps an SM can hold for this launch configuration, as a "
     "percentage "
     "of its warp slots"},
    // Time and activity.
    {"gpu__time_duration", kCounter, "The kernel's duration on the GPU, from its start to its end"},
    {"sm__cycles_elapsed", kCounter, "The cycles that elapsed on an SM's clock while the kernel ran"},
    {"sm__cycles_active", kCounter, "The cycles in which an SM had at least one warp resident"},
    {"smsp__cycles_active", kCounter,
     "The cycles in which an SM sub-partition (one warp scheduler) had at least one warp resident"},
    {"sm__warps_active", kCounter,
     "The warps resident on an SM, accumulated every active cycle (the achieved occupancy, taken as a share "
     "of the warp slots)"},
    {"smsp__warps_active", kCounter,
     "The warps resident on a warp scheduler, accumulated every active cycle"},
    {"smsp__issue_active", kCounter, "The cycles in which a warp scheduler issued an instruction"},
    {"sm__inst_executed", kCounter, "The warp-level instructions an SM executed"},
    {"smsp__inst_executed", kCounter, "The warp-level instructions a warp scheduler issued"},
    // Pipelines.
    {"sm__inst_executed_pipe_fma", kCounter,
     "The warp instructions executed on the FMA pipe (FP32 add, multiply and fused multiply-add; integer "
     "multiply-add)"},
    {"sm__inst_executed_pipe_alu", kCounter,
     "The warp instructions executed on the ALU pipe (integer and bitwise arithmetic, FP32 comparisons and "
     "min/max)"},
    {"sm__inst_executed_pipe_xu", kCounter,
     "The warp instructions executed on the XU pipe (transcendentals such as sine, cosine and reciprocal "
     "square root, and some conversions)"},
    {"sm__inst_executed_pipe_fp64", kCounter,
     "The warp instructions executed on the FP64 pipe (double-precision arithmetic)"},
    {"sm__inst_executed_pipe_fp16", kCounter,
     "The warp instructions executed on the FP16 pipe (half-precision arithmetic)"},
    {"sm__inst_executed_pipe_lsu", kCounter,
     "The warp instructions executed on the load/store pipe (shared, local and global memory instructions)"},
    {"sm__inst_executed_pipe_tensor_op_hmma", kCounter,
     "The warp-level matrix multiply-accumulate instructions (HMMA, mma.sync) executed on the tensor pipe"},
    {"sm__inst_executed_pipe_tensor_op_gmma", kCounter,
     "The warpgroup matrix multiply-accumulate instructions (GMMA, wgmma) executed on the tensor pipe"},
    // Throughputs.
    {"sm__throughput", kCounter,
     "The SM's throughput: the busiest of its sub-units (instruction issue, the pipelines, shared memory and "
     "more)"},
    {"gpu__compute_memory_throughput", kCounter,
     "The memory system's throughput: the busiest of DRAM, the L2 cache and the L1/texture units"},
    {"gpu__dram_throughput", kCounter, "The DRAM throughput: the data moved between DRAM and the L2 cache"},
    {"lts__throughput", kCounter,
     "The L2 cache's throughput: the busiest of its slices' sub-units (tag lookups, data transfer)"},
    {"l1tex__throughput", kCounter,
     "The L1/texture unit's throughput: the busiest of its sub-units (tag lookups, data transfer, shared "
     "memory)"},
    // DRAM and the L2 cache.
    {"dram__bytes", kCounter, "The bytes read from and written to DRAM"},
    {"dram__bytes_read", kCounter, "The bytes read from DRAM"},
    {"dram__bytes_write", kCounter, "The bytes written to DRAM"},
    {"lts__t_sectors", kCounter, "The 32-byte sectors the L2 cache handled (reads, writes and atomics)"},
    {"lts__t_sectors_srcunit_tex", kCounter,
     "The 32-byte sectors the L2 cache handled for the L1/texture units (reads, writes and atomics)"},
    {"lts__t_sectors_srcunit_tex_op_read", kCounter,
     "The 32-byte sectors the L2 cache served to reads from the L1/texture units"},
    {"lts__t_sector_hit_rate", kPercent, "The share of sectors requested from the L2 cache that hit in it"},
    {"lts__d_atomic_input_cycles_active", kCounter,
     "The cycles in which an L2 slice's atomic unit was receiving atomic or reduction operations"},
    // The L1/texture unit: global and local memory.
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld", kCounter,
     "The 32-byte sectors that global loads requested from the L1/texture cache"},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld", kCounter,
     "The requests global loads made to the L1/texture cache (one per warp-level load instruction)"},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st", kCounter,
     "The 32-byte sectors that global stores wrote through the L1/texture unit"},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_st", kCounter,
     "The requests global stores made to the L1/texture unit (one per warp-level store instruction)"},
    {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld", kCounter,
     "The 32-byte sectors that local-memory loads (register spills, local arrays) requested from the L1 "
     "cache"},
    {"l1tex__t_sectors_pipe_lsu_mem_local_op_st", kCounter,
     "The 32-byte sectors that local-memory stores (register spills, local arrays) wrote"},
    {"l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate", kPercent,
     "The share of local-memory load sectors that hit in the L1 cache"},
    {"l1tex__t_sector_hit_rate", kPercent,
     "The share of sectors requested from the L1/texture cache that hit"},
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld", kRatio,
     "The bytes of each 32-byte sector fetched by global loads that the loads used (32 when every byte is "
     "used)"},
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st", kRatio,
     "The bytes of each 32-byte sector written by global stores that the stores wrote (32 when every byte "
     "is written)"},
    {"smsp__inst_executed_op_global_red", kCounter,
     "The warp-level global reduction instructions (RED: atomics whose result is not returned) executed"},
    {"smsp__sass_inst_executed_op_local_ld", kCounter,
     "The warp-level local-memory load instructions executed"},
    {"smsp__sass_inst_executed_op_local_st", kCounter,
     "The warp-level local-memory store instructions executed"},
    // Shared memory.
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared", kCounter,
     "The data wavefronts all shared-memory accesses took in the L1/shared unit"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", kCounter,
     "The data wavefronts shared-memory loads took in the L1/shared unit (one per instruction without bank "
     "conflicts)"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st", kCounter,
     "The data wavefronts shared-memory stores took in the L1/shared unit (one per instruction without bank "
     "conflicts)"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", kCounter,
     "The extra wavefronts shared-memory loads needed because threads of a warp hit the same bank (bank "
     "conflicts)"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st", kCounter,
     "The extra wavefronts shared-memory stores needed because threads of a warp hit the same bank (bank "
     "conflicts)"},
    // Divergence.
    {"smsp__thread_inst_executed_per_inst_executed", kRatio,
     "The average number of active threads per executed warp instruction (32 without divergence)"},
    {"smsp__thread_inst_executed_pred_on_per_inst_executed", kRatio,
     "The average number of threads per executed warp instruction whose predicate was true (32 when every "
     "thread does the work)"},
    // Warp states, from program-counter sampling.
    {"smsp__pcsamp_warps_issue_stalled_long_scoreboard", kCounter,
     "The program-counter samples of warps waiting for the result of a global, local or texture memory "
     "access (the long scoreboard)"},
    {"smsp__pcsamp_warps_issue_stalled_short_scoreboard", kCounter,
     "The program-counter samples of warps waiting for the result of a shared-memory access or a "
     "special-function instruction (the short scoreboard)"},
    {"smsp__pcsamp_warps_issue_stalled_barrier", kCounter,
     "The program-counter samples of warps waiting at a block-wide barrier for the block's other warps"},
    {"smsp__pcsamp_warps_issue_stalled_mio_throttle", kCounter,
     "The program-counter samples of warps held back because the memory input/output queue (shared memory, "
     "special functions) was full"},
    {"smsp__pcsamp_warps_issue_stalled_lg_throttle", kCounter,
     "The program-counter samples of warps held back because the L1 unit's queue of local and global memory "
     "instructions was full"},
    {"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", kCounter,
     "The program-counter samples of warps held back because the math pipe they needed was busy"},
    {"smsp__pcsamp_warps_issue_stalled_wait", kCounter,
     "The program-counter samples of warps waiting out a fixed-latency dependency"},
    {"smsp__pcsamp_warps_issue_stalled_not_selected", kCounter,
     "The program-counter samples of warps that were ready but not picked: another warp issued"},
    {"smsp__pcsamp_warps_issue_stalled_membar", kCounter,
     "The program-counter samples of warps waiting at a memory barrier (__threadfence)"},
    {"smsp__pcsamp_warps_issue_stalled_no_instruction", kCounter,
     "The program-counter samples of warps waiting for their next instruction to be fetched (an instruction "
     "cache miss)"},
    {"smsp__pcsamp_warps_issue_stalled_drain", kCounter,
     "The program-counter samples of warps that had exited and waited for their memory writes to drain"},
};

// The units a roll-up runs over, by the counter's unit prefix; "" where there is one.
std::string_view UnitsOf(std::string_view base) {
  static const std::pair<std::string_view, std::string_view> kUnits[] = {
      {"smsp__", "the SM sub-partitions (warp schedulers)"},
      {"sm__", "the SMs"},
      {"l1tex__", "the SMs' L1/texture units"},
      {"lts__", "the L2 cache slices"},
      {"dram__", "the DRAM channels"},
      {"gpu__", ""},
  };
  for (const auto& [prefix, units] : kUnits) {
    if (StartsWith(base, prefix)) return units;
  }
  return "";
}

std::optional<std::string> RollupClause(std::string_view rollup, std::string_view units) {
  if (rollup != "sum" && rollup != "avg" && rollup != "max" && rollup != "min") return std::nullopt;
  if (units.empty()) return std::string();
  if (rollup == "sum") return fmt::format(", summed over {}", units);
  if (rollup == "avg") return fmt::format(", averaged over {}", units);
  if (rollup == "max") return fmt::format(", the largest among {}", units);
  return fmt::format(", the smallest among {}", units);
}

std::optional<std::string_view> SubmetricClause(std::string_view submetric) {
  static const std::pair<std::string_view, std::string_view> kSubmetrics[] = {
      {"", ""},
      {"pct_of_peak_sustained_active", ", as a percentage of the peak sustained rate over the active cycles"},
      {"pct_of_peak_sustained_elapsed",
       ", as a percentage of the peak sustained rate over the elapsed cycles"},
      {"per_cycle_active", ", per active cycle"},
      {"per_cycle_elapsed", ", per elapsed cycle"},
      {"per_second", ", per second"},
      {"peak_sustained", ": the hardware's peak sustained rate per cycle, not a measurement of the run"},
  };
  for (const auto& [name, clause] : kSubmetrics) {
    if (name == submetric) return clause;
  }
  return std::nullopt;
}

const MetricCounter* FindCounter(std::string_view base) {
  for (const MetricCounter& counter : kCounters) {
    if (counter.name == base) return &counter;
  }
  return nullptr;
}

}  // namespace

const std::vector<MetricCounter>& MetricCounters() {
  return kCounters;
}

MetricNameParts SplitMetricName(std::string_view metric) {
  size_t dot = metric.find('.');
  if (dot == std::string_view::npos) return {std::string(metric), ""};
  return {std::string(metric.substr(0, dot)), std::string(metric.substr(dot))};
}

std::optional<std::string> DescribeMetric(std::string_view metric) {
  MetricNameParts parts = SplitMetricName(metric);
  const MetricCounter* counter = FindCounter(parts.base);
  if (counter == nullptr) return std::nullopt;
  std::string meaning(counter->meaning);
  switch (counter->shape) {
    case kAttribute:
      if (!parts.suffix.empty()) return std::nullopt;
      return meaning + ".";
    case kRatio:
      if (parts.suffix != ".ratio") return std::nullopt;
      return meaning + ".";
    case kPercent:
      if (parts.suffix != ".pct") return std::nullopt;
      return meaning + ", as a percentage.";
    case kCounter: break;
  }
  if (parts.suffix.empty()) return meaning + ".";
  std::string_view rest = std::string_view(parts.suffix).substr(1);  // after the first '.'
  size_t dot = rest.find('.');
  std::string_view rollup = rest.substr(0, dot);
  std::string_view submetric = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  std::optional<std::string> rollup_clause = RollupClause(rollup, UnitsOf(parts.base));
  std::optional<std::string_view> submetric_clause = SubmetricClause(submetric);
  if (!rollup_clause || !submetric_clause) return std::nullopt;
  return meaning + *rollup_clause + std::string(*submetric_clause) + ".";
}

}  // namespace kopt
