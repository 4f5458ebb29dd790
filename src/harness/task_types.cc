#include "harness/task_types.h"

#include <array>

namespace kopt {
namespace {

constexpr std::array<std::string_view, kDataTypeCount> kDataTypeNames = {"f64", "f32", "f16", "bf16",
                                                                         "i64", "i32", "u8"};
constexpr std::array<std::string_view, kDataTypeCount> kDataTypeCNames = {
    "double", "float", "__half", "__nv_bfloat16", "int64_t", "int32_t", "uint8_t"};
constexpr std::array<std::string_view, 3> kRoleNames = {"input", "output", "inout"};
constexpr std::array<std::string_view, 4> kScalarTypeNames = {"i32", "i64", "f32", "f64"};
constexpr std::array<std::string_view, 4> kScalarTypeCNames = {"int", "int64_t", "float", "double"};
constexpr std::array<std::string_view, 7> kInitKindNames = {"none",      "normal", "uniform", "heavy_tailed",
                                                            "int_range", "zeros",  "ones"};

template <typename Enum, size_t N>
std::optional<Enum> ParseName(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t index = 0; index < N; ++index) {
    if (names[index] == name) return static_cast<Enum>(index);
  }
  return std::nullopt;
}

}  // namespace

std::string_view DataTypeName(DataType dtype) {
  return kDataTypeNames[static_cast<int>(dtype)];
}
std::string_view TensorRoleName(TensorRole role) {
  return kRoleNames[static_cast<int>(role)];
}
std::string_view ScalarTypeName(ScalarType type) {
  return kScalarTypeNames[static_cast<int>(type)];
}
std::string_view InitKindName(InitKind kind) {
  return kInitKindNames[static_cast<int>(kind)];
}
std::optional<DataType> ParseDataType(std::string_view name) {
  return ParseName<DataType>(kDataTypeNames, name);
}
std::optional<TensorRole> ParseTensorRole(std::string_view name) {
  return ParseName<TensorRole>(kRoleNames, name);
}
std::optional<ScalarType> ParseScalarType(std::string_view name) {
  return ParseName<ScalarType>(kScalarTypeNames, name);
}
std::optional<InitKind> ParseInitKind(std::string_view name) {
  return ParseName<InitKind>(kInitKindNames, name);
}
std::string_view DataTypeCName(DataType dtype) {
  return kDataTypeCNames[static_cast<int>(dtype)];
}
std::string_view ScalarTypeCName(ScalarType type) {
  return kScalarTypeCNames[static_cast<int>(type)];
}

Tolerance DefaultTolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kF64: return {1e-9, 1e-12};
    case DataType::kF32: return {1e-4, 1e-5};
    case DataType::kF16: return {1e-2, 1e-3};
    case DataType::kBF16: return {2e-2, 1e-2};
    default: return {0, 0};
  }
}

}  // namespace kopt
