#include "analysis/metric_change.h"

#include <gtest/gtest.h>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(MetricNoiseTest, FamiliesByName) {
  EXPECT_EQ(NoiseOf("launch__grid_size", "").family, "launch configuration");
  EXPECT_EQ(NoiseOf("smsp__inst_executed.sum", "inst").relative, 0.02);
  EXPECT_EQ(NoiseOf("dram__bytes_read.sum", "byte").family, "L2 and DRAM traffic");
  EXPECT_EQ(NoiseOf("gpu__time_duration.sum", "ns").family, "time, cycles and rates");
  EXPECT_EQ(NoiseOf("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%").family, "percentages");
  EXPECT_EQ(NoiseOf("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "inst").family,
            "stall reasons");
}

TEST(MovedMetricsTest, OnlyChangesBeyondNoiseRankedByNoiseUnits) {
  KernelLaunch before = SyntheticLaunch({{"dram__bytes_read.sum", 1000000},
                                         {"gpu__time_duration.sum", 1000},
                                         {"smsp__inst_executed.sum", 1000000},
                                         {"launch__grid_size", 100},
                                         {"only_before", 1}});
  KernelLaunch after = SyntheticLaunch({{"dram__bytes_read.sum", 1050000},    // 5 %: inside 7 % noise
                                        {"gpu__time_duration.sum", 500},      // 50 %: 8.3× noise (6 %)
                                        {"smsp__inst_executed.sum", 900000},  // 10 %: 5× noise (2 %)
                                        {"launch__grid_size", 200},           // exact family: infinite
                                        {"only_after", 2}});
  std::vector<MetricMove> moves = MovedMetrics(before, after, 0);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].metric, "gpu__time_duration.sum");
  EXPECT_EQ(moves[1].metric, "smsp__inst_executed.sum");
  EXPECT_NEAR(moves[0].noise_units, 500.0 / 60, 1e-9);
  EXPECT_EQ(MovedMetrics(before, after, 1).size(), 1u);
  std::vector<MetricMove> launch = LaunchConfigurationChanges(before, after);
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0].metric, "launch__grid_size");
  MetricSetDifference sets = CompareMetricSets(before, after);
  EXPECT_EQ(sets.common, 4);
  EXPECT_EQ(sets.only_before, std::vector<std::string>{"only_before"});
  EXPECT_EQ(sets.only_after, std::vector<std::string>{"only_after"});
}

}  // namespace
}  // namespace kopt
