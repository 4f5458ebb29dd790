#include "runner_protocol/output_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "runner_protocol/float16.h"
#include "runner_protocol/input_generator.h"

namespace kopt::runner {
namespace {

template <typename T>
std::span<const std::byte> Bytes(const std::vector<T>& values) {
  return std::as_bytes(std::span(values));
}

float PoisonFloat() {
  float value;
  std::vector<std::byte> poison(4);
  FillPoison(poison);
  std::memcpy(&value, poison.data(), 4);
  return value;
}

const Tolerance kF32Tolerance{1e-4, 1e-5};

TEST(OutputComparison, IdenticalAndWithinTolerancePass) {
  std::vector<float> expected = {1.0f, -2.0f, 0.0f, 1000.0f};
  std::vector<float> got = {1.00005f, -2.0f, 0.000005f, 1000.05f};
  OutputCheck check = CompareOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(check.mismatches, 0);
  EXPECT_EQ(check.first_mismatch_index, -1);
  EXPECT_NEAR(check.max_abs_error, 0.05, 1e-3);
  EXPECT_NEAR(check.max_rel_error, 5e-5, 1e-6);
}

TEST(OutputComparison, CountsMismatchesAndFirstIndex) {
  std::vector<float> expected = {1, 2, 3, 4};
  std::vector<float> got = {1, 2.5f, 3, 5};
  OutputCheck check = CompareOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(check.mismatches, 2);
  EXPECT_EQ(check.first_mismatch_index, 1);
  EXPECT_FLOAT_EQ(check.max_abs_error, 1.0);
  EXPECT_FLOAT_EQ(check.max_rel_error, 0.25);
}

TEST(OutputComparison, LargeOutputsAreComparedInParallelPiecesWithTheSameResult) {
  // 2.5M elements: about ten pieces. Mismatches late in one piece and early
  // in later ones; the first mismatch and the maxima come from different pieces.
  std::vector<float> expected(2'500'000, 1.0f);
  std::vector<float> got = expected;
  got[400'000] = 1.5f;             // abs error 0.5
  got[300'001] = 0.0f;             // abs error 1: the first mismatch
  got[2'499'999] = 4.0f;           // abs error 3: the maximum, in the last piece
  got[1'000'000] = std::nanf("");  // a NaN where the reference has none
  got[2'000'000] = PoisonFloat();  // unwritten
  OutputCheck check = CompareOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(check.name, "y");
  EXPECT_EQ(check.mismatches, 5);
  EXPECT_EQ(check.first_mismatch_index, 300'001);
  EXPECT_EQ(check.nan_count, 1);
  EXPECT_EQ(check.unwritten, 1);
  EXPECT_FLOAT_EQ(check.max_abs_error, 3.0);
  EXPECT_FLOAT_EQ(check.max_rel_error, 3.0);
}

TEST(OutputComparison, NanMustMatchNanOnly) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> expected = {nan, 1, nan};
  std::vector<float> got = {nan, nan, 1};
  OutputCheck check = CompareOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(check.mismatches, 2);
  EXPECT_EQ(check.nan_count, 1);  // element 1: NaN where the reference has a number
  EXPECT_EQ(check.first_mismatch_index, 1);
  EXPECT_EQ(check.unwritten, 0);  // a quiet NaN is not the poison pattern
}

TEST(OutputComparison, PoisonCountsAsUnwritten) {
  std::vector<float> expected = {1, 2, 3};
  std::vector<float> got = {1, PoisonFloat(), PoisonFloat()};
  OutputVerdict verdict = JudgeOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(verdict.check.unwritten, 2);
  EXPECT_EQ(verdict.check.mismatches, 2);
  EXPECT_EQ(verdict.failure, FailureKind::kUnwrittenOutput);
}

TEST(OutputComparison, DescribesTheFirstMismatch) {
  std::vector<float> expected = {1, 2, 3, 4};
  std::vector<float> got = {1, 2.5f, PoisonFloat(), 4};
  OutputCheck check = CompareOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(DescribeOutputMismatch(check, 4, Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance),
            "output \"y\": 2 of 4 elements differ beyond rtol 0.0001, atol 1e-05; first at index 1: got 2.5, "
            "expected 2 (1 unwritten, 0 NaN)");
}

TEST(OutputComparison, InfinitiesMustMatchExactly) {
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> expected = {inf, -inf, 1};
  std::vector<float> got = {inf, inf, inf};
  OutputCheck check = CompareOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(check.mismatches, 2);
  EXPECT_EQ(check.first_mismatch_index, 1);
}

TEST(OutputComparison, ErrorsStayFiniteForHugeDoubles) {
  std::vector<double> expected = {-1e308, 1e-300};
  std::vector<double> got = {1e308, 1e300};
  OutputCheck check = CompareOutput("z", Dtype::kF64, Bytes(got), Bytes(expected), Tolerance{1e-9, 1e-12});
  EXPECT_EQ(check.mismatches, 2);
  EXPECT_TRUE(std::isfinite(check.max_abs_error));
  EXPECT_TRUE(std::isfinite(check.max_rel_error));
}

TEST(OutputComparison, IntegersCompareExactlyAndMinusOneIsNotUnwritten) {
  std::vector<int32_t> expected = {-1, 5, 7};
  std::vector<int32_t> got = {-1, 5, 8};  // -1 is the poison's bit pattern, but expected too
  OutputCheck check = CompareOutput("k", Dtype::kI32, Bytes(got), Bytes(expected), Tolerance{});
  EXPECT_EQ(check.unwritten, 0);
  EXPECT_EQ(check.mismatches, 1);
  EXPECT_EQ(check.first_mismatch_index, 2);
  std::vector<int32_t> unwritten = {-1, -1, -1};
  EXPECT_EQ(CompareOutput("k", Dtype::kI32, Bytes(unwritten), Bytes(expected), Tolerance{}).unwritten, 2);
}

TEST(OutputComparison, HalfOutputsAreDecoded) {
  std::vector<uint16_t> expected = {FloatToHalfBits(1.0f), FloatToHalfBits(2.0f)};
  std::vector<uint16_t> got = {FloatToHalfBits(1.0078125f), FloatToHalfBits(2.5f)};
  OutputCheck check =
      CompareOutput("h", Dtype::kF16, Bytes(got), Bytes(expected), DefaultTolerance(Dtype::kF16));
  EXPECT_EQ(check.mismatches, 1);
  EXPECT_EQ(check.first_mismatch_index, 1);
  EXPECT_NEAR(check.max_abs_error, 0.5, 1e-9);
}

TEST(OutputComparison, Bf16RoundedF32OutputIsPrecisionLoss) {
  std::vector<float> expected, bf16_rounded, wrong;
  for (int index = 0; index < 100; ++index) {
    float value = 1.0f + index * 0.01234567f;
    expected.push_back(value);
    bf16_rounded.push_back(Bfloat16BitsToFloat(FloatToBfloat16Bits(value)));
    wrong.push_back(value * 1.5f);
  }
  OutputVerdict lossy = JudgeOutput("y", Dtype::kF32, Bytes(bf16_rounded), Bytes(expected), kF32Tolerance);
  EXPECT_GT(lossy.check.mismatches, 0);
  EXPECT_EQ(lossy.failure, FailureKind::kPrecisionLoss);
  OutputVerdict bad = JudgeOutput("y", Dtype::kF32, Bytes(wrong), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(bad.failure, FailureKind::kWrongOutput);
  OutputVerdict good = JudgeOutput("y", Dtype::kF32, Bytes(expected), Bytes(expected), kF32Tolerance);
  EXPECT_FALSE(good.failure.has_value());
}

TEST(OutputComparison, FewElementsNeverClaimPrecisionLoss) {
  // The H200 case: a reduction's one sum, off by 1.6e-4 relative (within
  // bf16's tolerance) because the candidate summed every 16th element.
  std::vector<float> expected = {67111496.0f}, got = {67122176.0f};
  OutputVerdict verdict = JudgeOutput("y", Dtype::kF32, Bytes(got), Bytes(expected), kF32Tolerance);
  EXPECT_EQ(verdict.failure, FailureKind::kWrongOutput);
}

TEST(OutputComparison, NoPrecisionLossBelowHalf) {
  EXPECT_FALSE(LowerPrecisionTolerance(Dtype::kF16).has_value());
  EXPECT_FALSE(LowerPrecisionTolerance(Dtype::kI32).has_value());
  EXPECT_DOUBLE_EQ(LowerPrecisionTolerance(Dtype::kF64)->rtol, DefaultTolerance(Dtype::kF32).rtol);
  EXPECT_DOUBLE_EQ(LowerPrecisionTolerance(Dtype::kF32)->rtol, 2e-2);
}

TEST(OutputComparison, RoundFailurePrefersUnwritten) {
  OutputVerdict wrong, unwritten, fine;
  wrong.failure = FailureKind::kWrongOutput;
  unwritten.failure = FailureKind::kUnwrittenOutput;
  EXPECT_EQ(RoundFailure({wrong, unwritten}), FailureKind::kUnwrittenOutput);
  EXPECT_EQ(RoundFailure({fine, wrong}), FailureKind::kWrongOutput);
  EXPECT_FALSE(RoundFailure({fine, fine}).has_value());
}

TEST(OutputComparison, ConstantOutputAcrossSeeds) {
  std::vector<float> first = {1, 2, 3}, again = {1, 2, 3}, second = {1, 2, 4};
  std::span<const std::byte> a = Bytes(first), a2 = Bytes(again), b = Bytes(second);
  EXPECT_TRUE(IsConstantOutput({a, a2, a}, {a, b, a}));
  EXPECT_FALSE(IsConstantOutput({a, a, a}, {a, a2, a}));  // the reference is constant too
  EXPECT_FALSE(IsConstantOutput({a, b, a}, {a, b, b}));
  EXPECT_FALSE(IsConstantOutput({b, a, a}, {a, b, b}));  // differs in the first round only
  EXPECT_FALSE(IsConstantOutput({a}, {b}));              // one round proves nothing
  EXPECT_FALSE(IsConstantOutput({a, a}, {a, b, b}));     // unequal round counts
  // Exact: one differing bit in the last element of a large buffer is a change.
  std::vector<float> large(1 << 20, 0.5f), flipped = large;
  flipped.back() = std::nextafter(0.5f, 1.0f);
  EXPECT_FALSE(IsConstantOutput({Bytes(large), Bytes(flipped)}, {a, b}));
  EXPECT_TRUE(IsConstantOutput({Bytes(large), Bytes(large)}, {a, b}));
}

// The bit-identical fast path must give exactly what the element loop gives:
// a mismatch in the last element of a chunk, or in a later chunk, is found.
TEST(OutputComparison, IdenticalChunksSkipButMismatchesAnywhereAreFound) {
  std::vector<float> expected(3 * (1 << 16) + 5, 1.0f);
  Tolerance tolerance{1e-5, 1e-8};
  std::vector<float> got = expected;
  OutputCheck same = CompareOutput("z", Dtype::kF32, Bytes(got), Bytes(expected), tolerance);
  EXPECT_EQ(same.mismatches, 0);
  EXPECT_EQ(same.max_abs_error, 0.0);
  for (size_t index : {size_t{0}, size_t{(1 << 16) - 1}, size_t{1 << 16}, expected.size() - 1}) {
    got = expected;
    got[index] = 2.0f;
    OutputCheck check = CompareOutput("z", Dtype::kF32, Bytes(got), Bytes(expected), tolerance);
    EXPECT_EQ(check.mismatches, 1) << index;
    EXPECT_EQ(check.first_mismatch_index, static_cast<int64_t>(index));
    EXPECT_DOUBLE_EQ(check.max_abs_error, 1.0);
  }
  got = expected;
  got[7] = 1.0f + 1e-7f;  // within tolerance but not bit-identical: the error is still measured
  OutputCheck close = CompareOutput("z", Dtype::kF32, Bytes(got), Bytes(expected), tolerance);
  EXPECT_EQ(close.mismatches, 0);
  EXPECT_GT(close.max_abs_error, 0.0);
}

}  // namespace
}  // namespace kopt::runner
