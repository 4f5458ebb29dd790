#include "core/units.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

void ExpectBase(double value, const char* unit, double expected, const char* expected_unit) {
  BaseQuantity quantity = ToBaseUnits(value, unit);
  EXPECT_NEAR(quantity.value, expected, std::abs(expected) * 1e-12) << unit;
  EXPECT_EQ(quantity.unit, expected_unit) << unit;
}

TEST(ToBaseUnits, AutoScaledUnitsSeenOnH200) {
  // Pairs read from the same launch exported with --print-units auto and base.
  ExpectBase(57.664, "us", 57664, "ns");
  ExpectBase(1.937203, "Ghz", 1937203000, "hz");
  ExpectBase(1.504, "Kbyte/cycle", 1504, "byte/cycle");
  ExpectBase(3.5, "Tbyte/s", 3.5e12, "byte/s");
  ExpectBase(2, "sector/ns", 2e9, "sector/s");
  ExpectBase(4, "sector/us", 4e6, "sector/s");
  ExpectBase(3, "%/Kbyte", 0.003, "%/byte");
  ExpectBase(1, "Kbyte/block", 1000, "byte/block");
  ExpectBase(12, "Mbyte", 12e6, "byte");
  ExpectBase(1.5, "msecond", 1.5e6, "ns");
}

TEST(ToBaseUnits, BaseUnitsUnchanged) {
  for (const char* unit : {"", "%", "byte", "ns", "hz", "inst/cycle", "register/thread", "SM", "byte/s"}) {
    BaseQuantity quantity = ToBaseUnits(7, unit);
    EXPECT_EQ(quantity.value, 7) << unit;
    EXPECT_EQ(quantity.unit, unit) << unit;
  }
}

TEST(ToBaseUnits, UnknownUnitsKept) {
  BaseQuantity quantity = ToBaseUnits(5, "widget/Mfoo");
  EXPECT_EQ(quantity.value, 5);
  EXPECT_EQ(quantity.unit, "widget/Mfoo");
}

}  // namespace
}  // namespace kopt
