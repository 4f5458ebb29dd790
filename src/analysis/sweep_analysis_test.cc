#include "analysis/sweep_analysis.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(ParameterTokensTest, ReadsNameValuePairsFromPaths) {
  auto values = ParseParameterTokens("sweeps/saxpy/n=1048576_block=256.csv");
  EXPECT_EQ(values.size(), 2u);
  EXPECT_EQ(values["n"], 1048576);
  EXPECT_EQ(values["block"], 256);
  EXPECT_EQ(ParseParameterTokens("size=4k,threads=128")["size"], 4096);
  EXPECT_EQ(ParseParameterTokens("bundle_n=2M/raw.csv")["n"], 2 * 1024 * 1024);
  EXPECT_TRUE(ParseParameterTokens("plain.csv").empty());
  EXPECT_TRUE(ParseParameterTokens("n=abc.csv").empty());
}

SweepPointInput Point(double n, double block, double duration_ns, BottleneckClass bottleneck, double sol,
                      double dram_bytes, const std::string& finding) {
  SweepPointInput point;
  point.label = "p";
  point.parameters = {{"n", n}, {"block", block}};
  point.duration_ns = duration_ns;
  point.kernel.roofline.duration_ns = duration_ns;
  point.kernel.roofline.bottleneck = bottleneck;
  point.kernel.roofline.speed_of_light_percent = sol;
  point.kernel.roofline.memory_percent_of_peak = sol;
  point.kernel.roofline.busiest_memory_level = "dram";
  point.kernel.roofline.memory.push_back(
      {"dram", dram_bytes, dram_bytes / duration_ns * 1e9, 4.8e12, sol, "spec"});
  if (!finding.empty()) point.kernel.findings.push_back({finding, finding + " title", Severity::kMajor, 0.3});
  return point;
}

TEST(SweepAnalysisTest, RegimesChangePointsAndBestBySpeedOfLightWhenTheWorkGrows) {
  std::vector<SweepPointInput> points = {
      Point(1 << 22, 256, 40000, BottleneckClass::kMemoryBound, 90, 48e6, ""),
      Point(1 << 12, 256, 3000, BottleneckClass::kLatencyBound, 2, 48e3, "tail_effect"),
      Point(1 << 16, 256, 3500, BottleneckClass::kLatencyBound, 20, 768e3, "tail_effect"),
      Point(1 << 24, 256, 150000, BottleneckClass::kMemoryBound, 92, 192e6, ""),
  };
  auto sweep = AnalyzeSweep(points, "n");
  ASSERT_TRUE(sweep.ok()) << sweep.status().message();
  ASSERT_EQ(sweep->series.size(), 1u);
  const SweepSeries& series = sweep->series[0];
  EXPECT_EQ(series.rows.front().value, 1 << 12);  // sorted
  ASSERT_EQ(series.regimes.size(), 2u);
  EXPECT_EQ(series.regimes[0].limiter, "latency-bound, tail_effect");
  EXPECT_EQ(series.regimes[1].limiter, "memory-bound (DRAM)");
  EXPECT_NE(series.regimes[1].description.find("92.0% of its bandwidth"), std::string::npos)
      << series.regimes[1].description;
  ASSERT_EQ(series.change_points.size(), 1u);
  EXPECT_NE(series.change_points[0].find("between n = 65536 and 4194304"), std::string::npos)
      << series.change_points[0];
  EXPECT_EQ(series.objective, "speed of light");
  EXPECT_EQ(series.rows[series.best].value, 1 << 24);
}

TEST(SweepAnalysisTest, SeriesByTheOtherParametersAndBestByTimeForTheSameWork) {
  std::vector<SweepPointInput> points;
  for (double block : {128.0, 256.0, 512.0, 1024.0}) {
    SweepPointInput point = Point(1 << 20, block, block == 256 ? 9000 : 10000 + block,
                                  BottleneckClass::kMemoryBound, 80, 12e6, "");
    point.theoretical_occupancy_percent = block == 1024 ? 50 : 100;
    point.occupancy_limiter = "registers";
    points.push_back(point);
  }
  points.push_back(Point(1 << 22, 256, 30000, BottleneckClass::kMemoryBound, 85, 48e6, ""));
  auto sweep = AnalyzeSweep(points, "block");
  ASSERT_TRUE(sweep.ok());
  ASSERT_EQ(sweep->series.size(), 2u);  // n = 2^20 (4 points) and n = 2^22 (1 point)
  const SweepSeries& series = sweep->series[0];
  EXPECT_EQ(series.objective, "time");
  EXPECT_EQ(series.rows[series.best].value, 256);
  EXPECT_NE(series.best_reason.find("faster than the next (block = 128"), std::string::npos)
      << series.best_reason;
  bool occupancy = false;
  for (const std::string& change : series.change_points)
    occupancy = occupancy ||
                change.find("theoretical occupancy 100% → 50.0% (limited by registers)") != std::string::npos;
  std::string all;
  for (const std::string& change : series.change_points) all += change + "\n";
  EXPECT_TRUE(occupancy) << all;
}

TEST(SweepAnalysisTest, NeedsTwoPointsWithTheParameter) {
  std::vector<SweepPointInput> points = {Point(1, 1, 1, BottleneckClass::kMixed, 1, 1, "")};
  auto sweep = AnalyzeSweep(points, "size");
  ASSERT_FALSE(sweep.ok());
  EXPECT_NE(sweep.status().message().find("0 of 1 profiles carry a value of size"), std::string::npos);
}

}  // namespace
}  // namespace kopt
