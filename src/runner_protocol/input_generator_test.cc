#include "runner_protocol/input_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace kopt::runner {
namespace {

TEST(InputGenerator, TensorSeedsDifferByRoundAndByName) {
  EXPECT_EQ(TensorSeed(7, "x"), TensorSeed(7, "x"));
  EXPECT_NE(TensorSeed(7, "x"), TensorSeed(8, "x"));
  EXPECT_NE(TensorSeed(7, "x"), TensorSeed(7, "y"));
  // Pinned: every child of a run, and every kopt version, derives the same seed (the device draws from it).
  EXPECT_EQ(TensorSeed(0, ""), 0xC3817C016BA4FF30ull);
}

TEST(InputGenerator, PoisonIsANanInFloatAndAllOnesBytes) {
  std::vector<std::byte> poison(16, std::byte{0});
  FillPoison(poison);
  EXPECT_TRUE(
      std::all_of(poison.begin(), poison.end(), [](std::byte value) { return value == kPoisonByte; }));
  float first;
  std::memcpy(&first, poison.data(), 4);
  EXPECT_TRUE(std::isnan(first));
}

}  // namespace
}  // namespace kopt::runner
