// The task model's vocabulary, one definition for the whole program: element
// types, tensor roles, scalar types, initialiser kinds and tolerances. The
// task as read from task.toml (harness/task_spec.h) and the kopt-runner's
// view of it (runner_protocol/runner_request.h, where DataType is also
// spelled runner::Dtype) both use these.
//
// Names are the spellings of task.toml and of the runner protocol's JSON
// ("f32", "bf16", "input", "inout", "i32", "heavy_tailed"); the enumerators'
// order is the order of those lists in docs/task-format.md.
//
// Thread safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kopt {

enum class DataType { kF64, kF32, kF16, kBF16, kI64, kI32, kU8 };
enum class TensorRole { kInput, kOutput, kInout };
enum class ScalarType { kI32, kI64, kF32, kF64 };
enum class InitKind { kNone, kNormal, kUniform, kHeavyTailed, kIntRange, kZeros, kOnes };

inline constexpr int kDataTypeCount = 7;  // the enumerators of DataType, for tables indexed by it

// Names as written in task.toml and JSON ("f32", "input", "i32", "normal").
std::string_view DataTypeName(DataType dtype);
std::string_view TensorRoleName(TensorRole role);
std::string_view ScalarTypeName(ScalarType type);
std::string_view InitKindName(InitKind kind);
std::optional<DataType> ParseDataType(std::string_view name);
std::optional<TensorRole> ParseTensorRole(std::string_view name);
std::optional<ScalarType> ParseScalarType(std::string_view name);
std::optional<InitKind> ParseInitKind(std::string_view name);

// How a tensor's contents are drawn (docs/task-format.md "Initialisers"):
// the one struct the task model (harness/task_spec.h, defaults applied by
// the task.toml reader) and the runner protocol (runner_protocol/
// runner_request.h) share. Only the parameters of `kind` are meaningful.
struct TensorInit {
  InitKind kind = InitKind::kNone;
  double mean = 0.0, stddev = 1.0;              // normal
  double low = -1.0, high = 1.0;                // uniform: [low, high)
  double alpha = 3.0, scale = 1.0;              // heavy_tailed: Student-t(alpha) * scale
  int64_t integer_low = 0, integer_high = 100;  // int_range: [low, high] inclusive
};

// Bytes per element.
constexpr int64_t DataTypeBytes(DataType dtype) {
  switch (dtype) {
    case DataType::kF64:
    case DataType::kI64: return 8;
    case DataType::kF32:
    case DataType::kI32: return 4;
    case DataType::kF16:
    case DataType::kBF16: return 2;
    case DataType::kU8: return 1;
  }
  return 1;
}
constexpr bool IsIntegerDataType(DataType dtype) {
  return dtype == DataType::kI64 || dtype == DataType::kI32 || dtype == DataType::kU8;
}
constexpr bool IsFloatingDataType(DataType dtype) {
  return !IsIntegerDataType(dtype);
}
constexpr bool IsIntegerScalarType(ScalarType type) {
  return type == ScalarType::kI32 || type == ScalarType::kI64;
}

// C/CUDA spelling: "float", "__nv_bfloat16", "int64_t"; scalars "int", "double".
std::string_view DataTypeCName(DataType dtype);
std::string_view ScalarTypeCName(ScalarType type);

// An element passes when |got - expected| <= atol + rtol * |expected|.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// The tolerance of docs/task-format.md when the task gives none.
Tolerance DefaultTolerance(DataType dtype);

}  // namespace kopt
