#include "runner_protocol/runner_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "core/enum_names.h"

namespace kopt::runner {
namespace {

using nlohmann::json;

// (value, name) tables of the task model's enums, in enumerator order.
template <typename Enum, size_t Count>
EnumNameTable<Enum, Count> NameTable(std::string_view (*name_of)(Enum)) {
  EnumNameTable<Enum, Count> table;
  for (size_t index = 0; index < Count; ++index)
    table[index] = {static_cast<Enum>(index), name_of(static_cast<Enum>(index))};
  return table;
}

const auto kDtypeNames = NameTable<Dtype, kDataTypeCount>(DataTypeName);
const auto kRoleNames = NameTable<TensorRole, 3>(TensorRoleName);
const auto kInitNames = NameTable<InitKind, 7>(InitKindName);
const auto kScalarTypeNames = NameTable<ScalarType, 4>(ScalarTypeName);
constexpr EnumNameTable<RunnerRole, 2> kRunnerRoleNames = {{
    {RunnerRole::kCandidate, "candidate"},
    {RunnerRole::kReference, "reference"},
}};

constexpr EnumNameTable<OutputChannelKind, 3> kOutputChannelKindNames = {{
    {OutputChannelKind::kPipe, "pipe"},
    {OutputChannelKind::kMemory, "memory"},
    {OutputChannelKind::kPull, "pull"},
}};

template <typename Enum, size_t Count>
std::string NameList(const EnumNameTable<Enum, Count>& table) {
  std::string names;
  for (const auto& [entry, name] : table) names += (names.empty() ? "" : " ") + std::string(name);
  return names;
}

// Reads fields of one JSON object; errors name "<source>: <path>.<key>".
class FieldReader {
 public:
  FieldReader(const json& object, std::string source, std::string path)
      : object_(object), source_(std::move(source)), path_(std::move(path)) {}

  Status CheckObject() const {
    if (object_.is_object()) return Status::Ok();
    return Error(path_, "expected a JSON object, got " + std::string(object_.type_name()));
  }
  std::string PathOf(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  Status Error(const std::string& path, const std::string& what) const {
    return InvalidInput(fmt::format("{}: {}: {}", source_, path.empty() ? "(top level)" : path, what));
  }
  const json* Find(std::string_view key) const {
    auto found = object_.find(std::string(key));
    return found == object_.end() ? nullptr : &*found;
  }
  Result<const json*> Required(std::string_view key) const {
    const json* value = Find(key);
    if (value == nullptr) return Error(PathOf(key), "missing");
    return value;
  }
  Result<std::string> String(std::string_view key) const {
    KOPT_ASSIGN_OR_RETURN(const json* value, Required(key));
    if (!value->is_string()) return Error(PathOf(key), "expected a string");
    return value->get<std::string>();
  }
  Result<double> Number(std::string_view key, std::optional<double> fallback = std::nullopt) const {
    const json* value = Find(key);
    if (value == nullptr && fallback) return *fallback;
    if (value == nullptr) return Error(PathOf(key), "missing; expected a number");
    if (!value->is_number() || !std::isfinite(value->get<double>()))
      return Error(PathOf(key), "expected a number");
    return value->get<double>();
  }
  Result<int64_t> Integer(std::string_view key, std::optional<int64_t> fallback = std::nullopt) const {
    const json* value = Find(key);
    if (value == nullptr && fallback) return *fallback;
    if (value == nullptr) return Error(PathOf(key), "missing; expected an integer");
    if (!value->is_number_integer()) return Error(PathOf(key), "expected an integer");
    return value->get<int64_t>();
  }
  Result<bool> Boolean(std::string_view key, std::optional<bool> fallback = std::nullopt) const {
    const json* value = Find(key);
    if (value == nullptr && fallback) return *fallback;
    if (value == nullptr) return Error(PathOf(key), "missing; expected true or false");
    if (!value->is_boolean()) return Error(PathOf(key), "expected true or false");
    return value->get<bool>();
  }
  Result<const json*> Array(std::string_view key) const {
    KOPT_ASSIGN_OR_RETURN(const json* value, Required(key));
    if (!value->is_array()) return Error(PathOf(key), "expected a list");
    return value;
  }
  template <typename Enum, size_t Count>
  Result<Enum> Named(std::string_view key, const EnumNameTable<Enum, Count>& table,
                     std::string_view what) const {
    KOPT_ASSIGN_OR_RETURN(std::string name, String(key));
    std::optional<Enum> value = EnumFromName(table, name);
    if (!value) {
      return Error(PathOf(key),
                   fmt::format("\"{}\" is not a {}; expected one of {}", name, what, NameList(table)));
    }
    return *value;
  }
  const std::string& source() const { return source_; }

 private:
  const json& object_;
  std::string source_;
  std::string path_;
};

std::string Indexed(const std::string& path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

Result<std::vector<int64_t>> ShapeFromJson(const json& value, const FieldReader& owner,
                                           const std::string& path) {
  if (!value.is_array()) return owner.Error(path, "expected a list of positive integers");
  std::vector<int64_t> shape;
  for (size_t index = 0; index < value.size(); ++index) {
    const json& dimension = value[index];
    if (!dimension.is_number_integer() || dimension.get<int64_t>() <= 0) {
      return owner.Error(Indexed(path, index), "expected a positive integer");
    }
    shape.push_back(dimension.get<int64_t>());
  }
  return shape;
}

Result<TensorInit> InitFromJson(const FieldReader& reader) {
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  TensorInit init;
  KOPT_ASSIGN_OR_RETURN(init.kind, reader.Named("kind", kInitNames, "init kind"));
  switch (init.kind) {
    case InitKind::kNormal: {
      KOPT_ASSIGN_OR_RETURN(init.mean, reader.Number("mean", 0.0));
      KOPT_ASSIGN_OR_RETURN(init.stddev, reader.Number("stddev", 1.0));
      if (!(init.stddev > 0)) return reader.Error(reader.PathOf("stddev"), "expected a number > 0");
      break;
    }
    case InitKind::kUniform: {
      KOPT_ASSIGN_OR_RETURN(init.low, reader.Number("low", -1.0));
      KOPT_ASSIGN_OR_RETURN(init.high, reader.Number("high", 1.0));
      if (!(init.high > init.low)) return reader.Error(reader.PathOf("high"), "expected a number > low");
      break;
    }
    case InitKind::kHeavyTailed: {
      KOPT_ASSIGN_OR_RETURN(init.alpha, reader.Number("alpha", 3.0));
      KOPT_ASSIGN_OR_RETURN(init.scale, reader.Number("scale", 1.0));
      if (!(init.alpha > 0)) return reader.Error(reader.PathOf("alpha"), "expected a number > 0");
      if (!(init.scale > 0)) return reader.Error(reader.PathOf("scale"), "expected a number > 0");
      break;
    }
    case InitKind::kIntRange: {
      KOPT_ASSIGN_OR_RETURN(init.integer_low, reader.Integer("low", 0));
      KOPT_ASSIGN_OR_RETURN(init.integer_high, reader.Integer("high", 100));
      if (init.integer_high < init.integer_low)
        return reader.Error(reader.PathOf("high"), "expected an integer >= low");
      break;
    }
    default: break;
  }
  return init;
}

Result<TensorDecl> TensorFromJson(const FieldReader& reader) {
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  TensorDecl tensor;
  KOPT_ASSIGN_OR_RETURN(tensor.name, reader.String("name"));
  KOPT_ASSIGN_OR_RETURN(tensor.dtype, reader.Named("dtype", kDtypeNames, "dtype"));
  KOPT_ASSIGN_OR_RETURN(tensor.role, reader.Named("role", kRoleNames, "role"));
  KOPT_ASSIGN_OR_RETURN(const json* shape, reader.Array("shape"));
  KOPT_ASSIGN_OR_RETURN(tensor.shape, ShapeFromJson(*shape, reader, reader.PathOf("shape")));
  if (const json* init = reader.Find("init")) {
    KOPT_ASSIGN_OR_RETURN(tensor.init,
                          InitFromJson(FieldReader(*init, reader.source(), reader.PathOf("init"))));
  }
  bool integer_init = tensor.init.kind == InitKind::kIntRange;
  bool float_init = tensor.init.kind == InitKind::kNormal || tensor.init.kind == InitKind::kUniform ||
                    tensor.init.kind == InitKind::kHeavyTailed;
  if (float_init && !IsFloatingDataType(tensor.dtype)) {
    return reader.Error(reader.PathOf("init.kind"),
                        "a floating-point init on an integer dtype; use int_range");
  }
  if (integer_init && tensor.dtype == Dtype::kU8 &&
      (tensor.init.integer_low < 0 || tensor.init.integer_high > 255)) {
    return reader.Error(reader.PathOf("init"), "int_range on u8 must stay within 0..255");
  }
  return tensor;
}

Result<ScalarDecl> ScalarValueFromJson(ScalarDecl scalar, const json& value, const FieldReader& reader,
                                       const std::string& path) {
  bool integer = scalar.type == ScalarType::kI32 || scalar.type == ScalarType::kI64;
  if (integer) {
    if (!value.is_number_integer()) return reader.Error(path, "expected an integer");
    scalar.integer_value = value.get<int64_t>();
    if (scalar.type == ScalarType::kI32 && (scalar.integer_value < std::numeric_limits<int32_t>::min() ||
                                            scalar.integer_value > std::numeric_limits<int32_t>::max())) {
      return reader.Error(path, "out of the i32 range");
    }
    scalar.float_value = static_cast<double>(scalar.integer_value);
  } else {
    if (!value.is_number() || !std::isfinite(value.get<double>()))
      return reader.Error(path, "expected a number");
    scalar.float_value = value.get<double>();
  }
  return scalar;
}

Result<ScalarDecl> ScalarFromJson(const FieldReader& reader) {
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  ScalarDecl scalar;
  KOPT_ASSIGN_OR_RETURN(scalar.name, reader.String("name"));
  KOPT_ASSIGN_OR_RETURN(scalar.type, reader.Named("type", kScalarTypeNames, "scalar type"));
  KOPT_ASSIGN_OR_RETURN(const json* value, reader.Required("value"));
  return ScalarValueFromJson(std::move(scalar), *value, reader, reader.PathOf("value"));
}

Result<std::map<Dtype, Tolerance>> TolerancesFromJson(const FieldReader& task_reader) {
  std::map<Dtype, Tolerance> tolerances;
  const json* object = task_reader.Find("tolerances");
  if (object == nullptr) return tolerances;
  std::string path = task_reader.PathOf("tolerances");
  if (!object->is_object()) return task_reader.Error(path, "expected an object dtype -> {rtol, atol}");
  for (const auto& [name, value] : object->items()) {
    std::optional<Dtype> dtype = ParseDataType(name);
    if (!dtype)
      return task_reader.Error(path + "." + name, "not a dtype; expected one of " + NameList(kDtypeNames));
    FieldReader reader(value, task_reader.source(), path + "." + name);
    KOPT_RETURN_IF_ERROR(reader.CheckObject());
    Tolerance fallback = DefaultTolerance(*dtype);
    Tolerance tolerance;
    KOPT_ASSIGN_OR_RETURN(tolerance.rtol, reader.Number("rtol", fallback.rtol));
    KOPT_ASSIGN_OR_RETURN(tolerance.atol, reader.Number("atol", fallback.atol));
    if (tolerance.rtol < 0 || tolerance.atol < 0)
      return reader.Error(path + "." + name, "tolerances must be >= 0");
    tolerances[*dtype] = tolerance;
  }
  return tolerances;
}

template <typename Item, typename Parse>
Result<std::vector<Item>> ListFromJson(const FieldReader& reader, std::string_view key, Parse parse) {
  KOPT_ASSIGN_OR_RETURN(const json* list, reader.Array(key));
  std::vector<Item> items;
  for (size_t index = 0; index < list->size(); ++index) {
    KOPT_ASSIGN_OR_RETURN(
        Item item, parse(FieldReader((*list)[index], reader.source(), Indexed(reader.PathOf(key), index))));
    items.push_back(std::move(item));
  }
  return items;
}

Result<CheckVariant> VariantFromJson(const FieldReader& reader, const RunnerTask& task) {
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  CheckVariant variant;
  if (const json* scalars = reader.Find("scalars")) {
    if (!scalars->is_object())
      return reader.Error(reader.PathOf("scalars"), "expected an object name -> value");
    for (const auto& [name, value] : scalars->items()) {
      std::string path = reader.PathOf("scalars") + "." + name;
      auto declared = std::find_if(task.scalars.begin(), task.scalars.end(),
                                   [&](const ScalarDecl& scalar) { return scalar.name == name; });
      if (declared == task.scalars.end()) return reader.Error(path, "not a scalar of the task");
      KOPT_ASSIGN_OR_RETURN(ScalarDecl scalar, ScalarValueFromJson(*declared, value, reader, path));
      variant.scalars.push_back(std::move(scalar));
    }
  }
  if (const json* shapes = reader.Find("shapes")) {
    if (!shapes->is_object())
      return reader.Error(reader.PathOf("shapes"), "expected an object tensor -> shape");
    for (const auto& [name, value] : shapes->items()) {
      std::string path = reader.PathOf("shapes") + "." + name;
      auto declared = std::find_if(task.tensors.begin(), task.tensors.end(),
                                   [&](const TensorDecl& tensor) { return tensor.name == name; });
      if (declared == task.tensors.end()) return reader.Error(path, "not a tensor of the task");
      KOPT_ASSIGN_OR_RETURN(variant.shapes[name], ShapeFromJson(value, reader, path));
    }
  }
  return variant;
}

Result<TimingRequest> TimingFromJson(const FieldReader& reader) {
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  TimingRequest defaults;
  TimingRequest timing;
  KOPT_ASSIGN_OR_RETURN(timing.warmup_seconds, reader.Number("warmup_seconds", defaults.warmup_seconds));
  KOPT_ASSIGN_OR_RETURN(int64_t min_samples, reader.Integer("min_samples", defaults.min_samples));
  KOPT_ASSIGN_OR_RETURN(int64_t max_samples, reader.Integer("max_samples", defaults.max_samples));
  if (min_samples < 1 || max_samples < min_samples || max_samples > 10'000'000) {
    return reader.Error(reader.PathOf("max_samples"), "expected 1 <= min_samples <= max_samples <= 10000000");
  }
  timing.min_samples = static_cast<int>(min_samples);
  timing.max_samples = static_cast<int>(max_samples);
  KOPT_ASSIGN_OR_RETURN(timing.max_relative_stdev,
                        reader.Number("max_relative_stdev", defaults.max_relative_stdev));
  KOPT_ASSIGN_OR_RETURN(timing.min_gpu_seconds, reader.Number("min_gpu_seconds", defaults.min_gpu_seconds));
  KOPT_ASSIGN_OR_RETURN(timing.timeout_seconds, reader.Number("timeout_seconds", defaults.timeout_seconds));
  KOPT_ASSIGN_OR_RETURN(timing.cold, reader.Boolean("cold", defaults.cold));
  KOPT_ASSIGN_OR_RETURN(int64_t verified, reader.Integer("verified_samples", defaults.verified_samples));
  if (verified < 0 || verified > 64) {
    return reader.Error(reader.PathOf("verified_samples"), "expected 0 <= verified_samples <= 64");
  }
  timing.verified_samples = static_cast<int>(verified);
  KOPT_ASSIGN_OR_RETURN(timing.rotate_input_sets,
                        reader.Boolean("rotate_input_sets", defaults.rotate_input_sets));
  return timing;
}

Result<EnergyRequest> EnergyFromJson(const FieldReader& reader) {
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  EnergyRequest energy;
  KOPT_ASSIGN_OR_RETURN(energy.window_seconds, reader.Number("window_seconds", 1.0));
  KOPT_ASSIGN_OR_RETURN(energy.idle_seconds, reader.Number("idle_seconds", 1.0));
  if (!(energy.window_seconds > 0))
    return reader.Error(reader.PathOf("window_seconds"), "expected a number > 0");
  return energy;
}

// An optional non-negative 64-bit integer field (absent: 0).
Result<uint64_t> SeedFromJson(const FieldReader& reader, std::string_view key) {
  const json* seed = reader.Find(key);
  if (seed == nullptr) return uint64_t{0};
  if (!seed->is_number_unsigned() && !(seed->is_number_integer() && seed->get<int64_t>() >= 0)) {
    return reader.Error(reader.PathOf(key), "expected a non-negative integer");
  }
  return seed->get<uint64_t>();
}

Result<std::vector<uint64_t>> SeedsFromJson(const FieldReader& reader) {
  KOPT_ASSIGN_OR_RETURN(const json* list, reader.Array("seeds"));
  std::vector<uint64_t> seeds;
  for (size_t index = 0; index < list->size(); ++index) {
    const json& seed = (*list)[index];
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
      return reader.Error(Indexed("seeds", index), "expected a non-negative integer");
    }
    seeds.push_back(seed.get<uint64_t>());
  }
  return seeds;
}

// The task's informational fields (RunnerTask::description ...): each kept when of its type.
void ReadInformational(const json& task_json, RunnerTask& task) {
  auto find = [&](const char* key) -> const json* {
    auto found = task_json.find(key);
    return found == task_json.end() ? nullptr : &*found;
  };
  if (const json* value = find("description"); value && value->is_string()) task.description = *value;
  if (const json* value = find("min_bytes"); value && value->is_number()) task.min_bytes = *value;
  if (const json* value = find("check_seeds"); value && value->is_number_integer()) task.check_seeds = *value;
  if (const json* value = find("flops"); value && value->is_number()) task.flops = *value;
}

Status CheckTaskConsistency(const RunnerTask& task, const FieldReader& reader) {
  if (task.entry.empty()) return reader.Error("task.entry", "expected a non-empty identifier");
  bool any_output = false;
  for (const TensorDecl& tensor : task.tensors) any_output = any_output || tensor.IsWritten();
  if (!any_output) return reader.Error("task.tensors", "no tensor has role output or inout");
  for (const TensorDecl& tensor : task.tensors) {
    int64_t elements = 1;
    for (int64_t dimension : tensor.shape) {
      if (elements > std::numeric_limits<int64_t>::max() / 16 / dimension) {
        return reader.Error("task.tensors." + tensor.name + ".shape", "element count overflows");
      }
      elements *= dimension;
    }
  }
  return Status::Ok();
}

}  // namespace

int64_t TensorDecl::ElementCount() const {
  int64_t count = 1;
  for (int64_t dimension : shape) count *= dimension;
  return count;
}

Tolerance RunnerTask::ToleranceFor(Dtype dtype) const {
  auto found = tolerances.find(dtype);
  return found == tolerances.end() ? DefaultTolerance(dtype) : found->second;
}

RunnerTask ApplyVariant(const RunnerTask& task, const CheckVariant& variant) {
  RunnerTask resized = task;
  for (ScalarDecl& scalar : resized.scalars) {
    for (const ScalarDecl& replacement : variant.scalars) {
      if (replacement.name == scalar.name) scalar = replacement;
    }
  }
  for (TensorDecl& tensor : resized.tensors) {
    auto shape = variant.shapes.find(tensor.name);
    if (shape != variant.shapes.end()) tensor.shape = shape->second;
  }
  return resized;
}

Result<RunnerTask> RunnerTaskFromJson(const json& value, const std::string& source) {
  FieldReader reader(value, source, "task");
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  RunnerTask task;
  KOPT_ASSIGN_OR_RETURN(task.name, reader.String("name"));
  KOPT_ASSIGN_OR_RETURN(task.entry, reader.String("entry"));
  KOPT_ASSIGN_OR_RETURN(task.tensors, ListFromJson<TensorDecl>(reader, "tensors", TensorFromJson));
  KOPT_ASSIGN_OR_RETURN(task.scalars, ListFromJson<ScalarDecl>(reader, "scalars", ScalarFromJson));
  KOPT_ASSIGN_OR_RETURN(task.tolerances, TolerancesFromJson(reader));
  KOPT_RETURN_IF_ERROR(CheckTaskConsistency(task, reader));
  ReadInformational(value, task);
  return task;
}

Result<RunnerRequest> RunnerRequestFromJson(const json& value, const std::string& source) {
  FieldReader reader(value, source, "");
  KOPT_RETURN_IF_ERROR(reader.CheckObject());
  KOPT_ASSIGN_OR_RETURN(std::string schema, reader.String("schema"));
  if (schema != kRunnerRequestSchema) {
    return reader.Error("schema", fmt::format("\"{}\"; expected \"{}\"", schema, kRunnerRequestSchema));
  }
  RunnerRequest request;
  if (reader.Find("role") != nullptr) {
    KOPT_ASSIGN_OR_RETURN(request.role, reader.Named("role", kRunnerRoleNames, "runner role"));
  }
  KOPT_ASSIGN_OR_RETURN(const json* task, reader.Required("task"));
  KOPT_ASSIGN_OR_RETURN(request.task, RunnerTaskFromJson(*task, source));
  KOPT_ASSIGN_OR_RETURN(request.candidate_library, reader.String("candidate_library"));
  KOPT_ASSIGN_OR_RETURN(request.reference_library, reader.String("reference_library"));
  KOPT_ASSIGN_OR_RETURN(request.seeds, SeedsFromJson(reader));
  if (reader.Find("check_variants") != nullptr) {
    KOPT_ASSIGN_OR_RETURN(request.check_variants,
                          ListFromJson<CheckVariant>(reader, "check_variants", [&](const FieldReader& item) {
                            return VariantFromJson(item, request.task);
                          }));
  }
  KOPT_ASSIGN_OR_RETURN(request.check, reader.Boolean("check", true));
  if (request.check && request.seeds.empty())
    return reader.Error("seeds", "empty; checking needs at least one seed");
  const json* timing = reader.Find("timing");
  if (timing != nullptr && !timing->is_null()) {
    KOPT_ASSIGN_OR_RETURN(request.timing, TimingFromJson(FieldReader(*timing, source, "timing")));
  }
  const json* energy = reader.Find("energy");
  if (energy != nullptr && !energy->is_null()) {
    KOPT_ASSIGN_OR_RETURN(request.energy, EnergyFromJson(FieldReader(*energy, source, "energy")));
  }
  KOPT_ASSIGN_OR_RETURN(int64_t device, reader.Integer("device", 0));
  if (device < 0 || device > 1024) return reader.Error("device", "expected a device ordinal 0..1024");
  request.device = static_cast<int>(device);
  const json* cpu_seconds = reader.Find("cpu_seconds");
  if (cpu_seconds != nullptr && !cpu_seconds->is_null()) {
    KOPT_ASSIGN_OR_RETURN(request.cpu_seconds, reader.Number("cpu_seconds"));
    if (!(*request.cpu_seconds > 0)) return reader.Error("cpu_seconds", "expected a number > 0");
  }
  KOPT_ASSIGN_OR_RETURN(request.timing_seed, SeedFromJson(reader, "timing_seed"));
  KOPT_ASSIGN_OR_RETURN(request.fresh_seed, SeedFromJson(reader, "fresh_seed"));
  KOPT_ASSIGN_OR_RETURN(int64_t output_fd, reader.Integer("output_fd", -1));
  if (output_fd < -1 || output_fd > 1023)
    return reader.Error("output_fd", "expected -1 or a descriptor 0..1023");
  request.output_fd = static_cast<int>(output_fd);
  KOPT_ASSIGN_OR_RETURN(bool output_memory, reader.Boolean("output_memory", false));
  KOPT_ASSIGN_OR_RETURN(bool output_pull, reader.Boolean("output_pull", false));
  request.output_channel = output_memory ? OutputChannelKind::kMemory
                           : output_pull ? OutputChannelKind::kPull
                                         : OutputChannelKind::kPipe;
  return request;
}

Result<RunnerRequest> ParseRunnerRequest(std::string_view text, const std::string& source) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return InvalidInput(source + ": not valid JSON");
  return RunnerRequestFromJson(value, source);
}

}  // namespace kopt::runner

namespace kopt::runner {
namespace {

nlohmann::json InitToJson(const TensorInit& init) {
  nlohmann::json json = {{"kind", EnumName(kInitNames, init.kind, "unknown")}};
  switch (init.kind) {
    case InitKind::kNormal: json.update({{"mean", init.mean}, {"stddev", init.stddev}}); break;
    case InitKind::kUniform: json.update({{"low", init.low}, {"high", init.high}}); break;
    case InitKind::kHeavyTailed: json.update({{"alpha", init.alpha}, {"scale", init.scale}}); break;
    case InitKind::kIntRange: json.update({{"low", init.integer_low}, {"high", init.integer_high}}); break;
    default: break;
  }
  return json;
}

nlohmann::json ScalarValueToJson(const ScalarDecl& scalar) {
  if (scalar.type == ScalarType::kI32 || scalar.type == ScalarType::kI64) return scalar.integer_value;
  return scalar.float_value;
}

}  // namespace

nlohmann::json RunnerTaskToJson(const RunnerTask& task) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const TensorDecl& tensor : task.tensors) {
    tensors.push_back({{"name", tensor.name},
                       {"dtype", DataTypeName(tensor.dtype)},
                       {"shape", tensor.shape},
                       {"role", EnumName(kRoleNames, tensor.role, "unknown")},
                       {"init", InitToJson(tensor.init)}});
  }
  nlohmann::json scalars = nlohmann::json::array();
  for (const ScalarDecl& scalar : task.scalars) {
    scalars.push_back({{"name", scalar.name},
                       {"type", EnumName(kScalarTypeNames, scalar.type, "unknown")},
                       {"value", ScalarValueToJson(scalar)}});
  }
  nlohmann::json tolerances = nlohmann::json::object();
  for (const auto& [dtype, tolerance] : task.tolerances) {
    tolerances[std::string(DataTypeName(dtype))] = {{"rtol", tolerance.rtol}, {"atol", tolerance.atol}};
  }
  nlohmann::json json = {{"name", task.name},
                         {"entry", task.entry},
                         {"tensors", tensors},
                         {"scalars", scalars},
                         {"tolerances", tolerances}};
  if (task.description) json["description"] = *task.description;
  if (task.min_bytes) json["min_bytes"] = *task.min_bytes;
  if (task.check_seeds) json["check_seeds"] = *task.check_seeds;
  if (task.flops) json["flops"] = *task.flops;
  return json;
}

nlohmann::json RunnerRequestToJson(const RunnerRequest& request) {
  nlohmann::json variants = nlohmann::json::array();
  for (const CheckVariant& variant : request.check_variants) {
    nlohmann::json scalars = nlohmann::json::object();
    for (const ScalarDecl& scalar : variant.scalars) scalars[scalar.name] = ScalarValueToJson(scalar);
    nlohmann::json shapes = nlohmann::json::object();
    for (const auto& [name, shape] : variant.shapes) shapes[name] = shape;
    variants.push_back({{"scalars", scalars}, {"shapes", shapes}});
  }
  nlohmann::json json = {{"schema", kRunnerRequestSchema},
                         {"role", EnumName(kRunnerRoleNames, request.role, "unknown")},
                         {"task", RunnerTaskToJson(request.task)},
                         {"candidate_library", request.candidate_library},
                         {"reference_library", request.reference_library},
                         {"seeds", request.seeds},
                         {"check_variants", variants},
                         {"check", request.check},
                         {"timing", nullptr},
                         {"energy", nullptr},
                         {"device", request.device},
                         {"timing_seed", request.timing_seed},
                         {"fresh_seed", request.fresh_seed},
                         {"output_fd", request.output_fd},
                         {"output_memory", request.output_channel == OutputChannelKind::kMemory},
                         {"output_pull", request.output_channel == OutputChannelKind::kPull}};
  if (request.timing) {
    const TimingRequest& timing = *request.timing;
    json["timing"] = {{"warmup_seconds", timing.warmup_seconds},
                      {"min_samples", timing.min_samples},
                      {"max_samples", timing.max_samples},
                      {"max_relative_stdev", timing.max_relative_stdev},
                      {"min_gpu_seconds", timing.min_gpu_seconds},
                      {"timeout_seconds", timing.timeout_seconds},
                      {"cold", timing.cold},
                      {"rotate_input_sets", timing.rotate_input_sets},
                      {"verified_samples", timing.verified_samples}};
  }
  if (request.energy) {
    json["energy"] = {{"window_seconds", request.energy->window_seconds},
                      {"idle_seconds", request.energy->idle_seconds}};
  }
  if (request.cpu_seconds) json["cpu_seconds"] = *request.cpu_seconds;
  return json;
}

}  // namespace kopt::runner

namespace kopt::runner {

std::string_view RunnerRoleName(RunnerRole role) {
  return EnumName(kRunnerRoleNames, role, "unknown");
}

std::string_view OutputChannelKindName(OutputChannelKind kind) {
  return EnumName(kOutputChannelKindNames, kind, "unknown");
}

uint64_t TimingSetSeed(uint64_t timing_seed, int64_t set) {
  // SplitMix64 finalizer over (base, set): distinct, well-mixed seeds per set.
  uint64_t z = timing_seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(set) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace kopt::runner
