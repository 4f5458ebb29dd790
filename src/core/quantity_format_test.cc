#include "core/quantity_format.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kopt {
namespace {

constexpr QuantityStyle kTrimmed = QuantityStyle::kTrimmed;
constexpr QuantityStyle kFixed = QuantityStyle::kFixed;

TEST(QuantityFormatTest, TrimmedNumbersWithUnits) {
  EXPECT_EQ(FormatBandwidth(4.81e12, kTrimmed), "4.81 TB/s");
  EXPECT_EQ(FormatDuration(57664, kTrimmed), "57.7 µs");
  EXPECT_EQ(FormatDuration(850, kTrimmed), "850 ns");
  EXPECT_EQ(FormatDuration(1.2e9, kTrimmed), "1.2 s");
  EXPECT_EQ(FormatOperations(1.2e9, kTrimmed), "1.2 GFLOP");
  EXPECT_EQ(FormatRate(66.9e12, kTrimmed), "66.9 TFLOP/s");
  EXPECT_EQ(FormatBytes(221.9e6, kTrimmed), "222 MB");
  EXPECT_EQ(FormatBytes(4096, kTrimmed), "4.1 KB");
  EXPECT_EQ(FormatBytes(0, kTrimmed), "0 B");
  EXPECT_EQ(FormatIntensity(0.16667, kTrimmed), "0.167 FLOP/B");
  EXPECT_EQ(FormatPercent(80.08, kTrimmed), "80.1%");
  EXPECT_EQ(FormatPercent(100, kTrimmed), "100%");
  EXPECT_EQ(FormatFraction(0.887, kTrimmed), "88.7%");
  EXPECT_EQ(FormatNumber(32, kTrimmed), "32");
  EXPECT_EQ(FormatNumber(13.907, kTrimmed), "13.9");
  EXPECT_EQ(FormatNumber(57664, kTrimmed), "57664");
  EXPECT_EQ(FormatNumber(NAN, kTrimmed), "n/a");
}

TEST(QuantityFormatTest, TrimmedRoundingMovesToTheNextPrefix) {
  EXPECT_EQ(FormatBandwidth(999.96e9, kTrimmed), "1 TB/s");
  EXPECT_EQ(FormatDuration(999.9, kTrimmed), "1 µs");
}

TEST(QuantityFormatTest, TrimmedMeasurementsInBaseUnits) {
  EXPECT_EQ(FormatMeasurement(80, "%", kTrimmed), "80.0%");
  EXPECT_EQ(FormatMeasurement(57664, "ns", kTrimmed), "57.7 µs");
  EXPECT_EQ(FormatMeasurement(2.15e9, "byte", kTrimmed), "2.15 GB");
  EXPECT_EQ(FormatMeasurement(3.85e12, "byte/s", kTrimmed), "3.85 TB/s");
  EXPECT_EQ(FormatMeasurement(32, "sector/request", kTrimmed), "32 sector/request");
  EXPECT_EQ(FormatMeasurement(1.2e6, "sector", kTrimmed), "1.2 Msector");
  EXPECT_EQ(FormatMeasurement(7.2, "", kTrimmed), "7.2");
}

TEST(QuantityFormatTest, FixedKeepsTrailingZeros) {
  EXPECT_EQ(FormatDuration(57000, kFixed), "57.0 µs");
  EXPECT_EQ(FormatDuration(57000, kTrimmed), "57 µs");
  EXPECT_EQ(FormatDuration(57664, kFixed), "57.7 µs");
  EXPECT_EQ(FormatDuration(850, kFixed), "850 ns");
  EXPECT_EQ(FormatDuration(1.5e9, kFixed), "1.50 s");
  EXPECT_EQ(FormatDuration(2.5e6, kFixed), "2.50 ms");
  EXPECT_EQ(FormatBytes(1.5e9, kFixed), "1.50 GB");
  EXPECT_EQ(FormatBandwidth(4.81e12, kFixed), "4.81 TB/s");
  EXPECT_EQ(FormatOperations(2.15e9, kFixed), "2.15 GFLOP");
  EXPECT_EQ(FormatRate(67e12, kFixed), "67.0 TFLOP/s");
  EXPECT_EQ(FormatPercent(75.25, kFixed), "75.2%");
  EXPECT_EQ(FormatPercent(100, kFixed), "100.0%");
  EXPECT_EQ(FormatNumber(32, kFixed), "32.0");
}

TEST(QuantityFormatTest, FixedPrefixesStopAtOneAndPeta) {
  EXPECT_EQ(FormatBytes(0.5, kFixed), "0.50 B");
  EXPECT_EQ(FormatBytes(0.5, kTrimmed), "500 mB");
  EXPECT_EQ(FormatDuration(0.25, kFixed), "0.25 ns");
  EXPECT_EQ(FormatDuration(0.25, kTrimmed), "250 ps");
  EXPECT_EQ(FormatBytes(2e18, kFixed), "2000 PB");
  EXPECT_EQ(FormatBytes(2e18, kTrimmed), "2 EB");
  EXPECT_EQ(FormatBandwidth(999.6e9, kFixed), "1.00 TB/s");
  EXPECT_EQ(FormatDuration(999.6, kFixed), "1.00 µs");
}

TEST(QuantityFormatTest, NonFiniteValues) {
  EXPECT_EQ(FormatDuration(INFINITY, kTrimmed), "n/a");
  EXPECT_EQ(FormatPercent(NAN, kTrimmed), "n/a");
  EXPECT_EQ(FormatBytes(NAN, kFixed), "nan B");
}

}  // namespace
}  // namespace kopt
