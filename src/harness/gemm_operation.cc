#include "harness/gemm_operation.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

#include "core/file_io.h"
#include "core/toml_document.h"

namespace kopt {
namespace {

bool SameDimension(const ShapeDimension& x, const ShapeDimension& y) {
  return x.scalar == y.scalar && (!x.scalar.empty() || x.literal == y.literal);
}

std::string DimensionText(const ShapeDimension& dimension) {
  return dimension.scalar.empty() ? std::to_string(dimension.literal) : dimension.scalar;
}

std::string ShapeText(const TensorSpec& tensor) {
  std::vector<std::string> parts;
  for (const ShapeDimension& dimension : tensor.shape_expression) parts.push_back(DimensionText(dimension));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

bool SupportedInput(DataType dtype) {
  return dtype == DataType::kF32 || dtype == DataType::kF16 || dtype == DataType::kBF16;
}

// A, B and D's shapes agree with the operation's layout; fills m, n, k,
// batch and the values. `why` gets what did not agree.
bool MatchShapes(const TensorSpec& a, const TensorSpec& b, const TensorSpec& d, GemmOperation& operation,
                 std::string& why) {
  size_t rank = a.shape_expression.size();
  if (rank != 2 && rank != 3) {
    why =
        fmt::format("{} has rank {} (a GEMM operand has rank 2, or 3 with a batch dimension)", a.name, rank);
    return false;
  }
  if (b.shape_expression.size() != rank || d.shape_expression.size() != rank) {
    why = fmt::format("{} {}, {} {} and {} {} do not have one rank", a.name, ShapeText(a), b.name,
                      ShapeText(b), d.name, ShapeText(d));
    return false;
  }
  size_t base = rank - 2;
  const ShapeDimension& a0 = a.shape_expression[base];
  const ShapeDimension& a1 = a.shape_expression[base + 1];
  const ShapeDimension& b0 = b.shape_expression[base];
  const ShapeDimension& b1 = b.shape_expression[base + 1];
  operation.m = operation.transpose_a ? a1 : a0;
  operation.k = operation.transpose_a ? a0 : a1;
  const ShapeDimension& b_k = operation.transpose_b ? b1 : b0;
  operation.n = operation.transpose_b ? b0 : b1;
  auto fail = [&](std::string text) {
    why = fmt::format("{}: A {} {}, B {} {}, D {} {}{}{}", text, a.name, ShapeText(a), b.name, ShapeText(b),
                      d.name, ShapeText(d), operation.transpose_a ? ", transpose_a" : "",
                      operation.transpose_b ? ", transpose_b" : "");
    return false;
  };
  if (!SameDimension(operation.k, b_k)) return fail("the inner dimensions differ");
  if (!SameDimension(d.shape_expression[base], operation.m) ||
      !SameDimension(d.shape_expression[base + 1], operation.n)) {
    return fail("D is not [M, N]");
  }
  operation.batch.reset();
  operation.batch_value = 1;
  if (rank == 3) {
    if (!SameDimension(a.shape_expression[0], b.shape_expression[0]) ||
        !SameDimension(a.shape_expression[0], d.shape_expression[0])) {
      return fail("the batch dimensions differ");
    }
    operation.batch = a.shape_expression[0];
    operation.batch_value = a.shape[0];
  }
  operation.m_value = operation.transpose_a ? a.shape[base + 1] : a.shape[base];
  operation.k_value = operation.transpose_a ? a.shape[base] : a.shape[base + 1];
  operation.n_value = operation.transpose_b ? b.shape[base] : b.shape[base + 1];
  return true;
}

Status CheckTypes(const TensorSpec& a, const TensorSpec& b, const TensorSpec& d, GemmOperation& operation,
                  std::string& why) {
  if (!SupportedInput(a.dtype) || a.dtype != b.dtype) {
    why = fmt::format("A and B must both be f32, f16 or bf16 ({} is {}, {} is {})", a.name,
                      DataTypeName(a.dtype), b.name, DataTypeName(b.dtype));
    return InvalidInput(why);
  }
  if (!SupportedInput(d.dtype)) {
    why = fmt::format("D must be f32, f16 or bf16 ({} is {})", d.name, DataTypeName(d.dtype));
    return InvalidInput(why);
  }
  operation.input_type = a.dtype;
  operation.output_type = d.dtype;
  return Status::Ok();
}

// Detection from the tensors alone (the header's rule 2).
std::optional<GemmOperation> Detect(const TaskSpec& task) {
  std::vector<const TensorSpec*> inputs;
  std::vector<const TensorSpec*> outputs;
  for (const TensorSpec& tensor : task.tensors) {
    if (tensor.role == TensorRole::kInput) {
      inputs.push_back(&tensor);
    } else if (tensor.role == TensorRole::kOutput) {
      outputs.push_back(&tensor);
    } else {
      return std::nullopt;
    }
  }
  if (inputs.size() != 2 || outputs.size() != 1) return std::nullopt;
  GemmOperation operation;
  operation.a = inputs[0]->name;
  operation.b = inputs[1]->name;
  operation.d = outputs[0]->name;
  std::string why;
  if (!CheckTypes(*inputs[0], *inputs[1], *outputs[0], operation, why).ok()) return std::nullopt;
  // Every layout of the two operands; exactly one may fit, with three distinct dimensions.
  std::optional<GemmOperation> found;
  for (bool transpose_a : {false, true}) {
    for (bool transpose_b : {false, true}) {
      GemmOperation candidate = operation;
      candidate.transpose_a = transpose_a;
      candidate.transpose_b = transpose_b;
      if (!MatchShapes(*inputs[0], *inputs[1], *outputs[0], candidate, why)) continue;
      std::set<std::string> written = {DimensionText(candidate.m), DimensionText(candidate.n),
                                       DimensionText(candidate.k)};
      if (written.size() != 3 || found) return std::nullopt;  // ambiguous: declare it
      found = candidate;
    }
  }
  return found;
}

Status GemmKeyError(std::string_view file, const toml::node& node, std::string_view key, std::string text) {
  return InvalidInput(fmt::format("{}:{}: [gemm] {}: {}", file, TomlLine(node), key, text));
}

Status CheckGemmKeys(const toml::table& table, std::string_view file) {
  static const std::set<std::string, std::less<>> kKeys = {
      "a", "b", "d", "bias", "transpose_a", "transpose_b", "activation", "alpha", "bias_scale", "post_scale"};
  for (const auto& [key, node] : table) {
    if (!kKeys.contains(key.str())) {
      return GemmKeyError(file, node, key.str(),
                          "unknown key; expected a, b, d, bias, transpose_a, transpose_b, activation, alpha, "
                          "bias_scale or post_scale");
    }
  }
  return Status::Ok();
}

// The tensor `key` names (its name into `name`), of `role`; null when absent and not `required`.
Result<const TensorSpec*> DeclaredTensor(const TaskSpec& task, const toml::table& table,
                                         std::string_view file, std::string_view key, TensorRole role,
                                         bool required, std::string& name) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (!required) return static_cast<const TensorSpec*>(nullptr);
    return InvalidInput(fmt::format("{}: [gemm]: missing key \"{}\" (a tensor name)", file, key));
  }
  std::optional<std::string> value = node->value<std::string>();
  if (!value) return GemmKeyError(file, *node, key, "must be a string (a tensor name)");
  const TensorSpec* found = task.FindTensor(*value);
  if (found == nullptr)
    return GemmKeyError(file, *node, key, fmt::format("\"{}\" is not a tensor of the task", *value));
  if (found->role != role) {
    return GemmKeyError(
        file, *node, key,
        fmt::format("\"{}\" must be an {}", *value, role == TensorRole::kInput ? "input" : "output"));
  }
  name = *value;
  return found;
}

// transpose_a / transpose_b, alpha / bias_scale / post_scale and activation, where given.
Status ReadGemmSettings(const toml::table& table, std::string_view file, GemmOperation& operation) {
  for (std::string_view key : {"transpose_a", "transpose_b"}) {
    const toml::node* node = table.get(key);
    if (node == nullptr) continue;
    std::optional<bool> value = node->value<bool>();
    if (!value) return GemmKeyError(file, *node, key, "must be true or false");
    (key == "transpose_a" ? operation.transpose_a : operation.transpose_b) = *value;
  }
  for (std::string_view key : {"alpha", "bias_scale", "post_scale"}) {
    const toml::node* node = table.get(key);
    if (node == nullptr) continue;
    std::optional<double> value = node->value<double>();
    if (!value || !std::isfinite(*value) || *value == 0)
      return GemmKeyError(file, *node, key, "must be a non-zero number");
    (key == "alpha"        ? operation.alpha
     : key == "bias_scale" ? operation.bias_scale
                           : operation.post_scale) = *value;
  }
  if (const toml::node* node = table.get("activation")) {
    std::optional<std::string> value = node->value<std::string>();
    bool known = false;
    for (GemmActivation activation : {GemmActivation::kNone, GemmActivation::kRelu, GemmActivation::kGelu}) {
      if (value && *value == GemmActivationName(activation)) {
        operation.activation = activation;
        known = true;
      }
    }
    if (!known) return GemmKeyError(file, *node, "activation", "must be \"none\", \"relu\" or \"gelu\"");
  }
  return Status::Ok();
}

// The bias holds N elements of f32 or D's type (its type into `operation`); the post scale folds.
Status CheckEpilogue(const TensorSpec* bias, const TensorSpec& d, std::string_view file,
                     GemmOperation& operation) {
  if (bias != nullptr) {
    if (bias->elements != operation.n_value || bias->shape_expression.empty() ||
        !SameDimension(bias->shape_expression.back(), operation.n)) {
      return InvalidInput(
          fmt::format("{}: [gemm] bias: \"{}\" {} must hold N = {} elements (one per column of D)", file,
                      bias->name, ShapeText(*bias), DimensionText(operation.n)));
    }
    if (bias->dtype != DataType::kF32 && bias->dtype != d.dtype) {
      return InvalidInput(fmt::format("{}: [gemm] bias: \"{}\" is {}; expected f32 or D's type {}", file,
                                      bias->name, DataTypeName(bias->dtype), DataTypeName(d.dtype)));
    }
    operation.bias_type = bias->dtype;
  }
  if (operation.post_scale != 1.0 && operation.activation == GemmActivation::kGelu) {
    return InvalidInput(fmt::format(
        "{}: [gemm] post_scale: a scale after gelu is not supported (only after none or relu, where it "
        "folds into alpha and the bias)",
        file));
  }
  if (operation.post_scale < 0 && operation.activation == GemmActivation::kRelu) {
    return InvalidInput(
        fmt::format("{}: [gemm] post_scale: a negative scale after relu does not fold into alpha", file));
  }
  return Status::Ok();
}

Result<GemmOperation> Declared(const TaskSpec& task, const toml::table& table, std::string_view file) {
  KOPT_RETURN_IF_ERROR(CheckGemmKeys(table, file));
  GemmOperation operation;
  operation.declared = true;
  KOPT_ASSIGN_OR_RETURN(const TensorSpec* a,
                        DeclaredTensor(task, table, file, "a", TensorRole::kInput, true, operation.a));
  KOPT_ASSIGN_OR_RETURN(const TensorSpec* b,
                        DeclaredTensor(task, table, file, "b", TensorRole::kInput, true, operation.b));
  KOPT_ASSIGN_OR_RETURN(const TensorSpec* d,
                        DeclaredTensor(task, table, file, "d", TensorRole::kOutput, true, operation.d));
  KOPT_ASSIGN_OR_RETURN(const TensorSpec* bias,
                        DeclaredTensor(task, table, file, "bias", TensorRole::kInput, false, operation.bias));
  KOPT_RETURN_IF_ERROR(ReadGemmSettings(table, file, operation));
  std::string why;
  if (Status types = CheckTypes(*a, *b, *d, operation, why); !types.ok()) {
    return InvalidInput(fmt::format("{}: [gemm]: {}", file, why));
  }
  if (!MatchShapes(*a, *b, *d, operation, why)) return InvalidInput(fmt::format("{}: [gemm]: {}", file, why));
  KOPT_RETURN_IF_ERROR(CheckEpilogue(bias, *d, file, operation));
  return operation;
}

}  // namespace

std::string_view GemmActivationName(GemmActivation activation) {
  switch (activation) {
    case GemmActivation::kNone: return "none";
    case GemmActivation::kRelu: return "relu";
    case GemmActivation::kGelu: return "gelu";
  }
  return "none";
}

std::string GemmOperation::Describe() const {
  std::string formula = fmt::format("{} = ", d);
  std::string product = fmt::format("{}{}·{}{}", a, transpose_a ? "ᵀ" : "", b, transpose_b ? "ᵀ" : "");
  if (alpha != 1.0) product = fmt::format("{:g}·{}", alpha, product);
  if (!bias.empty())
    product += bias_scale != 1.0 ? fmt::format(" + {:g}·{}", bias_scale, bias) : " + " + bias;
  if (activation != GemmActivation::kNone)
    product = fmt::format("{}({})", GemmActivationName(activation), product);
  if (post_scale != 1.0) product = fmt::format("{:g}·{}", post_scale, product);
  formula += product;
  std::string size = fmt::format("{}x{}x{}", m_value, n_value, k_value);
  if (batch) size = fmt::format("{} x {}", batch_value, size);
  return fmt::format("{}{} {}GEMM {} ({}), {}", DataTypeName(input_type),
                     output_type != input_type ? fmt::format("→{}", DataTypeName(output_type)) : "",
                     batch ? "batched " : "", size, formula,
                     declared ? "declared in task.toml [gemm]" : "detected from the shapes");
}

Result<std::optional<GemmOperation>> RecognizeGemm(const TaskSpec& task, std::string_view task_toml,
                                                   std::string_view file_name) {
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(task_toml, file_name));
  if (const toml::node* node = root.get("gemm")) {
    const toml::table* table = node->as_table();
    if (table == nullptr) {
      return InvalidInput(fmt::format("{}:{}: gemm: must be a table [gemm]", file_name, TomlLine(*node)));
    }
    KOPT_ASSIGN_OR_RETURN(GemmOperation operation, Declared(task, *table, file_name));
    return std::optional<GemmOperation>(std::move(operation));
  }
  return Detect(task);
}

Result<std::optional<GemmOperation>> RecognizeGemmTask(const TaskSpec& task) {
  std::string path = (std::filesystem::path(task.directory) / "task.toml").string();
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return RecognizeGemm(task, text, path);
}

}  // namespace kopt
