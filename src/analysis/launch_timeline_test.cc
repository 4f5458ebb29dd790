#include "analysis/launch_timeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "fixture_reader.h"
#include "profile/ncu_csv.h"

namespace kopt {
namespace {

KernelLaunch Launch(std::string name, long long grid, std::optional<double> duration) {
  static auto schema = [] {
    auto s = std::make_shared<MetricSchema>();
    s->Add("gpu__time_duration.sum", "ns");
    return s;
  }();
  KernelLaunch launch;
  launch.kernel_name = std::move(name);
  launch.grid.x = grid;
  launch.schema = schema;
  launch.values = {duration ? *duration : std::nan("")};
  return launch;
}

TEST(GroupLaunches, OneGroupPerKernelAndShapeWithTheMedianLaunchAsRepresentative) {
  std::vector<KernelLaunch> launches = {Launch("a(int)", 1, 30), Launch("b(int)", 1, 5),
                                        Launch("a(int)", 1, 10), Launch("a(int)", 2, 7),
                                        Launch("a(int)", 1, 20), Launch("c()", 1, {})};
  std::vector<LaunchGroup> groups = GroupLaunches(launches);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].members, (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(groups[0].representative, 4u) << "durations 30, 10, 20: the median is 20";
  EXPECT_EQ(*groups[0].minimum_ns, 10);
  EXPECT_EQ(*groups[0].median_ns, 20);
  EXPECT_EQ(*groups[0].maximum_ns, 30);
  EXPECT_EQ(*groups[0].total_ns, 60);
  EXPECT_EQ(groups[1].members, (std::vector<size_t>{1}));
  EXPECT_EQ(groups[2].members, (std::vector<size_t>{3})) << "another grid: another group";
  EXPECT_EQ(groups[3].representative, 5u);
  EXPECT_FALSE(groups[3].median_ns.has_value());
}

TEST(GroupLaunches, RealRepeatedLaunchesOfOneKernel) {
  auto launches = ParseNcuRawCsv(ReadFixture("exports/raw_44_launches_of_one_kernel.csv"), "r.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  ASSERT_EQ(launches->size(), 44u);
  std::vector<LaunchGroup> groups = GroupLaunches(*launches);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].members.size(), 44u);
  // Python's sorted() over the fixture's gpu__time_duration.sum column.
  EXPECT_EQ(*groups[0].minimum_ns, 4640);
  EXPECT_EQ(*groups[0].median_ns, 4800);
  EXPECT_EQ(*groups[0].maximum_ns, 5152);
  EXPECT_EQ(*groups[0].total_ns, 211680);
}

TEST(LaunchTimeline, CountsEveryLaunchOfAFunctionOnce) {
  std::vector<KernelLaunch> launches = {Launch("a(int)", 1, 30), Launch("a(int)", 2, 10), Launch("b()", 1, 4),
                                        Launch("a(int)", 1, {})};
  LaunchTimeline timeline(launches);
  LaunchDurations a = timeline.Of("a");
  EXPECT_EQ(a.count, 2) << "launches without a duration are not counted";
  EXPECT_EQ(a.minimum_ns, 10);
  EXPECT_EQ(a.maximum_ns, 30);
  EXPECT_EQ(a.MeanNs(), 20);
  EXPECT_EQ(timeline.Of("zzz").count, 0);
}

}  // namespace
}  // namespace kopt
