// task.toml parsing and validation (docs/task-format.md); declared in task_spec.h.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "core/file_io.h"
#include "core/text.h"
#include "core/toml_document.h"
#include "harness/size_expression.h"
#include "harness/task_names.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

// At most this many [[variant]] tables: every candidate is checked on each one.
constexpr size_t kMaxVariants = 64;

using KeyList = std::vector<std::string_view>;

std::string JoinKeys(const KeyList& keys) {
  std::string joined;
  for (std::string_view key : keys) joined += (joined.empty() ? "" : " ") + std::string(key);
  return joined;
}

bool IsReservedWord(std::string_view word) {
  static const std::set<std::string_view> kReserved = {
      "alignas",   "alignof", "asm",       "auto",      "bool",     "break",    "case",     "catch",
      "char",      "class",   "const",     "constexpr", "continue", "decltype", "default",  "delete",
      "do",        "double",  "else",      "enum",      "explicit", "export",   "extern",   "false",
      "float",     "for",     "friend",    "goto",      "if",       "inline",   "int",      "long",
      "main",      "mutable", "namespace", "new",       "noexcept", "nullptr",  "operator", "private",
      "protected", "public",  "register",  "return",    "short",    "signed",   "sizeof",   "static",
      "struct",    "switch",  "template",  "this",      "throw",    "true",     "try",      "typedef",
      "typename",  "union",   "unsigned",  "using",     "virtual",  "void",     "volatile", "while",
      "stream",    "tensors", "scalars"};
  return kReserved.count(word) > 0;
}

// Reads one task.toml; `file_` prefixes every message with "file:line: ".
class TaskTomlReader {
 public:
  explicit TaskTomlReader(std::string_view file_name) : file_(file_name) {}

  Status Error(const toml::node& node, std::string_view key, const std::string& problem) const {
    return InvalidInput(fmt::format("{}:{}: {}: {}", file_, node.source().begin.line, key, problem));
  }

  Status CheckKeys(const toml::table& table, std::string_view context, const KeyList& allowed) const {
    for (const auto& [key, node] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      return Error(node, fmt::format("{}{}", context, key.str()),
                   fmt::format("unknown key{}; expected one of: {}", DidYouMean(key.str(), allowed),
                               JoinKeys(allowed)));
    }
    return Status::Ok();
  }

  // A required (or, with `optional`, possibly absent: "") string.
  Result<std::string> String(const toml::table& table, std::string_view key, std::string_view context,
                             bool optional = false) const {
    const toml::node* node = table.get(key);
    if (!node) {
      if (optional) return std::string();
      return Error(table, fmt::format("{}{}", context, key), "missing; this key is required");
    }
    if (auto value = node->value_exact<std::string>()) return *value;
    return Error(*node, fmt::format("{}{}", context, key), "must be a string");
  }

  // A number (integer or float) node.
  Result<double> Number(const toml::node& node, std::string_view key) const {
    if (auto integer = node.value_exact<int64_t>()) return static_cast<double>(*integer);
    if (auto real = node.value_exact<double>()) {
      if (std::isfinite(*real)) return *real;
      return Error(node, key, "must be a finite number");
    }
    return Error(node, key, "must be a number");
  }

  std::string_view file() const { return file_; }

 private:
  std::string file_;
};

// Line of a node, for later (resolution-time) errors.
int LineOf(const toml::node& node) {
  return static_cast<int>(node.source().begin.line);
}

struct ParsedTask {
  TaskSpec spec;
  int task_line = 1, flops_line = 1, min_bytes_line = 1;
  std::vector<int> tensor_lines;  // line of each tensor's shape
  std::vector<std::vector<std::pair<std::string, double>>> variant_overrides;
  std::vector<int> variant_lines;
};

Status ReadTaskTable(const TaskTomlReader& reader, const toml::table& root, ParsedTask& parsed) {
  const toml::node* node = root.get("task");
  if (!node || !node->is_table()) {
    return InvalidInput(fmt::format(
        "{}:1: [task]: missing; a task.toml needs a [task] table with name and entry", reader.file()));
  }
  const toml::table& table = *node->as_table();
  parsed.task_line = LineOf(table);
  KOPT_RETURN_IF_ERROR(
      reader.CheckKeys(table, "task.", {"name", "entry", "description", "flops", "min_bytes"}));
  TaskSpec& spec = parsed.spec;
  KOPT_ASSIGN_OR_RETURN(spec.name, reader.String(table, "name", "task."));
  bool name_ok = !spec.name.empty() && std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (!name_ok) {
    return reader.Error(*table.get("name"), "task.name",
                        fmt::format("\"{}\" is not a task name; expected letters, digits, _ - .", spec.name));
  }
  KOPT_ASSIGN_OR_RETURN(spec.entry, reader.String(table, "entry", "task."));
  if (!IsIdentifier(spec.entry) || IsReservedWord(spec.entry) || spec.entry.rfind("kopt_", 0) == 0) {
    return reader.Error(*table.get("entry"), "task.entry",
                        fmt::format("\"{}\" is not a usable entry point; expected a C identifier "
                                    "([A-Za-z_][A-Za-z0-9_]*), not a keyword, not starting with kopt_",
                                    spec.entry));
  }
  KOPT_ASSIGN_OR_RETURN(spec.description, reader.String(table, "description", "task.", true));
  for (std::string_view key : {"flops", "min_bytes"}) {
    const toml::node* value = table.get(key);
    if (!value) continue;
    std::string text;
    if (auto string = value->value_exact<std::string>()) {
      text = *string;
    } else if (value->is_number()) {
      KOPT_ASSIGN_OR_RETURN(double number, reader.Number(*value, fmt::format("task.{}", key)));
      text = fmt::format("{}", number);
    } else {
      return reader.Error(*value, fmt::format("task.{}", key),
                          "must be a number or a string expression such as \"2*M*N*K\"");
    }
    (key == "flops" ? spec.flops_expression : spec.min_bytes_expression) = text;
    (key == "flops" ? parsed.flops_line : parsed.min_bytes_line) = LineOf(*value);
  }
  return Status::Ok();
}

// Each element of the array of tables `key`, or an error when it is not one.
Result<std::vector<const toml::table*>> TablesOf(const TaskTomlReader& reader, const toml::table& root,
                                                 std::string_view key) {
  std::vector<const toml::table*> tables;
  const toml::node* node = root.get(key);
  if (!node) return tables;
  const toml::array* array = node->as_array();
  if (!array) return reader.Error(*node, key, fmt::format("must be an array of tables, written [[{}]]", key));
  for (const toml::node& element : *array) {
    if (!element.is_table()) {
      return reader.Error(element, key, fmt::format("must be an array of tables, written [[{}]]", key));
    }
    tables.push_back(element.as_table());
  }
  return tables;
}

Status CheckNewName(const TaskTomlReader& reader, const toml::table& table, std::string_view key,
                    const std::string& name, std::set<std::string>& names) {
  if (!IsIdentifier(name) || IsReservedWord(name)) {
    return reader.Error(*table.get("name"), key,
                        fmt::format("\"{}\" is not a usable name; expected a C identifier that is not a "
                                    "keyword (nor stream, tensors, scalars)",
                                    name));
  }
  if (!names.insert(name).second) {
    return reader.Error(
        *table.get("name"), key,
        fmt::format("\"{}\" is declared twice; tensor and scalar names must be unique", name));
  }
  return Status::Ok();
}

Status ReadScalarValue(const TaskTomlReader& reader, const toml::table& table, const std::string& context,
                       ScalarSpec& scalar) {
  const toml::node* value = table.get("value");
  if (!value) return reader.Error(table, context + "value", "missing; this key is required");
  if (!IsIntegerScalarType(scalar.type)) {
    KOPT_ASSIGN_OR_RETURN(scalar.real_value, reader.Number(*value, context + "value"));
    return Status::Ok();
  }
  auto integer = value->value_exact<int64_t>();
  if (!integer) {
    return reader.Error(*value, context + "value",
                        fmt::format("must be an integer for type {}", ScalarTypeName(scalar.type)));
  }
  if (scalar.type == ScalarType::kI32 &&
      (*integer < std::numeric_limits<int32_t>::min() || *integer > std::numeric_limits<int32_t>::max())) {
    return reader.Error(*value, context + "value",
                        fmt::format("{} does not fit in i32; use type = \"i64\"", *integer));
  }
  scalar.integer_value = *integer;
  return Status::Ok();
}

Status ReadScalars(const TaskTomlReader& reader, const toml::table& root, std::set<std::string>& names,
                   ParsedTask& parsed) {
  KOPT_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, TablesOf(reader, root, "scalar"));
  for (size_t index = 0; index < tables.size(); ++index) {
    const toml::table& table = *tables[index];
    std::string context = fmt::format("scalar[{}].", index + 1);
    KOPT_RETURN_IF_ERROR(reader.CheckKeys(table, context, {"name", "type", "value"}));
    ScalarSpec scalar;
    KOPT_ASSIGN_OR_RETURN(scalar.name, reader.String(table, "name", context));
    KOPT_RETURN_IF_ERROR(CheckNewName(reader, table, context + "name", scalar.name, names));
    KOPT_ASSIGN_OR_RETURN(std::string type, reader.String(table, "type", context));
    std::optional<ScalarType> parsed_type = ParseScalarType(type);
    if (!parsed_type) {
      return reader.Error(*table.get("type"), context + "type",
                          fmt::format("\"{}\" is not a scalar type{}; expected one of i32 i64 f32 f64", type,
                                      DidYouMean(type, {"i32", "i64", "f32", "f64"})));
    }
    scalar.type = *parsed_type;
    KOPT_RETURN_IF_ERROR(ReadScalarValue(reader, table, context, scalar));
    parsed.spec.scalars.push_back(std::move(scalar));
  }
  return Status::Ok();
}

Result<std::vector<ShapeDimension>> ReadShape(const TaskTomlReader& reader, const toml::table& table,
                                              const std::string& context, const TaskSpec& spec) {
  const toml::node* node = table.get("shape");
  if (!node) return reader.Error(table, context + "shape", "missing; this key is required");
  const toml::array* array = node->as_array();
  if (!array) return reader.Error(*node, context + "shape", "must be a list such as [1024, \"N\"]");
  std::vector<ShapeDimension> shape;
  for (const toml::node& element : *array) {
    ShapeDimension dimension;
    if (auto literal = element.value_exact<int64_t>()) {
      if (*literal <= 0) {
        return reader.Error(
            element, context + "shape",
            fmt::format("dimension {} is {}; dimensions must be positive", shape.size() + 1, *literal));
      }
      dimension.literal = *literal;
    } else if (auto name = element.value_exact<std::string>()) {
      const ScalarSpec* scalar = spec.FindScalar(*name);
      if (!scalar || !IsIntegerScalarType(scalar->type)) {
        KeyList integer_scalars;
        for (const ScalarSpec& candidate : spec.scalars) {
          if (IsIntegerScalarType(candidate.type)) integer_scalars.push_back(candidate.name);
        }
        return reader.Error(
            element, context + "shape",
            fmt::format("\"{}\" is not an integer scalar of the task{}; expected a positive "
                        "integer or one of: {}",
                        *name, DidYouMean(*name, integer_scalars), JoinKeys(integer_scalars)));
      }
      if (scalar->integer_value <= 0) {
        return reader.Error(element, context + "shape",
                            fmt::format("dimension {} is {} = {}; dimensions must be positive",
                                        shape.size() + 1, *name, scalar->integer_value));
      }
      dimension.scalar = *name;
    } else {
      return reader.Error(element, context + "shape",
                          "each dimension must be a positive integer or the name of an integer scalar");
    }
    shape.push_back(std::move(dimension));
  }
  return shape;
}

const KeyList& InitParameters(InitKind kind) {
  static const KeyList kNone = {"kind"};
  static const KeyList kNormal = {"kind", "mean", "stddev"};
  static const KeyList kRange = {"kind", "low", "high"};
  static const KeyList kHeavy = {"kind", "alpha", "scale"};
  switch (kind) {
    case InitKind::kNormal: return kNormal;
    case InitKind::kUniform:
    case InitKind::kIntRange: return kRange;
    case InitKind::kHeavyTailed: return kHeavy;
    default: return kNone;
  }
}

TensorInit DefaultInit(TensorRole role, DataType dtype) {
  TensorInit init;
  if (role == TensorRole::kOutput) return init;
  if (!IsIntegerDataType(dtype)) {
    init.kind = InitKind::kNormal;
    return init;
  }
  init.kind = InitKind::kIntRange;
  init.integer_low = 0;
  init.integer_high = dtype == DataType::kU8 ? 255 : 100;
  return init;
}

// Reads the parameters of `init.kind` from `table` (defaults in TensorInit:
// uniform [-1, 1), int_range [0, 100]).
Status ReadInitParameters(const TaskTomlReader& reader, const toml::table& table, const std::string& context,
                          TensorInit& init) {
  if (init.kind == InitKind::kIntRange) {
    const std::pair<std::string_view, int64_t*> bounds[] = {{"low", &init.integer_low},
                                                            {"high", &init.integer_high}};
    for (const auto& [key, target] : bounds) {
      const toml::node* node = table.get(key);
      if (!node) continue;
      if (!node->is_integer()) {
        return reader.Error(*node, context + std::string(key), "must be an integer for int_range");
      }
      *target = *node->value<int64_t>();
    }
    return Status::Ok();
  }
  const std::pair<std::string_view, double*> parameters[] = {{"mean", &init.mean},   {"stddev", &init.stddev},
                                                             {"low", &init.low},     {"high", &init.high},
                                                             {"alpha", &init.alpha}, {"scale", &init.scale}};
  for (const auto& [key, target] : parameters) {
    const toml::node* node = table.get(key);
    if (!node) continue;
    KOPT_ASSIGN_OR_RETURN(*target, reader.Number(*node, context + std::string(key)));
  }
  return Status::Ok();
}

Status ValidateInit(const TaskTomlReader& reader, const toml::node& node, const std::string& context,
                    const TensorInit& init, DataType dtype) {
  auto fail = [&](const std::string& problem) { return reader.Error(node, context, problem); };
  bool integer = IsIntegerDataType(dtype);
  switch (init.kind) {
    case InitKind::kNormal:
      if (!(init.stddev > 0)) return fail("normal needs stddev > 0");
      break;
    case InitKind::kUniform:
      if (!(init.high > init.low)) return fail("uniform needs high > low");
      break;
    case InitKind::kHeavyTailed:
      if (!(init.alpha > 0) || !(init.scale > 0)) return fail("heavy_tailed needs alpha > 0 and scale > 0");
      break;
    case InitKind::kIntRange:
      if (!(init.integer_high >= init.integer_low)) return fail("int_range needs high >= low");
      if (dtype == DataType::kU8 && (init.integer_low < 0 || init.integer_high > 255)) {
        return fail("int_range for u8 must stay within 0..255");
      }
      if (dtype == DataType::kI32 && (init.integer_low < INT32_MIN || init.integer_high > INT32_MAX)) {
        return fail("int_range for i32 must stay within the i32 range");
      }
      break;
    default: break;
  }
  bool real_kind = init.kind == InitKind::kNormal || init.kind == InitKind::kUniform ||
                   init.kind == InitKind::kHeavyTailed;
  if (integer && real_kind) {
    return fail(fmt::format("{} is for floating dtypes; a {} tensor takes int_range, zeros or ones",
                            InitKindName(init.kind), DataTypeName(dtype)));
  }
  return Status::Ok();
}

Result<TensorInit> ReadInit(const TaskTomlReader& reader, const toml::table& table,
                            const std::string& context, TensorRole role, DataType dtype) {
  const toml::node* node = table.get("init");
  if (!node) return DefaultInit(role, dtype);
  std::string key = context + "init";
  if (role == TensorRole::kOutput) {
    return reader.Error(*node, key,
                        "an output tensor takes no init (the harness poisons outputs); use role = \"inout\" "
                        "for a tensor that is read and written");
  }
  const toml::table* init_table = node->as_table();
  if (!init_table) return reader.Error(*node, key, "must be an inline table such as { kind = \"normal\" }");
  KOPT_ASSIGN_OR_RETURN(std::string kind_name, reader.String(*init_table, "kind", key + "."));
  static const KeyList kKinds = {"normal", "uniform", "heavy_tailed", "int_range", "zeros", "ones"};
  std::optional<InitKind> kind = ParseInitKind(kind_name);
  if (!kind || *kind == InitKind::kNone) {
    return reader.Error(*init_table->get("kind"), key + ".kind",
                        fmt::format("\"{}\" is not an initialiser{}; expected one of: {}", kind_name,
                                    DidYouMean(kind_name, kKinds), JoinKeys(kKinds)));
  }
  TensorInit init;
  init.kind = *kind;
  KOPT_RETURN_IF_ERROR(reader.CheckKeys(*init_table, key + ".", InitParameters(init.kind)));
  KOPT_RETURN_IF_ERROR(ReadInitParameters(reader, *init_table, key + ".", init));
  KOPT_RETURN_IF_ERROR(ValidateInit(reader, *node, key, init, dtype));
  return init;
}

Result<TensorSpec> ReadTensor(const TaskTomlReader& reader, const toml::table& table,
                              const std::string& context, const TaskSpec& spec) {
  KOPT_RETURN_IF_ERROR(reader.CheckKeys(table, context, {"name", "dtype", "shape", "role", "init"}));
  TensorSpec tensor;
  KOPT_ASSIGN_OR_RETURN(tensor.name, reader.String(table, "name", context));
  KOPT_ASSIGN_OR_RETURN(std::string dtype, reader.String(table, "dtype", context));
  static const KeyList kDtypes = {"f64", "f32", "f16", "bf16", "i64", "i32", "u8"};
  std::optional<DataType> parsed_dtype = ParseDataType(dtype);
  if (!parsed_dtype) {
    return reader.Error(*table.get("dtype"), context + "dtype",
                        fmt::format("\"{}\" is not a dtype{}; expected one of: {}", dtype,
                                    DidYouMean(dtype, kDtypes), JoinKeys(kDtypes)));
  }
  tensor.dtype = *parsed_dtype;
  KOPT_ASSIGN_OR_RETURN(std::string role, reader.String(table, "role", context));
  static const KeyList kRoles = {"input", "output", "inout"};
  std::optional<TensorRole> parsed_role = ParseTensorRole(role);
  if (!parsed_role) {
    return reader.Error(*table.get("role"), context + "role",
                        fmt::format("\"{}\" is not a role{}; expected one of: {}", role,
                                    DidYouMean(role, kRoles), JoinKeys(kRoles)));
  }
  tensor.role = *parsed_role;
  KOPT_ASSIGN_OR_RETURN(tensor.shape_expression, ReadShape(reader, table, context, spec));
  KOPT_ASSIGN_OR_RETURN(tensor.init, ReadInit(reader, table, context, tensor.role, tensor.dtype));
  return tensor;
}

Status ReadTensors(const TaskTomlReader& reader, const toml::table& root, std::set<std::string>& names,
                   ParsedTask& parsed) {
  KOPT_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, TablesOf(reader, root, "tensor"));
  if (tables.empty()) {
    return InvalidInput(
        fmt::format("{}:1: tensor: a task needs at least one [[tensor]] with role output or "
                    "inout",
                    reader.file()));
  }
  for (size_t index = 0; index < tables.size(); ++index) {
    std::string context = fmt::format("tensor[{}].", index + 1);
    KOPT_ASSIGN_OR_RETURN(TensorSpec tensor, ReadTensor(reader, *tables[index], context, parsed.spec));
    KOPT_RETURN_IF_ERROR(CheckNewName(reader, *tables[index], context + "name", tensor.name, names));
    parsed.tensor_lines.push_back(LineOf(*tables[index]->get("shape")));
    parsed.spec.tensors.push_back(std::move(tensor));
  }
  bool writes = std::any_of(parsed.spec.tensors.begin(), parsed.spec.tensors.end(),
                            [](const TensorSpec& tensor) { return tensor.role != TensorRole::kInput; });
  if (!writes) {
    return reader.Error(*tables[0], "tensor",
                        "no tensor has role output or inout; the kernel must write one");
  }
  return Status::Ok();
}

Status ReadTolerances(const TaskTomlReader& reader, const toml::table& root, TaskSpec& spec) {
  for (int index = 0; index < 7; ++index)
    spec.tolerances[index] = DefaultTolerance(static_cast<DataType>(index));
  const toml::node* node = root.get("tolerance");
  if (!node) return Status::Ok();
  const toml::table* table = node->as_table();
  if (!table) return reader.Error(*node, "tolerance", "must be a table [tolerance]");
  KOPT_RETURN_IF_ERROR(reader.CheckKeys(*table, "tolerance.", {"f64", "f32", "f16", "bf16"}));
  for (const auto& [key, value] : *table) {
    std::string context = fmt::format("tolerance.{}", key.str());
    const toml::table* entry = value.as_table();
    if (!entry)
      return reader.Error(value, context, "must be an inline table such as { rtol = 1e-4, atol = 1e-5 }");
    KOPT_RETURN_IF_ERROR(reader.CheckKeys(*entry, context + ".", {"rtol", "atol"}));
    Tolerance& tolerance = spec.tolerances[static_cast<int>(*ParseDataType(key.str()))];
    for (auto [name, target] : {std::pair{"rtol", &tolerance.rtol}, std::pair{"atol", &tolerance.atol}}) {
      const toml::node* number = entry->get(name);
      if (!number) continue;
      KOPT_ASSIGN_OR_RETURN(*target, reader.Number(*number, context + "." + name));
      if (*target < 0) return reader.Error(*number, context + "." + name, "must be >= 0");
    }
  }
  return Status::Ok();
}

Status ReadVariants(const TaskTomlReader& reader, const toml::table& root, ParsedTask& parsed) {
  KOPT_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, TablesOf(reader, root, "variant"));
  if (tables.size() > kMaxVariants) {
    return InvalidInput(
        fmt::format("{}:{}: {} [[variant]] tables; a task has at most {} (each one is checked on "
                    "every candidate)",
                    reader.file(), LineOf(*tables[kMaxVariants]), tables.size(), kMaxVariants));
  }
  KeyList scalar_names;
  for (const ScalarSpec& scalar : parsed.spec.scalars) scalar_names.push_back(scalar.name);
  for (size_t index = 0; index < tables.size(); ++index) {
    std::string context = fmt::format("variant[{}].", index + 1);
    KOPT_RETURN_IF_ERROR(reader.CheckKeys(*tables[index], context, scalar_names));
    std::vector<std::pair<std::string, double>> overrides;
    for (const auto& [key, value] : *tables[index]) {
      const ScalarSpec& scalar = *parsed.spec.FindScalar(key.str());
      if (IsIntegerScalarType(scalar.type) && !value.is_integer()) {
        return reader.Error(value, context + std::string(key.str()),
                            "must be an integer (the scalar is one)");
      }
      KOPT_ASSIGN_OR_RETURN(double number, reader.Number(value, context + std::string(key.str())));
      overrides.emplace_back(std::string(key.str()), number);
    }
    parsed.variant_overrides.push_back(std::move(overrides));
    parsed.variant_lines.push_back(LineOf(*tables[index]));
  }
  return Status::Ok();
}

Status ReadCheck(const TaskTomlReader& reader, const toml::table& root, TaskSpec& spec) {
  const toml::node* node = root.get("check");
  if (!node) return Status::Ok();
  const toml::table* table = node->as_table();
  if (!table) return reader.Error(*node, "check", "must be a table [check]");
  KOPT_RETURN_IF_ERROR(reader.CheckKeys(*table, "check.", {"seeds"}));
  if (const toml::node* seeds = table->get("seeds")) {
    auto value = seeds->value_exact<int64_t>();
    if (!value || *value < 1 || *value > 100) {
      return reader.Error(*seeds, "check.seeds", "must be an integer from 1 to 100");
    }
    spec.check_seeds = static_cast<int>(*value);
  }
  return Status::Ok();
}

Status ReadPolicy(const TaskTomlReader& reader, const toml::table& root, TaskSpec& spec) {
  const toml::node* node = root.get("policy");
  if (!node) return Status::Ok();
  const toml::table* table = node->as_table();
  if (!table) return reader.Error(*node, "policy", "must be a table [policy]");
  KOPT_RETURN_IF_ERROR(reader.CheckKeys(*table, "policy.", {"allow"}));
  const toml::node* allow = table->get("allow");
  if (!allow) return Status::Ok();
  const toml::array* list = allow->as_array();
  if (!list) return reader.Error(*allow, "policy.allow", "must be an array of construct ids");
  for (const toml::node& item : *list) {
    auto name = item.value_exact<std::string>();
    std::optional<PolicyConstruct> construct = name ? ParsePolicyConstruct(*name) : std::nullopt;
    if (!construct) {
      return reader.Error(
          item, "policy.allow",
          fmt::format("{} is not a policy construct; expected one of: {} (kopt rules --policy)",
                      name ? "\"" + *name + "\"" : std::string("a non-string"), PolicyConstructList()));
    }
    spec.policy_allow.insert(*construct);
  }
  return Status::Ok();
}

Status ResolveMainSize(const TaskTomlReader& reader, ParsedTask& parsed) {
  TaskSpec& spec = parsed.spec;
  int64_t total = 0;
  for (size_t index = 0; index < spec.tensors.size(); ++index) {
    TensorSpec& tensor = spec.tensors[index];
    Status status = ResolveTensorShape(tensor, spec.scalars);
    if (status.ok() && __builtin_add_overflow(total, tensor.bytes, &total)) {
      status = InvalidInput("the tensors' total size overflows 64 bits");
    }
    if (!status.ok()) {
      return InvalidInput(fmt::format("{}:{}: tensor[{}].shape: {}", reader.file(),
                                      parsed.tensor_lines[index], index + 1, status.message()));
    }
  }
  auto lookup = [&](std::string_view name) -> std::optional<double> {
    const ScalarSpec* scalar = spec.FindScalar(name);
    return scalar ? std::optional<double>(scalar->AsDouble()) : std::nullopt;
  };
  if (!spec.flops_expression.empty()) {
    auto flops = EvaluateSizeExpression(spec.flops_expression, lookup);
    if (!flops.ok()) {
      return InvalidInput(
          fmt::format("{}:{}: task.flops: {}", reader.file(), parsed.flops_line, flops.status().message()));
    }
    if (!std::isfinite(*flops) || *flops < 0) {
      return InvalidInput(fmt::format("{}:{}: task.flops: \"{}\" gives {}; expected a finite number >= 0",
                                      reader.file(), parsed.flops_line, spec.flops_expression, *flops));
    }
    spec.flops = *flops;
  }
  if (!spec.min_bytes_expression.empty()) {
    auto bytes = EvaluateSizeExpression(spec.min_bytes_expression, lookup);
    if (!bytes.ok()) {
      return InvalidInput(fmt::format("{}:{}: task.min_bytes: {}", reader.file(), parsed.min_bytes_line,
                                      bytes.status().message()));
    }
    if (!std::isfinite(*bytes) || *bytes < 0) {
      return InvalidInput(fmt::format("{}:{}: task.min_bytes: \"{}\" gives {}; expected a finite number >= 0",
                                      reader.file(), parsed.min_bytes_line, spec.min_bytes_expression,
                                      *bytes));
    }
    spec.min_bytes = *bytes;
  } else {
    for (const TensorSpec& tensor : spec.tensors) {
      spec.min_bytes += static_cast<double>(tensor.bytes) * (tensor.role == TensorRole::kInout ? 2 : 1);
    }
  }
  return Status::Ok();
}

Status ResolveVariants(const TaskTomlReader& reader, ParsedTask& parsed) {
  for (size_t index = 0; index < parsed.variant_overrides.size(); ++index) {
    std::string where =
        fmt::format("{}:{}: variant[{}]", reader.file(), parsed.variant_lines[index], index + 1);
    KOPT_ASSIGN_OR_RETURN(VariantSpec variant,
                          ResolveVariant(parsed.spec, parsed.variant_overrides[index], where));
    parsed.spec.variants.push_back(std::move(variant));
  }
  return Status::Ok();
}

}  // namespace

Result<TaskSpec> ParseTaskToml(std::string_view text, std::string_view file_name) {
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(text, file_name));
  TaskTomlReader reader(file_name);
  KOPT_RETURN_IF_ERROR(reader.CheckKeys(
      root, "", {"task", "tensor", "scalar", "tolerance", "variant", "check", "policy", "gemm"}));
  ParsedTask parsed;
  std::set<std::string> names;
  KOPT_RETURN_IF_ERROR(ReadTaskTable(reader, root, parsed));
  KOPT_RETURN_IF_ERROR(ReadScalars(reader, root, names, parsed));
  KOPT_RETURN_IF_ERROR(ReadTensors(reader, root, names, parsed));
  KOPT_RETURN_IF_ERROR(ReadTolerances(reader, root, parsed.spec));
  KOPT_RETURN_IF_ERROR(ReadVariants(reader, root, parsed));
  KOPT_RETURN_IF_ERROR(ReadCheck(reader, root, parsed.spec));
  KOPT_RETURN_IF_ERROR(ReadPolicy(reader, root, parsed.spec));
  KOPT_RETURN_IF_ERROR(ResolveMainSize(reader, parsed));
  KOPT_RETURN_IF_ERROR(ResolveVariants(reader, parsed));
  return std::move(parsed.spec);
}

Result<TaskSpec> LoadTask(const std::string& directory) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(directory, error);
  if (error || !std::filesystem::is_directory(absolute, error)) {
    return NotFound(fmt::format(
        "{}: not a task directory; expected a directory with task.toml and reference.cu", directory));
  }
  std::string task_file = (absolute / "task.toml").string();
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(task_file, size_t{1} << 20));
  KOPT_ASSIGN_OR_RETURN(TaskSpec spec, ParseTaskToml(text, task_file));
  spec.directory = absolute.lexically_normal().string();
  spec.reference_path = (absolute.lexically_normal() / "reference.cu").string();
  auto reference = ReadWholeFile(spec.reference_path, size_t{16} << 20);
  if (!reference.ok()) {
    return reference.status().WithContext(
        fmt::format("{}: the task's reference implementation (reference.cu, defining {}) is required",
                    spec.directory, spec.entry));
  }
  spec.reference_source = std::move(reference).value();
  return spec;
}

bool IsAllowedTensorName(std::string_view name) {
  return IsIdentifier(name) && !IsReservedWord(name);
}

}  // namespace kopt
