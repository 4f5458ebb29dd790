#include "runner_protocol/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace kopt {
namespace {

bool IsHalfNan(uint16_t bits) {
  return (bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu) != 0;
}

TEST(Float16, KnownHalfValues) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalfBits(0.1f), 0x2E66);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7BFF);  // below the halfway point to 65536
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);  // halfway, ties to even: infinity
  EXPECT_EQ(FloatToHalfBits(1e6f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-INFINITY), 0xFC00);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);  // halfway to it: ties to even (zero)
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_TRUE(IsHalfNan(FloatToHalfBits(NAN)));
  EXPECT_TRUE(IsHalfNan(FloatToHalfBits(std::bit_cast<float>(0x7F800001u))));  // signalling NaN stays NaN
}

TEST(Float16, HalfRoundsTiesToEven) {
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie between 0x3C00 and 0x3C01
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie between 0x3C01 and 0x3C02
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  // Subnormal tie: 2.5 units of 2^-24 -> 2 (even), 3.5 -> 4.
  EXPECT_EQ(FloatToHalfBits(2.5f * std::ldexp(1.0f, -24)), 0x0002);
  EXPECT_EQ(FloatToHalfBits(3.5f * std::ldexp(1.0f, -24)), 0x0004);
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(FloatToHalfBits(1023.75f * std::ldexp(1.0f, -24)), 0x0400);
}

TEST(Float16, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    uint16_t half = static_cast<uint16_t>(bits);
    float value = HalfBitsToFloat(half);
    if (IsHalfNan(half)) {
      EXPECT_TRUE(std::isnan(value)) << bits;
      EXPECT_TRUE(IsHalfNan(FloatToHalfBits(value))) << bits;
    } else {
      ASSERT_EQ(FloatToHalfBits(value), half) << bits;
    }
  }
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x7BFF), 65504.0f);
}

TEST(Float16, Bfloat16Values) {
  EXPECT_EQ(FloatToBfloat16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBfloat16Bits(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie: even
  EXPECT_EQ(FloatToBfloat16Bits(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // tie: even
  EXPECT_EQ(FloatToBfloat16Bits(std::bit_cast<float>(0x3F808001u)), 0x3F81);
  EXPECT_EQ(FloatToBfloat16Bits(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80);  // FLT_MAX rounds to infinity
  uint16_t nan = FloatToBfloat16Bits(std::bit_cast<float>(0x7F800001u));
  EXPECT_TRUE(std::isnan(Bfloat16BitsToFloat(nan)));
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    float value = Bfloat16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(FloatToBfloat16Bits(value), bits) << bits;
  }
}

}  // namespace
}  // namespace kopt
