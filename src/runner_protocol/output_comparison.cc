#include "runner_protocol/output_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/parallel_chunks.h"
#include "runner_protocol/float16.h"
#include "runner_protocol/input_generator.h"

namespace kopt::runner {
namespace {

template <typename T>
T Load(const std::byte* source) {
  T value;
  std::memcpy(&value, source, sizeof(T));
  return value;
}

// The element's value as double (integers exactly up to 2^53).
double DecodeElement(Dtype dtype, const std::byte* source) {
  switch (dtype) {
    case Dtype::kF64: return Load<double>(source);
    case Dtype::kF32: return Load<float>(source);
    case Dtype::kF16: return HalfBitsToFloat(Load<uint16_t>(source));
    case Dtype::kBF16: return Bfloat16BitsToFloat(Load<uint16_t>(source));
    case Dtype::kI64: return static_cast<double>(Load<int64_t>(source));
    case Dtype::kI32: return Load<int32_t>(source);
    case Dtype::kU8: return Load<uint8_t>(source);
  }
  return 0.0;
}

bool IsPoison(const std::byte* element, size_t element_bytes) {
  for (size_t index = 0; index < element_bytes; ++index) {
    if (element[index] != kPoisonByte) return false;
  }
  return true;
}

bool IntegersEqual(Dtype dtype, const std::byte* got, const std::byte* expected) {
  return std::memcmp(got, expected, DtypeBytes(dtype)) == 0;
}

// The running totals of one range, kept in locals (the loop's stores to an
// OutputCheck in memory, which the byte views may alias, cost more than the
// arithmetic); the same arithmetic as one OutputCheck per element.
struct RangeTally {
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  int64_t mismatches = 0;
  int64_t nan_count = 0;
  int64_t unwritten = 0;
  int64_t first_mismatch_index = -1;
};

// Whether one element passes; updates the error maxima and NaN count.
template <Dtype kDtype>
inline bool ElementPasses(const std::byte* got_bytes, const std::byte* expected_bytes, Tolerance tolerance,
                          RangeTally& tally) {
  if (!IsFloatingDataType(kDtype) && IntegersEqual(kDtype, got_bytes, expected_bytes)) return true;
  double got = DecodeElement(kDtype, got_bytes);
  double expected = DecodeElement(kDtype, expected_bytes);
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isnan(got)) {
    ++tally.nan_count;
    return false;
  }
  if (std::isinf(expected) || std::isinf(got)) return got == expected;
  // Clamped so that the event's JSON stays finite (f64 outputs of opposite huge values).
  double difference = std::min(std::fabs(got - expected), std::numeric_limits<double>::max());
  tally.max_abs_error = std::max(tally.max_abs_error, difference);
  if (expected != 0.0) {
    double relative = std::min(difference / std::fabs(expected), std::numeric_limits<double>::max());
    tally.max_rel_error = std::max(tally.max_rel_error, relative);
  }
  return difference <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

// Elements [begin, end) into `check` (first_mismatch_index is absolute).
// Instantiated per dtype so that the per-element dtype switches fold away.
template <Dtype kDtype>
void CompareRangeOf(std::span<const std::byte> got, std::span<const std::byte> expected, Tolerance tolerance,
                    size_t begin, size_t end, OutputCheck& check) {
  constexpr size_t element_bytes = DtypeBytes(kDtype);
  // A bit-identical range (the common case of a correct candidate) passes with
  // zero error: the same result as the element loop below, in one memcmp.
  if (std::memcmp(got.data() + begin * element_bytes, expected.data() + begin * element_bytes,
                  (end - begin) * element_bytes) == 0) {
    return;
  }
  RangeTally tally{check.max_abs_error, check.max_rel_error, check.mismatches,
                   check.nan_count,     check.unwritten,     check.first_mismatch_index};
  for (size_t index = begin; index < end; ++index) {
    const std::byte* got_element = got.data() + index * element_bytes;
    const std::byte* expected_element = expected.data() + index * element_bytes;
    // Bit-identical (NaN for NaN and poison for poison included): passes with zero error.
    if (std::memcmp(got_element, expected_element, element_bytes) == 0) continue;
    bool passes;
    if (IsPoison(got_element, element_bytes) && !IsPoison(expected_element, element_bytes)) {
      ++tally.unwritten;
      passes = false;
    } else {
      passes = ElementPasses<kDtype>(got_element, expected_element, tolerance, tally);
    }
    if (!passes) {
      if (tally.mismatches == 0) tally.first_mismatch_index = static_cast<int64_t>(index);
      ++tally.mismatches;
    }
  }
  check.max_abs_error = tally.max_abs_error;
  check.max_rel_error = tally.max_rel_error;
  check.mismatches = tally.mismatches;
  check.nan_count = tally.nan_count;
  check.unwritten = tally.unwritten;
  check.first_mismatch_index = tally.first_mismatch_index;
}

void CompareRange(Dtype dtype, std::span<const std::byte> got, std::span<const std::byte> expected,
                  Tolerance tolerance, size_t begin, size_t end, OutputCheck& check) {
  switch (dtype) {
    case Dtype::kF64: return CompareRangeOf<Dtype::kF64>(got, expected, tolerance, begin, end, check);
    case Dtype::kF32: return CompareRangeOf<Dtype::kF32>(got, expected, tolerance, begin, end, check);
    case Dtype::kF16: return CompareRangeOf<Dtype::kF16>(got, expected, tolerance, begin, end, check);
    case Dtype::kBF16: return CompareRangeOf<Dtype::kBF16>(got, expected, tolerance, begin, end, check);
    case Dtype::kI64: return CompareRangeOf<Dtype::kI64>(got, expected, tolerance, begin, end, check);
    case Dtype::kI32: return CompareRangeOf<Dtype::kI32>(got, expected, tolerance, begin, end, check);
    case Dtype::kU8: return CompareRangeOf<Dtype::kU8>(got, expected, tolerance, begin, end, check);
  }
}

// Adds the check of a later range to `total`.
void MergeLaterRange(const OutputCheck& later, OutputCheck& total) {
  total.max_abs_error = std::max(total.max_abs_error, later.max_abs_error);
  total.max_rel_error = std::max(total.max_rel_error, later.max_rel_error);
  if (total.mismatches == 0) total.first_mismatch_index = later.first_mismatch_index;
  total.mismatches += later.mismatches;
  total.nan_count += later.nan_count;
  total.unwritten += later.unwritten;
}

// Elements per parallel piece of a comparison (a 32M-element output is
// compared in about 0.05 s on 16 cores instead of 0.5 s on one).
constexpr size_t kCompareChunkElements = size_t{1} << 16;

}  // namespace

OutputCheck CompareOutput(const std::string& name, Dtype dtype, std::span<const std::byte> got,
                          std::span<const std::byte> expected, Tolerance tolerance) {
  size_t elements = std::min(got.size(), expected.size()) / DtypeBytes(dtype);
  std::vector<OutputCheck> pieces(ChunkCount(elements, kCompareChunkElements));
  ForEachChunk(pieces.size(), [&](size_t chunk) {
    size_t begin = chunk * kCompareChunkElements;
    CompareRange(dtype, got, expected, tolerance, begin, std::min(elements, begin + kCompareChunkElements),
                 pieces[chunk]);
  });
  OutputCheck check;
  check.name = name;
  for (const OutputCheck& piece : pieces) MergeLaterRange(piece, check);
  return check;
}

constexpr size_t kMinimumElementsForPrecisionLoss = 64;

std::optional<Tolerance> LowerPrecisionTolerance(Dtype dtype) {
  if (dtype == Dtype::kF64) return DefaultTolerance(Dtype::kF32);
  if (dtype == Dtype::kF32) {
    Tolerance half = DefaultTolerance(Dtype::kF16);
    Tolerance bfloat = DefaultTolerance(Dtype::kBF16);
    return Tolerance{std::max(half.rtol, bfloat.rtol), std::max(half.atol, bfloat.atol)};
  }
  return std::nullopt;
}

OutputVerdict JudgeOutput(const std::string& name, Dtype dtype, std::span<const std::byte> got,
                          std::span<const std::byte> expected, Tolerance tolerance) {
  OutputVerdict verdict;
  verdict.check = CompareOutput(name, dtype, got, expected, tolerance);
  if (verdict.check.mismatches == 0) return verdict;
  if (verdict.check.unwritten > 0) {
    verdict.failure = FailureKind::kUnwrittenOutput;
    return verdict;
  }
  verdict.failure = FailureKind::kWrongOutput;
  // A downgrade shows as rounding-sized errors across many elements; a few
  // elements (a reduction's single sum) cannot tell a lower precision from a
  // wrong answer that happens to be close (seen on the H200: a sum of every
  // 16th element, scaled, was within bf16 tolerance of the true sum).
  std::optional<Tolerance> lower = LowerPrecisionTolerance(dtype);
  size_t elements = got.size() / DtypeBytes(dtype);
  if (lower && elements >= kMinimumElementsForPrecisionLoss && verdict.check.nan_count == 0 &&
      CompareOutput(name, dtype, got, expected, *lower).mismatches == 0) {
    verdict.failure = FailureKind::kPrecisionLoss;
  }
  return verdict;
}

std::optional<FailureKind> RoundFailure(const std::vector<OutputVerdict>& verdicts) {
  for (FailureKind kind :
       {FailureKind::kUnwrittenOutput, FailureKind::kWrongOutput, FailureKind::kPrecisionLoss}) {
    for (const OutputVerdict& verdict : verdicts) {
      if (verdict.failure == kind) return kind;
    }
  }
  return std::nullopt;
}

double ElementValue(Dtype dtype, std::span<const std::byte> bytes, size_t index) {
  return DecodeElement(dtype, bytes.data() + index * DtypeBytes(dtype));
}

std::string DescribeOutputMismatch(const OutputCheck& check, int64_t element_count, Dtype dtype,
                                   std::span<const std::byte> got, std::span<const std::byte> expected,
                                   Tolerance tolerance) {
  std::string text = fmt::format("output \"{}\": {} of {} elements differ beyond rtol {}, atol {}",
                                 check.name, check.mismatches, element_count, tolerance.rtol, tolerance.atol);
  if (check.first_mismatch_index >= 0) {
    size_t index = static_cast<size_t>(check.first_mismatch_index);
    text += fmt::format("; first at index {}: got {}, expected {}", index, ElementValue(dtype, got, index),
                        ElementValue(dtype, expected, index));
  }
  if (check.unwritten > 0 || check.nan_count > 0) {
    text += fmt::format(" ({} unwritten, {} NaN)", check.unwritten, check.nan_count);
  }
  return text;
}

bool IsConstantOutput(const std::vector<std::span<const std::byte>>& candidate_rounds,
                      const std::vector<std::span<const std::byte>>& reference_rounds) {
  if (candidate_rounds.size() < 2 || candidate_rounds.size() != reference_rounds.size()) return false;
  auto all_equal = [](const std::vector<std::span<const std::byte>>& rounds) {
    return std::all_of(rounds.begin(), rounds.end(), [&](std::span<const std::byte> round) {
      return round.size() == rounds.front().size() &&
             std::memcmp(round.data(), rounds.front().data(), round.size()) == 0;
    });
  };
  return all_equal(candidate_rounds) && !all_equal(reference_rounds);
}

}  // namespace kopt::runner
