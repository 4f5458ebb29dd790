// The task of `kopt bench` / `kopt optimize`: tensors, scalars, tolerances,
// the entry point, read from a task directory (task.toml + reference.cu).
// The format is docs/task-format.md; the entry-point ABI is
// docs/harness-protocol.md §1.
//
// LoadTask validates everything and resolves shapes to integers; a TaskSpec
// that LoadTask returned is internally consistent (every shape positive,
// every byte count fits in int64). Errors name the file, the key and the line.
//
// Units: bytes for sizes, flop for `flops`, elements for element counts.
// Thread safety: values; no shared state.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

enum class DataType { kF64, kF32, kF16, kBF16, kI64, kI32, kU8 };
enum class TensorRole { kInput, kOutput, kInout };
enum class ScalarType { kI32, kI64, kF32, kF64 };
enum class InitKind { kNone, kNormal, kUniform, kHeavyTailed, kIntRange, kZeros, kOnes };

// Names as written in task.toml and JSON ("f32", "input", "i32", "normal").
std::string_view DataTypeName(DataType dtype);
std::string_view TensorRoleName(TensorRole role);
std::string_view ScalarTypeName(ScalarType type);
std::string_view InitKindName(InitKind kind);
std::optional<DataType> ParseDataType(std::string_view name);
std::optional<TensorRole> ParseTensorRole(std::string_view name);
std::optional<ScalarType> ParseScalarType(std::string_view name);
std::optional<InitKind> ParseInitKind(std::string_view name);

int64_t DataTypeBytes(DataType dtype);  // bytes per element
bool IsIntegerDataType(DataType dtype);
bool IsIntegerScalarType(ScalarType type);
// C/CUDA spelling: "float", "__nv_bfloat16", "int64_t"; scalars "int", "double".
std::string_view DataTypeCName(DataType dtype);
std::string_view ScalarTypeCName(ScalarType type);

// An initialiser with every parameter resolved (defaults applied). Only the
// parameters of `kind` are meaningful (see docs/task-format.md).
struct InitSpec {
  InitKind kind = InitKind::kNone;
  double mean = 0, stddev = 1;  // normal
  double low = 0, high = 0;     // uniform, int_range (inclusive for int_range)
  double alpha = 3, scale = 1;  // heavy_tailed: Student-t with alpha degrees of freedom, times scale
};

// One dimension as written: a literal, or the name of an integer scalar.
struct ShapeDimension {
  int64_t literal = 0;
  std::string scalar;  // non-empty: the dimension is this scalar's value
};

struct TensorSpec {
  std::string name;
  DataType dtype = DataType::kF32;
  TensorRole role = TensorRole::kInput;
  InitSpec init;
  std::vector<ShapeDimension> shape_expression;  // as written; empty after FromJson
  std::vector<int64_t> shape;                    // resolved at the main size
  int64_t elements = 1;                          // product of shape
  int64_t bytes = 0;                             // elements * DataTypeBytes(dtype)
};

struct ScalarSpec {
  std::string name;
  ScalarType type = ScalarType::kI32;
  int64_t integer_value = 0;  // for i32 / i64
  double real_value = 0;      // for f32 / f64
  double AsDouble() const;
};

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// One extra size checked for correctness only.
struct VariantSpec {
  std::vector<ScalarSpec> scalars;           // all scalars, overrides applied
  std::vector<std::vector<int64_t>> shapes;  // per tensor, in declaration order
  int64_t total_bytes = 0;                   // sum of the tensors' bytes
  std::optional<double> flops;               // flop per call at this size
};

struct TaskSpec {
  std::string name;
  std::string entry;
  std::string description;
  std::vector<TensorSpec> tensors;  // declaration order = parameter order
  std::vector<ScalarSpec> scalars;  // declaration order, after the tensors
  Tolerance tolerances[7];          // indexed by DataType
  std::vector<VariantSpec> variants;
  int check_seeds = 3;
  std::string flops_expression;      // as written ("" when absent)
  std::string min_bytes_expression;  // as written ("" when absent: the default)
  std::optional<double> flops;       // flop per call at the main size
  double min_bytes = 0;              // bytes per call at the main size

  std::string directory;         // absolute path of the task directory ("" after FromJson)
  std::string reference_path;    // absolute path of reference.cu ("" after FromJson)
  std::string reference_source;  // its text

  const Tolerance& ToleranceFor(DataType dtype) const { return tolerances[static_cast<int>(dtype)]; }
  // Device memory the tensors need at the main size (bytes).
  int64_t TotalTensorBytes() const;
  // The largest of the main size and every variant (bytes): what must fit on the device.
  int64_t PeakTensorBytes() const;
  const TensorSpec* FindTensor(std::string_view tensor_name) const;
  const ScalarSpec* FindScalar(std::string_view scalar_name) const;

  // The `task` field of the runner request (docs/harness-protocol.md §3).
  nlohmann::json ToJson() const;
  // The runner request's `check_variants` list.
  nlohmann::json VariantsToJson() const;
  // Reads what ToJson wrote; `where` names the source for errors.
  static Result<TaskSpec> FromJson(const nlohmann::json& json, std::string_view where);
};

// The tolerance of docs/task-format.md when the task gives none.
Tolerance DefaultTolerance(DataType dtype);

// The entry point's declaration (docs/harness-protocol.md §1), e.g.
// extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream);
std::string EntryPrototype(const TaskSpec& task);

// Resolves one tensor's shape with the given scalar values (the task's, or a
// variant's): shape, element count and bytes. Errors (no location; the caller
// adds it): unknown or non-integer scalar, non-positive dimension, overflow.
Status ResolveTensorShape(TensorSpec& tensor, const std::vector<ScalarSpec>& scalars);

// Resolves the task's shapes with some scalars overridden (name -> value; a
// value for an integer scalar must be integral). Errors: unknown scalar,
// non-positive dimension, overflow. `where` prefixes messages.
Result<VariantSpec> ResolveVariant(const TaskSpec& task,
                                   const std::vector<std::pair<std::string, double>>& overrides,
                                   std::string_view where);

// Parses task.toml text. `file_name` is used in messages; `reference_source`
// is stored as is. Does not touch the file system.
Result<TaskSpec> ParseTaskToml(std::string_view text, std::string_view file_name);

// Reads <directory>/task.toml and <directory>/reference.cu.
Result<TaskSpec> LoadTask(const std::string& directory);

}  // namespace kopt
