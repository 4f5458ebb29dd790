// What a GEMM-class task computes (docs/tuning.md "GEMM tasks"): the
// operation the builtin generator's CUTLASS path (agents/cutlass_gemm_seed.h)
// instantiates, recognised from the task.
//
//   D[l] = post_scale * act(alpha * op(A[l]) · op(B[l]) + bias_scale * bias)     l < batch
//
// op(A) is M×K (A stored [M, K], or [K, M] with transpose_a), op(B) is K×N
// (B stored [K, N], or [N, K] with transpose_b: nn.Linear's weight), D is
// [M, N] row-major; batched tasks prefix every operand with the batch
// dimension (rank 3). bias, when present, is a vector of N added to every
// row. act is identity, relu or gelu (erf form).
//
// Recognition (RecognizeGemm), in order:
//   1. a [gemm] table in task.toml (what a user writes; what
//      `kopt task import-kernelbench` writes when its probe followed a
//      matrix product and its epilogue):
//        [gemm]
//        a = "A"                 # input tensor names
//        b = "B"
//        d = "C"                 # the output
//        transpose_a = false     # optional
//        transpose_b = false     # optional
//        bias = "bias"           # optional: an input of N elements
//        activation = "relu"     # optional: none | relu | gelu
//        alpha = 1.0             # optional: scale of the product
//        bias_scale = 1.0        # optional: scale of the bias
//        post_scale = 1.0        # optional: scale after the activation (none or
//                                # relu only: it folds into alpha and bias_scale)
//      Every name must be a tensor of the task, the shapes must agree
//      (InvalidInput naming task.toml, the key and what was expected).
//   2. detected from the tensors alone, when the task has exactly two
//      floating-point inputs A, B of one dtype and one output D, all of rank 2
//      (or all of rank 3 with one batch dimension), shaped [M, K] (or
//      [K, M]: transpose_a), [K, N] (or [N, K]: transpose_b) and [M, N],
//      exactly one of the four layouts fitting, with M, N and K written
//      differently (three distinct scalar names or literals: a square
//      problem whose dimensions are one literal could be A·B, Aᵀ·B or B·A,
//      so it must be declared).
//   Otherwise nullopt: not a GEMM task.
//
// Supported types: A and B both f32, both f16 or both bf16; D f32, f16 or
// bf16; bias of D's type or f32.
//
// Thread safety: values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "harness/task_spec.h"

namespace kopt {

enum class GemmActivation { kNone, kRelu, kGelu };
std::string_view GemmActivationName(GemmActivation activation);  // "none", "relu", "gelu"

struct GemmOperation {
  std::string a;  // tensor names
  std::string b;
  std::string d;
  std::string bias;  // "" none
  bool transpose_a = false;
  bool transpose_b = false;
  GemmActivation activation = GemmActivation::kNone;
  double alpha = 1.0;
  double bias_scale = 1.0;
  double post_scale = 1.0;
  // Dimensions as written in the tensors' shapes (a literal or a scalar name).
  ShapeDimension m, n, k;
  std::optional<ShapeDimension> batch;  // rank-3 operands
  DataType input_type = DataType::kF32;
  DataType output_type = DataType::kF32;
  DataType bias_type = DataType::kF32;
  // Sizes at the task's main size.
  int64_t m_value = 0, n_value = 0, k_value = 0, batch_value = 1;
  bool declared = false;  // from [gemm]; false: detected from the shapes

  // "bf16 GEMM 4096x4096x4096 (D = A·B), detected from the shapes"
  std::string Describe() const;
};

// The operation of `task` whose task.toml text is `task_toml` (its [gemm]
// table, if any; the caller read the file). nullopt when the task is not
// recognised as a GEMM; InvalidInput for a [gemm] table that is wrong.
Result<std::optional<GemmOperation>> RecognizeGemm(const TaskSpec& task, std::string_view task_toml,
                                                   std::string_view file_name);

// Reads TASK/task.toml and calls RecognizeGemm.
Result<std::optional<GemmOperation>> RecognizeGemmTask(const TaskSpec& task);

}  // namespace kopt
