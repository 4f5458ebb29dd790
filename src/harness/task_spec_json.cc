// TaskSpec <-> the `task` field of the runner request (docs/harness-protocol.md §3); declared in task_spec.h.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "harness/task_spec.h"

namespace kopt {
namespace {

using nlohmann::json;

json InitToJson(const TensorInit& init) {
  json object = {{"kind", InitKindName(init.kind)}};
  switch (init.kind) {
    case InitKind::kNormal: object.update({{"mean", init.mean}, {"stddev", init.stddev}}); break;
    case InitKind::kUniform: object.update({{"low", init.low}, {"high", init.high}}); break;
    case InitKind::kIntRange:
      object.update({{"low", init.integer_low}, {"high", init.integer_high}});
      break;
    case InitKind::kHeavyTailed: object.update({{"alpha", init.alpha}, {"scale", init.scale}}); break;
    default: break;
  }
  return object;
}

json ScalarValueJson(const ScalarSpec& scalar) {
  return IsIntegerScalarType(scalar.type) ? json(scalar.integer_value) : json(scalar.real_value);
}

template <typename Enum>
Enum Require(std::optional<Enum> parsed, const std::string& text, std::string_view what) {
  if (!parsed) throw std::invalid_argument(fmt::format("\"{}\" is not a {}", text, what));
  return *parsed;
}

TensorInit InitFromJson(const json& object) {
  TensorInit init;
  init.kind = Require(ParseInitKind(object.at("kind").get<std::string>()),
                      object.at("kind").get<std::string>(), "init kind");
  init.mean = object.value("mean", 0.0);
  init.stddev = object.value("stddev", 1.0);
  if (init.kind == InitKind::kIntRange) {
    init.integer_low = object.value("low", int64_t{0});
    init.integer_high = object.value("high", int64_t{100});
  } else {
    init.low = object.value("low", -1.0);
    init.high = object.value("high", 1.0);
  }
  init.alpha = object.value("alpha", 3.0);
  init.scale = object.value("scale", 1.0);
  return init;
}

TensorSpec TensorFromJson(const json& object) {
  TensorSpec tensor;
  tensor.name = object.at("name").get<std::string>();
  std::string dtype = object.at("dtype").get<std::string>();
  tensor.dtype = Require(ParseDataType(dtype), dtype, "dtype");
  std::string role = object.at("role").get<std::string>();
  tensor.role = Require(ParseTensorRole(role), role, "role");
  tensor.init = object.contains("init") ? InitFromJson(object.at("init")) : TensorInit{};
  for (const json& dimension : object.at("shape")) {
    tensor.shape_expression.push_back(ShapeDimension{dimension.get<int64_t>(), ""});
  }
  Status status = ResolveTensorShape(tensor, {});
  if (!status.ok())
    throw std::invalid_argument(fmt::format("tensor \"{}\": {}", tensor.name, status.message()));
  tensor.shape_expression.clear();
  return tensor;
}

ScalarSpec ScalarFromJson(const json& object) {
  ScalarSpec scalar;
  scalar.name = object.at("name").get<std::string>();
  std::string type = object.at("type").get<std::string>();
  scalar.type = Require(ParseScalarType(type), type, "scalar type");
  if (IsIntegerScalarType(scalar.type)) {
    scalar.integer_value = object.at("value").get<int64_t>();
  } else {
    scalar.real_value = object.at("value").get<double>();
  }
  return scalar;
}

TaskSpec TaskFromJson(const json& object) {
  TaskSpec task;
  task.name = object.at("name").get<std::string>();
  task.entry = object.at("entry").get<std::string>();
  task.description = object.value("description", "");
  for (const json& tensor : object.at("tensors")) task.tensors.push_back(TensorFromJson(tensor));
  for (const json& scalar : object.at("scalars")) task.scalars.push_back(ScalarFromJson(scalar));
  for (int index = 0; index < 7; ++index)
    task.tolerances[index] = DefaultTolerance(static_cast<DataType>(index));
  if (object.contains("tolerances")) {
    for (const auto& [dtype, tolerance] : object.at("tolerances").items()) {
      DataType parsed = Require(ParseDataType(dtype), dtype, "dtype");
      task.tolerances[static_cast<int>(parsed)] = {tolerance.at("rtol").get<double>(),
                                                   tolerance.at("atol").get<double>()};
    }
  }
  if (object.contains("flops") && !object.at("flops").is_null())
    task.flops = object.at("flops").get<double>();
  task.min_bytes = object.value("min_bytes", 0.0);
  task.check_seeds = object.value("check_seeds", 3);
  return task;
}

}  // namespace

nlohmann::json TaskSpec::ToJson() const {
  json tensor_list = json::array();
  for (const TensorSpec& tensor : tensors) {
    tensor_list.push_back({{"name", tensor.name},
                           {"dtype", DataTypeName(tensor.dtype)},
                           {"shape", tensor.shape},
                           {"role", TensorRoleName(tensor.role)},
                           {"init", InitToJson(tensor.init)}});
  }
  json scalar_list = json::array();
  for (const ScalarSpec& scalar : scalars) {
    scalar_list.push_back(
        {{"name", scalar.name}, {"type", ScalarTypeName(scalar.type)}, {"value", ScalarValueJson(scalar)}});
  }
  json tolerance_map = json::object();
  for (int index = 0; index < 7; ++index) {
    tolerance_map[std::string(DataTypeName(static_cast<DataType>(index)))] = {
        {"rtol", tolerances[index].rtol}, {"atol", tolerances[index].atol}};
  }
  json object = {{"name", name},
                 {"entry", entry},
                 {"description", description},
                 {"tensors", tensor_list},
                 {"scalars", scalar_list},
                 {"tolerances", tolerance_map},
                 {"min_bytes", min_bytes},
                 {"check_seeds", check_seeds}};
  if (flops) object["flops"] = *flops;
  return object;
}

nlohmann::json TaskSpec::VariantsToJson() const {
  json list = json::array();
  for (const VariantSpec& variant : variants) {
    json scalar_map = json::object();
    for (const ScalarSpec& scalar : variant.scalars) scalar_map[scalar.name] = ScalarValueJson(scalar);
    json shape_map = json::object();
    for (size_t index = 0; index < tensors.size() && index < variant.shapes.size(); ++index) {
      shape_map[tensors[index].name] = variant.shapes[index];
    }
    list.push_back({{"scalars", scalar_map}, {"shapes", shape_map}});
  }
  return list;
}

Result<TaskSpec> TaskSpec::FromJson(const nlohmann::json& json_value, std::string_view where) {
  try {
    return TaskFromJson(json_value);
  } catch (const std::exception& error) {
    return InvalidInput(
        fmt::format("{}: task: {}; expected the form of docs/task-format.md (\"The resolved "
                    "task as JSON\")",
                    where, error.what()));
  }
}

}  // namespace kopt
