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
#include "harness/candidate_policy.h"
#include "harness/task_types.h"

namespace kopt {

// One dimension as written: a literal, or the name of an integer scalar.
struct ShapeDimension {
  int64_t literal = 0;
  std::string scalar;  // non-empty: the dimension is this scalar's value
};

struct TensorSpec {
  std::string name;
  DataType dtype = DataType::kF32;
  TensorRole role = TensorRole::kInput;
  TensorInit init;                               // every parameter resolved (defaults applied)
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
  std::vector<TensorSpec> tensors;       // declaration order = parameter order
  std::vector<ScalarSpec> scalars;       // declaration order, after the tensors
  Tolerance tolerances[kDataTypeCount];  // indexed by DataType
  std::vector<VariantSpec> variants;
  int check_seeds = 3;
  std::string flops_expression;      // as written ("" when absent)
  std::string min_bytes_expression;  // as written ("" when absent: the default)
  std::optional<double> flops;       // flop per call at the main size
  double min_bytes = 0;              // bytes per call at the main size
  // [policy] allow: constructs its candidates may use (harness/candidate_policy.h);
  // the parent's alone (not in ToJson).
  PolicyAllowance policy_allow;

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
