// Comparison of a candidate's output tensor with the reference's, and the
// failure a round's comparisons amount to (docs/harness-protocol.md §4).
//
// An element passes when |got - expected| <= atol + rtol * |expected|
// (computed in double; f16/bf16 decoded exactly), with these special cases:
//   - got still holds the poison (all bytes 0xFF, see input_generator.h) while
//     expected does not: unwritten (and a mismatch);
//   - expected NaN: got must be NaN (any NaN);
//   - got NaN where expected is not: nan_count (and a mismatch);
//   - infinities must match exactly (same sign).
// Integer dtypes compare exactly when the tolerance is 0.
// max_abs_error / max_rel_error cover the elements where both are finite
// (rel over expected != 0).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runner_protocol/failure_kind.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

// Compares `got` with `expected` (same dtype, same byte size, whole elements).
OutputCheck CompareOutput(const std::string& name, Dtype dtype, std::span<const std::byte> got,
                          std::span<const std::byte> expected, Tolerance tolerance);

// The next-lower precision's default tolerance, for precision_loss:
// f64 -> f32's, f32 -> bf16's (the looser of f16 and bf16); none below.
std::optional<Tolerance> LowerPrecisionTolerance(Dtype dtype);

// One output's verdict: the check for the event and, when it fails, why.
struct OutputVerdict {
  OutputCheck check;
  std::optional<FailureKind> failure;  // unwritten_output, precision_loss or wrong_output
};

// CompareOutput with the task's tolerance; on a failure with no unwritten
// elements, compares again with LowerPrecisionTolerance: passing it makes
// the failure precision_loss instead of wrong_output.
OutputVerdict JudgeOutput(const std::string& name, Dtype dtype, std::span<const std::byte> got,
                          std::span<const std::byte> expected, Tolerance tolerance);

// The failure of a round from its outputs' verdicts, most specific first:
// unwritten_output, wrong_output, precision_loss; nullopt when all pass.
std::optional<FailureKind> RoundFailure(const std::vector<OutputVerdict>& verdicts);

// Element `index` of a tensor's bytes as a double (for messages).
double ElementValue(Dtype dtype, std::span<const std::byte> bytes, size_t index);

// "output \"y\": 3 of 32 elements differ beyond rtol 0.0001, atol 1e-05;
// first at index 5: got 1.5, expected 2 (2 unwritten, 1 NaN)".
std::string DescribeOutputMismatch(const OutputCheck& check, int64_t element_count, Dtype dtype,
                                   std::span<const std::byte> got, std::span<const std::byte> expected,
                                   Tolerance tolerance);

// constant_output: with at least two rounds, the candidate's outputs are
// byte-for-byte identical in every round while the reference's are not. One
// buffer per round, in round order, for one output tensor. Exact (no hash:
// nothing a candidate writes can collide); a correct candidate's rounds
// usually differ in their first bytes, so the usual cost is near zero.
bool IsConstantOutput(const std::vector<std::span<const std::byte>>& candidate_rounds,
                      const std::vector<std::span<const std::byte>>& reference_rounds);

}  // namespace kopt::runner
