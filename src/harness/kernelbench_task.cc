#include "harness/kernelbench_task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/file_io.h"
#include "core/text.h"
#include "harness/kernelbench_resources.h"
#include "harness/task_names.h"
#include "harness/task_spec.h"

namespace kopt {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kProbeSchema = "kopt.kernelbench.probe/1";
constexpr std::string_view kTaskSchema = "kopt.kernelbench.task/1";

// A name the task format accepts, unique among `taken`.
std::string SafeName(std::string raw, std::set<std::string>& taken) {
  for (char& c : raw) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (raw.empty() || std::isdigit(static_cast<unsigned char>(raw[0])) || raw.rfind("kopt_", 0) == 0) {
    raw = "arg_" + raw;
  }
  if (!IsAllowedTensorName(raw)) raw += "_";
  std::string name = raw;
  for (int suffix = 2; taken.count(name) > 0; ++suffix) name = fmt::format("{}_{}", raw, suffix);
  taken.insert(name);
  return name;
}

Result<std::vector<int64_t>> ShapeOf(const nlohmann::json& value, const std::string& where) {
  std::vector<int64_t> shape;
  if (!value.is_array()) return InvalidInput(where + ".shape: expected a list of integers");
  for (const auto& dim : value) {
    if (!dim.is_number_integer() || dim.get<int64_t>() <= 0) {
      return InvalidInput(fmt::format(
          "{}.shape: {} is not a positive dimension (kopt tasks have no empty tensors)", where, dim.dump()));
    }
    shape.push_back(dim.get<int64_t>());
  }
  return shape;
}

Result<std::string> DtypeOf(const nlohmann::json& value, const std::string& where) {
  static const std::set<std::string> kDtypes = {"f64", "f32", "f16", "bf16", "i64", "i32", "u8"};
  if (!value.is_string() || kDtypes.count(value.get<std::string>()) == 0) {
    return InvalidInput(where + ".dtype: expected one of f64 f32 f16 bf16 i64 i32 u8");
  }
  return value.get<std::string>();
}

// "bool" when the probe marked a tensor as PyTorch bool carried as u8; "" otherwise.
Result<std::string> TorchDtypeOf(const nlohmann::json& value, const std::string& dtype,
                                 const std::string& where) {
  if (!value.contains("torch_dtype")) return std::string();
  if (value["torch_dtype"] != "bool" || dtype != "u8") {
    return InvalidInput(where + ".torch_dtype: expected \"bool\" on a u8 tensor");
  }
  return std::string("bool");
}

bool IsFloating(const std::string& dtype) {
  return dtype == "f64" || dtype == "f32" || dtype == "f16" || dtype == "bf16";
}

std::string Describe(const nlohmann::json& init) {
  std::string kind = init.value("kind", "?");
  if (kind == "uniform")
    return fmt::format("uniform({}, {})", init.value("low", 0.0), init.value("high", 1.0));
  if (kind == "normal")
    return fmt::format("normal({}, {})", init.value("mean", 0.0), init.value("stddev", 1.0));
  return kind;
}

double NumberField(const nlohmann::json& object, const char* key, double fallback) {
  auto found = object.find(key);
  return found != object.end() && found->is_number() && std::isfinite(found->get<double>())
             ? found->get<double>()
             : fallback;
}

// The probe's description of a distribution as a kopt init object with every
// parameter present and in range; null when it is none kopt knows.
nlohmann::json CanonicalInit(const nlohmann::json& given) {
  if (!given.is_object() || !given.contains("kind") || !given["kind"].is_string()) return nullptr;
  std::string kind = given["kind"].get<std::string>();
  if (kind == "uniform") {
    double low = NumberField(given, "low", 0.0), high = NumberField(given, "high", 1.0);
    return high > low ? nlohmann::json{{"kind", kind}, {"low", low}, {"high", high}}
                      : nlohmann::json(nullptr);
  }
  if (kind == "normal") {
    double stddev = NumberField(given, "stddev", 1.0);
    return stddev > 0
               ? nlohmann::json{{"kind", kind}, {"mean", NumberField(given, "mean", 0.0)}, {"stddev", stddev}}
               : nlohmann::json(nullptr);
  }
  if (kind == "int_range") {
    double low = std::floor(NumberField(given, "low", 0.0)),
           high = std::floor(NumberField(given, "high", 100.0));
    if (high < low || std::fabs(low) > 1e15 || std::fabs(high) > 1e15) return nullptr;
    return {{"kind", kind}, {"low", static_cast<int64_t>(low)}, {"high", static_cast<int64_t>(high)}};
  }
  if (kind == "zeros" || kind == "ones") return {{"kind", kind}};
  return nullptr;
}

// The kopt init of an input tensor, and a note when it is not the problem's.
nlohmann::json InitFor(const KernelBenchArgument& argument, const nlohmann::json& given,
                       const KernelBenchImportOptions& options, std::string& note) {
  nlohmann::json init = CanonicalInit(given);
  if (init.is_null()) init = {{"kind", "normal"}, {"mean", 0.0}, {"stddev", 1.0}};
  std::string kind = init["kind"].get<std::string>();
  if (!IsFloating(argument.dtype)) {
    if (kind == "int_range" && argument.dtype == "u8" &&
        (init["low"].get<int64_t>() < 0 || init["high"].get<int64_t>() > 255)) {
      kind = "";
    }
    if (kind != "int_range" && kind != "zeros" && kind != "ones") {
      note = "an integer tensor without integer values in the problem; kopt draws int_range(0, 100)";
      return {{"kind", "int_range"}, {"low", 0}, {"high", 100}};
    }
    return init;
  }
  if (options.inputs != "exercise") return init;
  if (argument.source == "input" && (kind == "uniform" || kind == "normal")) {
    note = fmt::format("the problem draws {}; kopt draws Student-t(3): negative values and outliers",
                       Describe(init));
    return {{"kind", "heavy_tailed"}, {"alpha", 3.0}, {"scale", 1.0}};
  }
  if (argument.source == "parameter" && kind == "ones") {
    note = "PyTorch initialises it to ones; kopt draws uniform(0.5, 1.5) so that it matters";
    return {{"kind", "uniform"}, {"low", 0.5}, {"high", 1.5}};
  }
  if (argument.source == "parameter" && kind == "zeros") {
    note = "PyTorch initialises it to zeros; kopt draws uniform(-0.5, 0.5) so that it matters";
    return {{"kind", "uniform"}, {"low", -0.5}, {"high", 0.5}};
  }
  return init;
}

std::string TomlNumber(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::string TomlInit(const nlohmann::json& init) {
  std::string kind = init.value("kind", "");
  if (kind == "uniform") {
    return fmt::format("{{ kind = \"uniform\", low = {}, high = {} }}", TomlNumber(init.value("low", 0.0)),
                       TomlNumber(init.value("high", 1.0)));
  }
  if (kind == "normal") {
    return fmt::format("{{ kind = \"normal\", mean = {}, stddev = {} }}", TomlNumber(init.value("mean", 0.0)),
                       TomlNumber(init.value("stddev", 1.0)));
  }
  if (kind == "heavy_tailed") {
    return fmt::format("{{ kind = \"heavy_tailed\", alpha = {}, scale = {} }}",
                       TomlNumber(init.value("alpha", 3.0)), TomlNumber(init.value("scale", 1.0)));
  }
  if (kind == "int_range") {
    return fmt::format("{{ kind = \"int_range\", low = {}, high = {} }}", init.value("low", int64_t{0}),
                       init.value("high", int64_t{100}));
  }
  return fmt::format("{{ kind = \"{}\" }}", kind);
}

std::string TomlString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// The [gemm] table of the probe's "gemm" record (a matrix product of two
// arguments with its epilogue, kernelbench_probe.py "GEMM recognition"), the
// operands named as the task names them; "" when a reference is not one of
// the arguments or a field is malformed (then the task is simply not declared
// a GEMM).
std::string GemmTable(const nlohmann::json& gemm, const std::vector<KernelBenchArgument>& arguments) {
  if (!gemm.is_object()) return "";
  auto name_of = [&](const nlohmann::json& ref) -> std::string {
    if (!ref.is_object()) return "";
    for (const KernelBenchArgument& argument : arguments) {
      if (ref.contains("input") && ref["input"].is_number_integer() && argument.source == "input" &&
          argument.position == ref["input"].get<int>() && argument.role == "input") {
        return argument.name;
      }
      if (ref.contains("parameter") && ref["parameter"].is_string() && argument.source == "parameter" &&
          argument.parameter == ref["parameter"].get<std::string>()) {
        return argument.name;
      }
    }
    return "";
  };
  std::string a = name_of(gemm.value("a", nlohmann::json()));
  std::string b = name_of(gemm.value("b", nlohmann::json()));
  if (a.empty() || b.empty()) return "";
  std::string table = fmt::format(
      "[gemm]   # the forward pass as the probe followed it (docs/tuning.md \"GEMM tasks\")\n"
      "a = \"{}\"\nb = \"{}\"\nd = \"out\"\n",
      a, b);
  for (const char* key : {"transpose_a", "transpose_b"}) {
    if (gemm.contains(key) && gemm[key].is_boolean() && gemm[key].get<bool>()) {
      table += fmt::format("{} = true\n", key);
    }
  }
  if (gemm.contains("bias") && !gemm["bias"].is_null()) {
    std::string bias = name_of(gemm["bias"]);
    if (bias.empty()) return "";
    table += fmt::format("bias = \"{}\"\n", bias);
  }
  std::string activation = gemm.contains("activation") && gemm["activation"].is_string()
                               ? gemm["activation"].get<std::string>()
                               : "";
  if (activation != "none" && activation != "relu" && activation != "gelu") return "";
  if (activation != "none") table += fmt::format("activation = \"{}\"\n", activation);
  double post_scale =
      gemm.contains("post_scale") && gemm["post_scale"].is_number() ? gemm["post_scale"].get<double>() : 1.0;
  if (post_scale != 1.0 && (activation == "gelu" || post_scale < 0)) return "";  // GemmOperation's rule
  for (const char* key : {"alpha", "bias_scale", "post_scale"}) {
    if (!gemm.contains(key) || !gemm[key].is_number()) continue;
    double value = gemm[key].get<double>();
    if (!std::isfinite(value) || value == 0) return "";
    if (value != 1.0) table += fmt::format("{} = {}\n", key, TomlNumber(value));
  }
  return table + "\n";
}

std::string TaskToml(const KernelBenchProblem& problem, const KernelBenchImportOptions& options) {
  std::string toml = fmt::format(
      "# Imported by `kopt task import-kernelbench` from {} (docs/kernelbench.md).\n"
      "# The reference is the problem's PyTorch Model (reference.cu -> kopt_torch_reference.py).\n"
      "# Inputs: {}; tolerances: {}.\n\n"
      "[task]\nname = {}\nentry = \"model_forward\"\ndescription = {}\n\n",
      problem.path,
      options.inputs == "exercise" ? "kopt's exercising distributions (--inputs exercise)"
                                   : "the problem's own distributions (--inputs kernelbench)",
      options.tolerance == "kernelbench" ? "KernelBench's (--tolerance kernelbench)"
      : options.tolerance == "verified"  ? "KernelBench-Verified's (--tolerance verified)"
                                         : "kopt's (--tolerance kopt)",
      TomlString(KernelBenchTaskName(problem)),
      TomlString(fmt::format("KernelBench {}{} (PyTorch reference)",
                             problem.level > 0 ? fmt::format("level {} ", problem.level) : "",
                             problem.stem)));
  if (problem.matmul_flops > 0) {
    // Before the blank line that ends [task].
    toml.insert(toml.size() - 1, fmt::format("flops = {:.0f}   # the matrix products' FLOPs (a lower bound: "
                                             "elementwise work is not counted)\n",
                                             problem.matmul_flops));
  }
  for (const KernelBenchArgument& argument : problem.arguments) {
    if (argument.role != "scalar") continue;
    bool integer = argument.dtype == "i64";
    toml += fmt::format(
        "[[scalar]]\nname = \"{}\"\ntype = \"{}\"\nvalue = {}\n\n", argument.name, argument.dtype,
        integer ? std::to_string(argument.value.get<int64_t>()) : TomlNumber(argument.value.get<double>()));
  }
  for (const KernelBenchArgument& argument : problem.arguments) {
    if (argument.role == "scalar") continue;
    if (!argument.note.empty()) toml += "# " + argument.note + "\n";
    if (argument.source == "parameter") toml += "# the model's parameter " + argument.parameter + "\n";
    toml += fmt::format("[[tensor]]\nname = \"{}\"\ndtype = \"{}\"\nshape = {}\nrole = \"{}\"\n",
                        argument.name, argument.dtype, ShapeText(argument.shape), argument.role);
    if (argument.role == "input") toml += "init = " + TomlInit(argument.init) + "\n";
    toml += "\n";
  }
  if (options.tolerance == "kernelbench") {
    toml +=
        "[tolerance]   # KernelBench eval.py: allclose(atol = rtol = 1e-4) for fp32, 1e-2 for fp16/bf16\n"
        "f32 = { rtol = 1e-4, atol = 1e-4 }\nf16 = { rtol = 1e-2, atol = 1e-2 }\n"
        "bf16 = { rtol = 1e-2, atol = 1e-2 }\n\n";
  } else if (options.tolerance == "verified") {
    toml +=
        "[tolerance]   # KernelBench-Verified: 1e-3 for fp32, 1e-2 for fp16/bf16\n"
        "f32 = { rtol = 1e-3, atol = 1e-3 }\nf16 = { rtol = 1e-2, atol = 1e-2 }\n"
        "bf16 = { rtol = 1e-2, atol = 1e-2 }\n\n";
  }
  toml += problem.gemm_table;
  toml += "[check]\nseeds = 5     # KernelBench's num_correct_trials; kopt draws fresh seeds every run\n";
  return toml;
}

std::string ReferenceSource(const TaskSpec& task, const std::vector<KernelBenchArgument>& arguments) {
  std::string args;
  for (const KernelBenchArgument& argument : arguments) {
    std::string kind = argument.role == "output"   ? "kOutput"
                       : argument.role == "scalar" ? "kScalar"
                                                   : "kInput";
    if (argument.role == "scalar") {
      args +=
          fmt::format("      {{&{0}, sizeof({0}), kopt_torch_bridge::Kind::{1}}},\n", argument.name, kind);
    } else {
      const TensorSpec* tensor = task.FindTensor(argument.name);
      args += fmt::format("      {{{}, {}ull, kopt_torch_bridge::Kind::{}}},\n", argument.name,
                          tensor ? tensor->bytes : 0, kind);
    }
  }
  std::string prototype = EntryPrototype(task);
  prototype.pop_back();  // the ';'
  return fmt::format(
      "// The reference of {}: KernelBench's PyTorch Model (problem.py), run by\n"
      "// PyTorch in a child of the reference process. Generated by `kopt task\n"
      "// import-kernelbench` (docs/kernelbench.md); the bridge below is\n"
      "// src/harness/kernelbench/kopt_torch_bridge.cuh.\n\n"
      "{}\n"
      "{} {{\n"
      "  static kopt_torch_bridge::Bridge bridge(__FILE__);\n"
      "  const kopt_torch_bridge::Arg args[] = {{\n{}  }};\n"
      "  bridge.Call(args, {}, stream);\n"
      "}}\n",
      task.name, KernelBenchBridgeHeader(), prototype, args, arguments.size());
}

nlohmann::json ArgumentsJson(const std::vector<KernelBenchArgument>& arguments) {
  nlohmann::json list = nlohmann::json::array();
  for (const KernelBenchArgument& a : arguments) {
    nlohmann::json item = {{"name", a.name},   {"role", a.role},   {"source", a.source},
                           {"dtype", a.dtype}, {"shape", a.shape}, {"position", a.position}};
    if (!a.parameter.empty()) item["parameter"] = a.parameter;
    if (!a.init.is_null()) item["init"] = a.init;
    if (!a.value.is_null()) item["value"] = a.value;
    if (!a.note.empty()) item["note"] = a.note;
    if (!a.torch_dtype.empty()) item["torch_dtype"] = a.torch_dtype;
    list.push_back(std::move(item));
  }
  return list;
}

}  // namespace

std::string KernelBenchTaskName(const KernelBenchProblem& problem) {
  std::string name =
      problem.level > 0 ? fmt::format("kb_level{}_{}", problem.level, problem.stem) : "kb_" + problem.stem;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return name;
}

namespace {

Status ProbeError(const std::string& path, const std::string& what) {
  return InvalidInput(fmt::format("{}: {}", path, what));
}

// get_inputs()[index] (described by the probe) as a tensor or a scalar argument named `name`.
// `input` is a copy: its missing keys read as null.
Result<KernelBenchArgument> ProbeInput(nlohmann::json input, size_t index, std::string name,
                                       const std::string& path, const KernelBenchImportOptions& options) {
  std::string where = fmt::format("get_inputs()[{}]", index);
  KernelBenchArgument argument;
  argument.name = std::move(name);
  argument.position = static_cast<int>(index);
  argument.source = "input";
  std::string kind = input.value("kind", "");
  if (kind == "tensor") {
    argument.role = "input";
    KOPT_ASSIGN_OR_RETURN(argument.shape, ShapeOf(input["shape"], where));
    KOPT_ASSIGN_OR_RETURN(argument.dtype, DtypeOf(input["dtype"], where));
    argument.init = InitFor(argument, input["init"], options, argument.note);
    if (input.contains("init_note") && argument.note.empty())
      argument.note = input["init_note"].get<std::string>();
    KOPT_ASSIGN_OR_RETURN(argument.torch_dtype, TorchDtypeOf(input, argument.dtype, where));
    return argument;
  }
  if (kind == "float" || kind == "int" || kind == "bool") {
    const nlohmann::json& value = input["value"];
    bool fits = kind == "float" ? value.is_number()
                : kind == "int" ? value.is_number_integer()
                                : value.is_boolean();
    if (!fits) return ProbeError(path, fmt::format("{}: a {} without a {} value", where, kind, kind));
    argument.role = "scalar";
    argument.dtype = kind == "float" ? "f64" : "i64";
    argument.value = kind == "bool" ? nlohmann::json(input["value"].get<bool>() ? 1 : 0) : input["value"];
    return argument;
  }
  return ProbeError(path, fmt::format("{} is a {}: a kopt task takes tensors and numbers", where,
                                      kind.empty() ? "?" : kind));
}

// get_inputs(): tensors and scalars, named after forward's parameters where the probe knows them.
Status AddProbeInputs(nlohmann::json& probe, const std::string& path, const KernelBenchImportOptions& options,
                      std::set<std::string>& taken, std::vector<KernelBenchArgument>& tensors,
                      std::vector<KernelBenchArgument>& scalars) {
  nlohmann::json inputs = probe["inputs"];
  nlohmann::json names = probe["input_names"];
  if (!inputs.is_array() || inputs.empty()) return ProbeError(path, "get_inputs() returned no inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    nlohmann::json input = inputs[i];
    if (!input.is_object()) return ProbeError(path, fmt::format("get_inputs()[{}]: not described", i));
    std::string raw = names.is_array() && i < names.size() && names[i].is_string()
                          ? names[i].get<std::string>()
                          : fmt::format("in{}", i);
    KOPT_ASSIGN_OR_RETURN(KernelBenchArgument argument,
                          ProbeInput(std::move(input), i, SafeName(raw, taken), path, options));
    (argument.role == "scalar" ? scalars : tensors).push_back(std::move(argument));
  }
  return Status::Ok();
}

// The model's parameters, as input tensors.
Status AddProbeParameters(const nlohmann::json& probe, const std::string& path,
                          const KernelBenchImportOptions& options, std::set<std::string>& taken,
                          std::vector<KernelBenchArgument>& tensors) {
  nlohmann::json parameters = probe.value("parameters", nlohmann::json::array());
  if (!parameters.is_array()) return ProbeError(path, "parameters: expected a list");
  for (size_t i = 0; i < parameters.size(); ++i) {
    nlohmann::json parameter = parameters[i];
    if (!parameter.is_object()) return ProbeError(path, fmt::format("parameters[{}]: not described", i));
    std::string where = fmt::format("parameters[{}]", i);
    KernelBenchArgument argument;
    argument.parameter = parameter.value("name", "");
    if (argument.parameter.empty()) return ProbeError(path, where + ": no name");
    argument.name = SafeName(argument.parameter, taken);
    argument.role = "input";
    argument.source = "parameter";
    KOPT_ASSIGN_OR_RETURN(argument.shape, ShapeOf(parameter["shape"], where));
    KOPT_ASSIGN_OR_RETURN(argument.dtype, DtypeOf(parameter["dtype"], where));
    argument.init = InitFor(argument, parameter["init"], options, argument.note);
    tensors.push_back(std::move(argument));
  }
  return Status::Ok();
}

// forward()'s outputs (at most 16): one is `out`; several are out0, out1, ... in forward's order.
Status AddProbeOutputs(const nlohmann::json& outputs, const std::string& path, std::set<std::string>& taken,
                       std::vector<KernelBenchArgument>& tensors) {
  if (!outputs.is_array() || outputs.empty()) return ProbeError(path, "forward() returns no tensor");
  if (outputs.size() > 16) {
    return ProbeError(
        path, fmt::format("forward() returns {} tensors: kopt imports problems with at most 16 outputs",
                          outputs.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    KernelBenchArgument out;
    out.name = outputs.size() == 1 ? "out" : SafeName(fmt::format("out{}", i), taken);
    out.role = "output";
    out.source = "output";
    out.position = outputs.size() == 1 ? -1 : static_cast<int>(i);  // the index in forward's tuple
    const nlohmann::json& output = outputs[i];
    std::string where = outputs.size() == 1 ? "forward() output" : fmt::format("forward() output {}", i);
    if (!output.is_object()) return ProbeError(path, where + ": not described");
    nlohmann::json output_shape = output.value("shape", nlohmann::json());
    if (output_shape.is_array() && !output_shape.empty()) {
      KOPT_ASSIGN_OR_RETURN(out.shape, ShapeOf(output_shape, where));
    }
    KOPT_ASSIGN_OR_RETURN(out.dtype, DtypeOf(output.value("dtype", nlohmann::json()), where));
    KOPT_ASSIGN_OR_RETURN(out.torch_dtype, TorchDtypeOf(output, out.dtype, where));
    tensors.push_back(std::move(out));
  }
  return Status::Ok();
}

Result<KernelBenchProblem> ParseProbe(std::string_view json_text, const std::string& path,
                                      const KernelBenchImportOptions& options) {
  nlohmann::json probe = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!probe.is_object() || probe.value("schema", "") != kProbeSchema) {
    return ProbeError(path, fmt::format("the probe did not answer with a {} object", kProbeSchema));
  }
  KernelBenchProblem problem;
  problem.path = path;
  fs::path file(path);
  problem.stem = file.stem().string();
  std::string parent = file.parent_path().filename().string();
  if (StartsWith(parent, "level"))
    problem.level = static_cast<int>(ParseInteger(parent.substr(5)).value_or(0));
  problem.init_inputs = probe.value("init_inputs", nlohmann::json::array());
  problem.shapes_from = probe.value("shapes_from", "");
  if (probe.contains("matmul_flops") && probe["matmul_flops"].is_number() &&
      std::isfinite(probe["matmul_flops"].get<double>()) && probe["matmul_flops"].get<double>() > 0) {
    problem.matmul_flops = probe["matmul_flops"].get<double>();
  }
  std::set<std::string> taken = {"out"};
  std::vector<KernelBenchArgument> tensors, scalars;
  KOPT_RETURN_IF_ERROR(AddProbeInputs(probe, path, options, taken, tensors, scalars));
  KOPT_RETURN_IF_ERROR(AddProbeParameters(probe, path, options, taken, tensors));
  nlohmann::json outputs = probe["outputs"];
  KOPT_RETURN_IF_ERROR(AddProbeOutputs(outputs, path, taken, tensors));
  problem.arguments = std::move(tensors);
  for (auto& scalar : scalars) problem.arguments.push_back(std::move(scalar));
  if (probe.contains("gemm") && outputs.size() == 1)
    problem.gemm_table = GemmTable(probe["gemm"], problem.arguments);
  return problem;
}

}  // namespace

Result<KernelBenchProblem> ParseKernelBenchProbe(std::string_view json_text, const std::string& path,
                                                 const KernelBenchImportOptions& options) {
  try {
    Result<KernelBenchProblem> problem = ParseProbe(json_text, path, options);
    // Every message names the problem file (some checks name only the field).
    if (!problem.ok() && !StartsWith(problem.status().message(), path + ": ")) {
      return Status(problem.status().kind(), path + ": " + problem.status().message());
    }
    return problem;
  } catch (const nlohmann::json::exception& error) {  // a field of an unexpected type
    return InvalidInput(fmt::format("{}: malformed probe record: {}", path, error.what()));
  }
}

Result<KernelBenchProblem> ProbeKernelBenchProblem(const std::string& path, CommandRunner& runner,
                                                   const KernelBenchImportOptions& options) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return NotFound(path + ": no such problem file");
  KOPT_ASSIGN_OR_RETURN(std::string source, ReadWholeFile(path, size_t{64} << 20));
  if (LooksBinary(source)) {
    return InvalidInput(fmt::format(
        "{}: binary data, not Python; expected a KernelBench problem file (a Model class, get_inputs)",
        path));
  }
  CommandSpec spec;
  spec.argv = {options.python, "-c", std::string(KernelBenchProbeScript()), path};
  spec.timeout_seconds = options.timeout_seconds;
  Result<CommandResult> ran = runner.Run(spec);
  if (!ran.ok()) {
    return Unavailable(fmt::format("cannot run {} to read {}: {} (kopt needs Python 3; no PyTorch)",
                                   options.python, path, ran.status().message()));
  }
  const CommandResult& result = ran.value();
  if (!result.Succeeded()) {
    std::string_view text = result.stderr_text;
    size_t at = text.find("kopt-probe-error: ");
    if (result.exit_code == 3 && at != std::string_view::npos) {
      std::string message(TrimWhitespace(text.substr(at + 18)));
      return InvalidInput(message);
    }
    if (result.timed_out) {
      return InvalidInput(fmt::format(
          "{}: reading the problem did not finish within {:g} s (get_inputs(), get_init_inputs(), Model or "
          "forward never returned; --timeout sets the limit)",
          path, options.timeout_seconds));
    }
    return InvalidInput(fmt::format("{}: reading the problem failed ({}): {}", path,
                                    DescribeCommandEnd(result, options.timeout_seconds),
                                    Abbreviate(TrimWhitespace(result.stderr_text), 600)));
  }
  return ParseKernelBenchProbe(result.stdout_text, path, options);
}

Result<std::vector<std::pair<std::string, std::string>>> KernelBenchTaskFiles(
    const KernelBenchProblem& problem, const std::string& problem_source,
    const KernelBenchImportOptions& options) {
  std::string toml = TaskToml(problem, options);
  Result<TaskSpec> task = ParseTaskToml(toml, "task.toml");
  // The parser's checks (sizes that overflow, more memory than a tensor can
  // address) apply to what the problem asked for.
  if (!task.ok()) {
    return InvalidInput(
        fmt::format("{}: the problem does not fit a kopt task: {}", problem.path, task.status().message()));
  }
  nlohmann::json record = {
      {"schema", kTaskSchema},
      {"problem", problem.stem},
      {"level", problem.level},
      {"source", fs::absolute(problem.path).string()},
      {"init_inputs", problem.init_inputs},
      {"shapes_from", problem.shapes_from},
      {"matmul_flops", problem.matmul_flops},
      {"inputs", options.inputs},
      {"tolerance", options.tolerance},
      {"protocol", options.protocol.empty() ? nlohmann::json() : nlohmann::json(options.protocol)},
      {"entry", "model_forward"},
      {"arguments", ArgumentsJson(problem.arguments)}};
  return std::vector<std::pair<std::string, std::string>>{
      {"task.toml", toml},
      {"reference.cu", ReferenceSource(task.value(), problem.arguments)},
      {"problem.py", problem_source},
      {"kernelbench.json", record.dump(2) + "\n"},
      {"kopt_torch_reference.py", std::string(KernelBenchReferenceServer())},
  };
}

namespace {

std::string JsonShapeText(const nlohmann::json& shape) {
  std::vector<std::string> dims;
  if (shape.is_array()) {
    for (const auto& dim : shape) dims.push_back(dim.dump());
  }
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

// "`A` f32 [16, 64]: get_inputs()[0], forward's argument 0" and the like.
std::string ArgumentLine(const nlohmann::json& argument) {
  std::string name = argument.value("name", "?");
  std::string dtype = argument.value("dtype", "?");
  std::string source = argument.value("source", "");
  int position = argument.value("position", -1);
  if (argument.value("role", "") == "scalar") {
    std::string value = argument.contains("value") ? argument["value"].dump() : "?";
    return fmt::format("`{}` {} scalar (= {} in get_inputs()): get_inputs()[{}], forward's argument {}", name,
                       dtype, value, position, position);
  }
  std::string head =
      fmt::format("`{}` {} {}", name, dtype, JsonShapeText(argument.value("shape", nlohmann::json())));
  if (source == "parameter") {
    return fmt::format("{}: the model's parameter or buffer `{}` (the harness passes its values)", head,
                       argument.value("parameter", "?"));
  }
  if (source == "output") {
    return position < 0
               ? head + ": forward's result, written by the entry point"
               : fmt::format("{}: forward's result [{}], written by the entry point", head, position);
  }
  return fmt::format("{}: get_inputs()[{}], forward's argument {}", head, position, position);
}

}  // namespace

Status ApplyKernelBenchProtocol(const std::string& protocol, KernelBenchImportOptions& options) {
  if (protocol == "kernelbench") {
    options.inputs = "kernelbench";
    options.tolerance = "kernelbench";
  } else if (protocol == "verified") {
    options.inputs = "kernelbench";
    options.tolerance = "verified";
  } else if (protocol == "kopt") {
    options.inputs = "exercise";
    options.tolerance = "kopt";
  } else {
    return InvalidInput("--protocol: \"" + protocol + "\": expected kernelbench, verified or kopt");
  }
  options.protocol = protocol;
  return Status::Ok();
}

Result<std::optional<KernelBenchStatement>> LoadKernelBenchStatement(const std::string& task_directory) {
  fs::path record_path = fs::path(task_directory) / "kernelbench.json";
  std::error_code error;
  if (!fs::exists(record_path, error)) return std::optional<KernelBenchStatement>();
  KOPT_ASSIGN_OR_RETURN(std::string record_text, ReadWholeFile(record_path.string(), size_t{16} << 20));
  nlohmann::json record = nlohmann::json::parse(record_text, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object() || record.value("schema", "") != kTaskSchema || !record.contains("arguments") ||
      !record["arguments"].is_array()) {
    return InvalidInput(
        fmt::format("{}: expected a {} record with an `arguments` list", record_path.string(), kTaskSchema));
  }
  KernelBenchStatement statement;
  try {
    statement.problem = record.value("problem", "");
    statement.level = record.value("level", 0);
    statement.init_inputs = record.contains("init_inputs") ? record["init_inputs"].dump() : "[]";
    for (const auto& argument : record["arguments"])
      statement.argument_lines.push_back(ArgumentLine(argument));
  } catch (const nlohmann::json::exception& failure) {
    return InvalidInput(fmt::format("{}: malformed field: {}", record_path.string(), failure.what()));
  }
  KOPT_ASSIGN_OR_RETURN(statement.source,
                        ReadWholeFile((fs::path(task_directory) / "problem.py").string(), size_t{4} << 20));
  return std::optional<KernelBenchStatement>(std::move(statement));
}

}  // namespace kopt
