#include "harness/energy_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kopt {
namespace {

TEST(EnergyStatisticsTest, JoulesPerLaunchMeanSpreadAndDynamicEnergy) {
  // Three 1-second windows at about 400 W with a 130 W idle draw.
  std::vector<EnergyWindow> windows{
      {400.0, 1.0, 10000, 4000.0, 10},
      {410.0, 1.0, 10000, 4100.0, 10},
      {390.0, 1.0, 10000, 3900.0, 10},
  };
  Result<EnergySummary> summary = SummarizeEnergy(130.0, windows);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_NEAR(summary->joules_per_launch, 0.04, 1e-12);
  // Per-launch values 0.040, 0.041, 0.039: Bessel stdev 0.001.
  EXPECT_NEAR(summary->joules_per_launch_stdev, 0.001, 1e-12);
  EXPECT_NEAR(summary->dynamic_joules_per_launch, (400.0 - 130.0) / 10000, 1e-12);
  EXPECT_DOUBLE_EQ(summary->idle_watts, 130.0);
  EXPECT_NEAR(summary->mean_watts, 400.0, 1e-9);
  EXPECT_NEAR(summary->power_sample_watts, 400.0, 1e-9);
  EXPECT_EQ(summary->windows, 3);
  EXPECT_EQ(summary->launches_per_window, 10000);
}

TEST(EnergyStatisticsTest, WindowsOfDifferentLengthWeighMeanPowerByTime) {
  std::vector<EnergyWindow> windows{{300.0, 1.0, 1000, 0, 0}, {900.0, 2.0, 2000, 0, 0}};
  Result<EnergySummary> summary = SummarizeEnergy(100.0, windows);
  ASSERT_TRUE(summary.ok());
  EXPECT_NEAR(summary->mean_watts, 400.0, 1e-9);  // 1200 J over 3 s
  EXPECT_NEAR(summary->joules_per_launch, (0.3 + 0.45) / 2, 1e-12);
  EXPECT_NEAR(summary->dynamic_joules_per_launch, ((300.0 - 100) / 1000 + (900.0 - 200) / 2000) / 2, 1e-12);
  EXPECT_EQ(summary->power_sample_watts, 0);  // no instantaneous readings
  EXPECT_EQ(summary->launches_per_window, 1500);
  EXPECT_NEAR(summary->joules_per_launch_stdev, std::sqrt(2.0) * 0.075, 1e-12);
}

TEST(EnergyStatisticsTest, CounterThatDidNotChangeIsUnavailable) {
  std::vector<EnergyWindow> windows{{400.0, 1.0, 100, 0, 0}, {0.0, 0.05, 5, 0, 0}};
  Result<EnergySummary> summary = SummarizeEnergy(130.0, windows);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(summary.status().message().find("did not change over window 2"), std::string::npos)
      << summary.status().message();
}

TEST(EnergyStatisticsTest, NoWindowOrNoLaunchIsUnavailable) {
  EXPECT_FALSE(SummarizeEnergy(130.0, std::vector<EnergyWindow>{}).ok());
  std::vector<EnergyWindow> windows{{400.0, 1.0, 0, 0, 0}};
  Result<EnergySummary> summary = SummarizeEnergy(130.0, windows);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.status().message().find("window 1 is empty"), std::string::npos);
}

TEST(EnergyStatisticsTest, IdleWattsNeedsAPositiveDuration) {
  Result<double> watts = IdleWatts(130.0, 1.0);
  ASSERT_TRUE(watts.ok());
  EXPECT_DOUBLE_EQ(*watts, 130.0);
  EXPECT_FALSE(IdleWatts(130.0, 0).ok());
}

}  // namespace
}  // namespace kopt
