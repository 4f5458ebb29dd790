#include "harness/task_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "harness/size_expression.h"

namespace kopt {

double ScalarSpec::AsDouble() const {
  return IsIntegerScalarType(type) ? static_cast<double>(integer_value) : real_value;
}

int64_t TaskSpec::TotalTensorBytes() const {
  int64_t total = 0;
  for (const TensorSpec& tensor : tensors) total += tensor.bytes;
  return total;
}

int64_t TaskSpec::PeakTensorBytes() const {
  int64_t peak = TotalTensorBytes();
  for (const VariantSpec& variant : variants) peak = std::max(peak, variant.total_bytes);
  return peak;
}

const TensorSpec* TaskSpec::FindTensor(std::string_view tensor_name) const {
  for (const TensorSpec& tensor : tensors) {
    if (tensor.name == tensor_name) return &tensor;
  }
  return nullptr;
}

const ScalarSpec* TaskSpec::FindScalar(std::string_view scalar_name) const {
  for (const ScalarSpec& scalar : scalars) {
    if (scalar.name == scalar_name) return &scalar;
  }
  return nullptr;
}

std::string EntryPrototype(const TaskSpec& task) {
  std::string parameters;
  for (const TensorSpec& tensor : task.tensors) {
    std::string_view qualifier = tensor.role == TensorRole::kInput ? "const " : "";
    parameters += fmt::format("{}{}* {}, ", qualifier, DataTypeCName(tensor.dtype), tensor.name);
  }
  for (const ScalarSpec& scalar : task.scalars) {
    parameters += fmt::format("{} {}, ", ScalarTypeCName(scalar.type), scalar.name);
  }
  return fmt::format("extern \"C\" void {}({}cudaStream_t stream);", task.entry, parameters);
}

namespace {

const ScalarSpec* FindIn(const std::vector<ScalarSpec>& scalars, std::string_view name) {
  for (const ScalarSpec& scalar : scalars) {
    if (scalar.name == name) return &scalar;
  }
  return nullptr;
}

Status ApplyOverride(std::vector<ScalarSpec>& scalars, const std::string& name, double value) {
  auto scalar = std::find_if(scalars.begin(), scalars.end(),
                             [&](const ScalarSpec& candidate) { return candidate.name == name; });
  if (scalar == scalars.end()) return InvalidInput(fmt::format("\"{}\" is not a scalar of the task", name));
  if (!IsIntegerScalarType(scalar->type)) {
    scalar->real_value = value;
    return Status::Ok();
  }
  double limit = scalar->type == ScalarType::kI32 ? 2147483647.0 : 9.2e18;
  if (value != std::floor(value) || std::fabs(value) > limit) {
    return InvalidInput(fmt::format("{} = {} is not a {} value", name, value, ScalarTypeName(scalar->type)));
  }
  scalar->integer_value = static_cast<int64_t>(value);
  return Status::Ok();
}

}  // namespace

Status ResolveTensorShape(TensorSpec& tensor, const std::vector<ScalarSpec>& scalars) {
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (const ShapeDimension& dimension : tensor.shape_expression) {
    int64_t size = dimension.literal;
    if (!dimension.scalar.empty()) {
      const ScalarSpec* scalar = FindIn(scalars, dimension.scalar);
      if (!scalar || !IsIntegerScalarType(scalar->type)) {
        return InvalidInput(fmt::format("\"{}\" is not an integer scalar of the task", dimension.scalar));
      }
      size = scalar->integer_value;
    }
    if (size <= 0) {
      return InvalidInput(fmt::format("dimension {} ({}) is {}; dimensions must be positive",
                                      shape.size() + 1,
                                      dimension.scalar.empty() ? "literal" : dimension.scalar, size));
    }
    if (__builtin_mul_overflow(elements, size, &elements)) {
      return InvalidInput("the element count overflows 64 bits");
    }
    shape.push_back(size);
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, DataTypeBytes(tensor.dtype), &bytes)) {
    return InvalidInput(
        fmt::format("{} elements of {} overflow a 64-bit byte count", elements, DataTypeName(tensor.dtype)));
  }
  tensor.shape = std::move(shape);
  tensor.elements = elements;
  tensor.bytes = bytes;
  return Status::Ok();
}

Result<VariantSpec> ResolveVariant(const TaskSpec& task,
                                   const std::vector<std::pair<std::string, double>>& overrides,
                                   std::string_view where) {
  VariantSpec variant;
  variant.scalars = task.scalars;
  for (const auto& [name, value] : overrides) {
    KOPT_RETURN_IF_ERROR(ApplyOverride(variant.scalars, name, value).WithContext(std::string(where)));
  }
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    TensorSpec tensor = task.tensors[index];
    KOPT_RETURN_IF_ERROR(ResolveTensorShape(tensor, variant.scalars)
                             .WithContext(fmt::format("{}: tensor \"{}\" shape", where, tensor.name)));
    if (__builtin_add_overflow(variant.total_bytes, tensor.bytes, &variant.total_bytes)) {
      return InvalidInput(fmt::format("{}: the tensors' total size overflows 64 bits", where));
    }
    variant.shapes.push_back(std::move(tensor.shape));
  }
  if (!task.flops_expression.empty()) {
    auto lookup = [&](std::string_view name) -> std::optional<double> {
      const ScalarSpec* scalar = FindIn(variant.scalars, name);
      return scalar ? std::optional<double>(scalar->AsDouble()) : std::nullopt;
    };
    auto flops = EvaluateSizeExpression(task.flops_expression, lookup);
    if (!flops.ok()) return flops.status().WithContext(fmt::format("{}: task.flops", where));
    if (!std::isfinite(*flops) || *flops < 0) {
      return InvalidInput(
          fmt::format("{}: task.flops gives {}; expected a finite number >= 0", where, *flops));
    }
    variant.flops = *flops;
  }
  return variant;
}

}  // namespace kopt
