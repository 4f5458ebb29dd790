#include "report/svg_charts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A sweep of block sizes: whole-number x values are labelled in full, the y axis in round steps.
TEST(LineChartSvgTest, BlockSizesInFullAndRoundYTicks) {
  LineSeries series{"saxpy", {{128, 91200}, {256, 88000}, {512, 90300}, {1024, 95800}}};
  std::string svg = LineChartSvg("duration by block", "block", "ns", {series}, true, std::nullopt);
  EXPECT_THAT(svg, HasSubstr(">1024</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("1.02K")));
  // 95.8 µs in at most five steps → a step of 20 µs, the axis ending at 100 µs.
  EXPECT_THAT(svg, HasSubstr(">20 µs</text>"));
  EXPECT_THAT(svg, HasSubstr(">100 µs</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("95.8 µs</text>")));
}

TEST(LineChartSvgTest, PercentAxisEndsOnARoundValue) {
  LineSeries series{"sol", {{1, 12}, {2, 75}, {4, 78.8}}};
  std::string svg = LineChartSvg("speed of light", "n", "%", {series}, false, std::nullopt);
  EXPECT_THAT(svg, HasSubstr(">80.0%</text>"));  // steps of 20 points up to 78.8 %
  EXPECT_THAT(svg, Not(HasSubstr(">78.8%</text>")));
}

TEST(LineChartSvgTest, NoTwoSeriesShareAHue) {
  std::vector<LineSeries> series;
  for (int k = 0; k < 8; ++k) series.push_back({"s" + std::to_string(k), {{1, 1.0 + k}, {2, 2.0 + k}}});
  std::string svg = LineChartSvg("eight", "x", "", series, false, std::nullopt);
  EXPECT_THAT(svg, HasSubstr("#b91c1c"));
  EXPECT_THAT(svg, Not(HasSubstr("#be185d")));  // the second red, beside #b91c1c
}

}  // namespace
}  // namespace kopt
