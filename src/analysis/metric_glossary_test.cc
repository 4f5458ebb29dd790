#include "analysis/metric_glossary.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kopt {
namespace {

TEST(MetricGlossaryTest, ComposesTheCounterTheRollupAndTheSubmetric) {
  EXPECT_EQ(
      DescribeMetric("sm__warps_active.avg.pct_of_peak_sustained_active"),
      "The warps resident on an SM, accumulated every active cycle (the achieved occupancy, taken as a "
      "share of the warp slots), averaged over the SMs, as a percentage of the peak sustained rate over "
      "the active cycles.");
  EXPECT_EQ(DescribeMetric("sm__cycles_active.max"),
            "The cycles in which an SM had at least one warp resident, the largest among the SMs.");
  EXPECT_EQ(DescribeMetric("dram__bytes_read.sum.per_second"),
            "The bytes read from DRAM, summed over the DRAM channels, per second.");
  // One unit: no "over" clause.
  EXPECT_EQ(DescribeMetric("gpu__time_duration.sum"),
            "The kernel's duration on the GPU, from its start to its end.");
  EXPECT_EQ(DescribeMetric("launch__grid_size"), "The number of thread blocks in the launch's grid.");
  EXPECT_EQ(DescribeMetric("lts__t_sector_hit_rate.pct"),
            "The share of sectors requested from the L2 cache that hit in it, as a percentage.");
  EXPECT_EQ(DescribeMetric("sm__cycles_elapsed"),
            "The cycles that elapsed on an SM's clock while the kernel ran.");
}

TEST(MetricGlossaryTest, SaysNothingRatherThanGuess) {
  EXPECT_EQ(DescribeMetric("sm__not_a_counter.sum"), std::nullopt);
  EXPECT_EQ(DescribeMetric("stall share: barrier"), std::nullopt);   // kopt's own derived quantity
  EXPECT_EQ(DescribeMetric("launch__grid_size.sum"), std::nullopt);  // an attribute takes no roll-up
  EXPECT_EQ(DescribeMetric("sm__warps_active.median"), std::nullopt);
  EXPECT_EQ(DescribeMetric("sm__warps_active.avg.pct_of_something"), std::nullopt);
  EXPECT_EQ(DescribeMetric("smsp__thread_inst_executed_per_inst_executed.sum"), std::nullopt);
  EXPECT_EQ(DescribeMetric("lts__t_sector_hit_rate"), std::nullopt);
  EXPECT_EQ(DescribeMetric(""), std::nullopt);
}

// Every counter the tools cite as evidence in the H200 fixtures (kopt explain -f json over
// tests/fixtures/h200*, evidence[].metric) is described: the questions of `kopt eval mcq`
// can ask about any of them.
TEST(MetricGlossaryTest, DescribesEveryCounterTheToolsCite) {
  for (const char* metric : {"sm__maximum_warps_per_active_cycle_pct",
                             "sm__warps_active.avg.pct_of_peak_sustained_active",
                             "smsp__issue_active.avg.pct_of_peak_sustained_active",
                             "launch__grid_size",
                             "smsp__issue_active.avg.per_cycle_active",
                             "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                             "launch__sm_count",
                             "launch__waves_per_multiprocessor",
                             "sm__cycles_active.avg",
                             "sm__cycles_active.min",
                             "sm__cycles_elapsed",
                             "launch__occupancy_limit_registers",
                             "launch__occupancy_limit_shared_mem",
                             "launch__occupancy_limit_warps",
                             "launch__occupancy_limit_blocks",
                             "launch__registers_per_thread",
                             "launch__shared_mem_per_block",
                             "launch__block_size",
                             "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
                             "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
                             "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                             "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                             "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                             "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                             "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                             "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                             "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
                             "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                             "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
                             "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
                             "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
                             "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                             "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                             "smsp__thread_inst_executed_per_inst_executed.ratio",
                             "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
                             "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
                             "smsp__inst_executed_op_global_red.sum",
                             "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
                             "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
                             "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
                             "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                             "l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct",
                             "smsp__sass_inst_executed_op_local_ld.sum",
                             "smsp__sass_inst_executed_op_local_st.sum"}) {
    EXPECT_TRUE(DescribeMetric(metric).has_value()) << metric;
  }
}

TEST(MetricGlossaryTest, TheTableHasOneRowPerCounterAndNoEmptyMeaning) {
  std::set<std::string> names;
  for (const MetricCounter& counter : MetricCounters()) {
    EXPECT_TRUE(names.insert(std::string(counter.name)).second) << counter.name;
    EXPECT_FALSE(counter.meaning.empty()) << counter.name;
    EXPECT_NE(counter.meaning.back(), '.') << counter.name;
    EXPECT_NE(counter.name.find("__"), std::string_view::npos) << counter.name;
  }
}

TEST(MetricGlossaryTest, SplitsAtTheFirstDot) {
  MetricNameParts parts = SplitMetricName("sm__warps_active.avg.pct_of_peak_sustained_active");
  EXPECT_EQ(parts.base, "sm__warps_active");
  EXPECT_EQ(parts.suffix, ".avg.pct_of_peak_sustained_active");
  EXPECT_EQ(SplitMetricName("launch__grid_size").suffix, "");
}

}  // namespace
}  // namespace kopt
