#include "runner_protocol/input_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "runner_protocol/float16.h"

namespace kopt::runner {
namespace {

template <typename T>
std::vector<T> Draw(const TensorInit& init, Dtype dtype, uint64_t seed, size_t count) {
  std::vector<T> values(count);
  FillTensor(init, dtype, seed, std::as_writable_bytes(std::span(values)));
  return values;
}

TensorInit Normal(double mean, double stddev) {
  TensorInit init;
  init.kind = InitKind::kNormal;
  init.mean = mean;
  init.stddev = stddev;
  return init;
}

TEST(InputGenerator, SameSeedSameBytesOtherSeedOtherBytes) {
  TensorDecl tensor{"x", Dtype::kF32, {64, 3}, TensorRole::kInput, Normal(0, 1)};
  EXPECT_EQ(GenerateTensor(tensor, 7), GenerateTensor(tensor, 7));
  EXPECT_NE(GenerateTensor(tensor, 7), GenerateTensor(tensor, 8));
  TensorDecl other = tensor;
  other.name = "y";
  EXPECT_NE(GenerateTensor(tensor, 7), GenerateTensor(other, 7));
  EXPECT_EQ(GenerateTensor(tensor, 7).size(), 64u * 3u * 4u);
}

TEST(InputGenerator, GeneratingIntoAReusedBufferGivesTheSameBytes) {
  TensorDecl tensor{"x", Dtype::kF32, {100000}, TensorRole::kInput, Normal(0, 1)};
  TensorDecl output{"y", Dtype::kF32, {10}, TensorRole::kOutput, {}};
  std::vector<std::byte> buffer(1 << 20, std::byte{7});  // larger, with old contents
  GenerateTensorInto(tensor, 5, buffer);
  EXPECT_EQ(buffer, GenerateTensor(tensor, 5));
  GenerateTensorInto(output, 5, buffer);  // smaller: resized, poisoned
  EXPECT_EQ(buffer, std::vector<std::byte>(40, kPoisonByte));
  GenerateTensorInto(tensor, 6, buffer);  // larger again
  EXPECT_EQ(buffer, GenerateTensor(tensor, 6));
}

TEST(InputGenerator, PinnedValuesStayReproducible) {
  // Results are recorded with their seeds: the generator must not drift.
  std::vector<double> values = Draw<double>(Normal(0, 1), Dtype::kF64, 42, 2);
  std::vector<double> again = Draw<double>(Normal(0, 1), Dtype::kF64, 42, 2);
  EXPECT_EQ(values, again);
  EXPECT_EQ(TensorSeed(1, "x"), TensorSeed(1, "x"));
  EXPECT_NE(TensorSeed(1, "x"), TensorSeed(2, "x"));
  EXPECT_NEAR(values[0], 1.6875166109667619, 1e-12);
  EXPECT_NEAR(values[1], 0.024801184241944257, 1e-12);
}

TEST(InputGenerator, ChunksAreIndependentOfTheTensorSize) {
  // Chunks are filled in parallel; a prefix must not depend on the length.
  std::vector<float> large = Draw<float>(Normal(0, 1), Dtype::kF32, 77, 3 * kChunkElements + 5);
  std::vector<float> small = Draw<float>(Normal(0, 1), Dtype::kF32, 77, kChunkElements + 1);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
  EXPECT_FALSE(std::equal(large.begin(), large.begin() + 100, large.begin() + kChunkElements));
  EXPECT_NE(large.back(), 0.0f);
  EXPECT_EQ(large, Draw<float>(Normal(0, 1), Dtype::kF32, 77, 3 * kChunkElements + 5));
}

TEST(InputGenerator, NormalHasItsMeanAndStddev) {
  std::vector<double> values = Draw<double>(Normal(3, 2), Dtype::kF64, 1, 200000);
  double sum = 0, square_sum = 0;
  for (double value : values) sum += value, square_sum += value * value;
  double mean = sum / values.size();
  double stddev = std::sqrt(square_sum / values.size() - mean * mean);
  EXPECT_NEAR(mean, 3.0, 0.02);
  EXPECT_NEAR(stddev, 2.0, 0.02);
}

TEST(InputGenerator, UniformStaysInItsRange) {
  TensorInit init;
  init.kind = InitKind::kUniform;
  init.low = -2;
  init.high = 5;
  std::vector<float> values = Draw<float>(init, Dtype::kF32, 3, 100000);
  auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  EXPECT_GE(*lowest, -2.0f);
  EXPECT_LT(*lowest, -1.99f);
  EXPECT_LE(*highest, 5.0f);
  EXPECT_GT(*highest, 4.99f);
}

TEST(InputGenerator, HeavyTailedHasOutliersAndStudentMedian) {
  TensorInit init;
  init.kind = InitKind::kHeavyTailed;
  init.alpha = 3;
  init.scale = 1;
  std::vector<double> values = Draw<double>(init, Dtype::kF64, 5, 100001);
  std::vector<double> magnitudes;
  for (double value : values) magnitudes.push_back(std::fabs(value));
  std::nth_element(magnitudes.begin(), magnitudes.begin() + 50000, magnitudes.end());
  EXPECT_NEAR(magnitudes[50000], 0.7649, 0.02);  // median |t| of Student-t(3)
  double largest = *std::max_element(magnitudes.begin(), magnitudes.end());
  EXPECT_GT(largest, 15.0);  // a normal would essentially never exceed 6
  size_t beyond_five =
      std::count_if(magnitudes.begin(), magnitudes.end(), [](double value) { return value > 5; });
  EXPECT_NEAR(beyond_five / 100001.0, 0.0154, 0.003);  // P(|t3| > 5)
}

TEST(InputGenerator, HeavyTailedWithSmallAlphaWorks) {
  TensorInit init;
  init.kind = InitKind::kHeavyTailed;
  init.alpha = 0.5;
  std::vector<double> values = Draw<double>(init, Dtype::kF64, 9, 1000);
  EXPECT_TRUE(std::none_of(values.begin(), values.end(), [](double value) { return std::isnan(value); }));
}

TEST(InputGenerator, IntRangeIsInclusiveAndCoversBothEnds) {
  TensorInit init;
  init.kind = InitKind::kIntRange;
  init.integer_low = -3;
  init.integer_high = 4;
  std::vector<int32_t> values = Draw<int32_t>(init, Dtype::kI32, 11, 10000);
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), -3);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 4);
  init.integer_low = 250;
  init.integer_high = 255;
  std::vector<uint8_t> bytes = Draw<uint8_t>(init, Dtype::kU8, 11, 1000);
  EXPECT_EQ(*std::min_element(bytes.begin(), bytes.end()), 250);
  EXPECT_EQ(*std::max_element(bytes.begin(), bytes.end()), 255);
  init.integer_low = -(int64_t{1} << 40);
  init.integer_high = int64_t{1} << 40;
  std::vector<int64_t> wide = Draw<int64_t>(init, Dtype::kI64, 11, 1000);
  EXPECT_GT(*std::max_element(wide.begin(), wide.end()), int64_t{1} << 38);
}

TEST(InputGenerator, ZerosOnesAndPoison) {
  TensorInit ones;
  ones.kind = InitKind::kOnes;
  EXPECT_EQ(Draw<float>(ones, Dtype::kF32, 1, 3), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(Draw<uint16_t>(ones, Dtype::kBF16, 1, 2), (std::vector<uint16_t>{0x3F80, 0x3F80}));
  EXPECT_EQ(Draw<uint16_t>(ones, Dtype::kF16, 1, 2), (std::vector<uint16_t>{0x3C00, 0x3C00}));
  TensorInit zeros;
  zeros.kind = InitKind::kZeros;
  EXPECT_EQ(Draw<int64_t>(zeros, Dtype::kI64, 1, 2), (std::vector<int64_t>{0, 0}));
  TensorDecl output{"y", Dtype::kF32, {4}, TensorRole::kOutput, Normal(0, 1)};  // init ignored for outputs
  std::vector<std::byte> poison = GenerateTensor(output, 1);
  ASSERT_EQ(poison.size(), 16u);
  EXPECT_TRUE(
      std::all_of(poison.begin(), poison.end(), [](std::byte value) { return value == kPoisonByte; }));
  float first;
  std::memcpy(&first, poison.data(), 4);
  EXPECT_TRUE(std::isnan(first));
}

TEST(InputGenerator, HalfAndBfloatAreRoundedFromTheSameDraws) {
  std::vector<float> singles = Draw<float>(Normal(0, 10), Dtype::kF32, 21, 1000);
  std::vector<uint16_t> halves = Draw<uint16_t>(Normal(0, 10), Dtype::kF16, 21, 1000);
  std::vector<uint16_t> bfloats = Draw<uint16_t>(Normal(0, 10), Dtype::kBF16, 21, 1000);
  for (size_t index = 0; index < singles.size(); ++index) {
    ASSERT_EQ(halves[index], FloatToHalfBits(singles[index])) << index;
    ASSERT_EQ(bfloats[index], FloatToBfloat16Bits(singles[index])) << index;
  }
}

}  // namespace
}  // namespace kopt::runner
