#include "harness/kernelbench_candidate.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/text.h"
#include "harness/kernelbench_resources.h"
#include "harness/task_spec.h"

namespace kopt {
namespace fs = std::filesystem;

namespace {

std::string_view ShimType(DataType dtype) {
  switch (dtype) {
    case DataType::kF64: return "Double";
    case DataType::kF32: return "Float";
    case DataType::kF16: return "Half";
    case DataType::kBF16: return "BFloat16";
    case DataType::kI64: return "Long";
    case DataType::kI32: return "Int";
    case DataType::kU8: return "Byte";
  }
  return "Float";
}

// The source with the PyTorch headers it includes commented out (the shim
// provides what is used of them).
std::string WithoutTorchIncludes(const std::string& source) {
  std::string out;
  for (std::string_view line : SplitLines(source)) {
    std::string_view code = TrimWhitespace(line);
    bool torch_include = false;
    if (StartsWith(code, "#")) {
      std::string_view rest = TrimWhitespace(code.substr(1));
      if (StartsWith(rest, "include")) {
        rest = TrimWhitespace(rest.substr(7));
        for (std::string_view prefix : {"torch/", "ATen/", "c10/", "pybind11/"}) {
          if (rest.size() > 1 && StartsWith(rest.substr(1), prefix)) torch_include = true;
        }
      }
    }
    if (torch_include) out += "// (kopt: provided by the torch shim) ";
    out += line;
    out += "\n";
  }
  return out;
}

// True when the candidate's sources or the task's tensors may need the
// shim's 16-bit float types (__half, __nv_bfloat16, at::Half, ...): any
// spelling of them, their headers, dispatch macros or intrinsics (__h...).
// Without: the shim leaves cuda_fp16.h and cuda_bf16.h out (faster nvcc).
bool NeedsHalfTypes(const std::string& sources, const TaskSpec& task) {
  for (const TensorSpec& tensor : task.tensors) {
    if (tensor.dtype == DataType::kF16 || tensor.dtype == DataType::kBF16) return true;
  }
  std::string lower = sources;
  for (char& character : lower)
    character = static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
  for (std::string_view word : {"half", "bfloat", "bf16", "fp16", "float16", "__h"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string ShapeList(const std::vector<int64_t>& shape) {
  std::string text = "{";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "}";
}

std::string NumberLiteral(const nlohmann::json& value) {
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  std::string text = fmt::format("{}", value.get<double>());
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string RefusedKernelBenchCandidate(std::string_view message) {
  std::string text;
  for (char c : message) {
    if (c == '"' || c == '\\') text += '\\';
    text += c == '\n' ? ' ' : c;
  }
  return "// kopt refused this KernelBench candidate (docs/kernelbench.md).\n#error \"kopt refused the "
         "KernelBench "
         "candidate: " +
         text + "\"\n";
}

bool IsKernelBenchCandidatePath(const std::string& path) {
  return EndsWith(path, ".py");
}

namespace {

// The task's kernelbench.json record (kopt.kernelbench.task/1); InvalidInput when the task was not
// imported from KernelBench.
Result<nlohmann::json> ReadTaskRecord(const std::string& candidate_path, const std::string& task_directory,
                                      const std::string& record_path) {
  std::error_code error;
  if (!fs::exists(record_path, error)) {
    return InvalidInput(
        fmt::format("{}: a KernelBench candidate (ModelNew) needs a task imported from KernelBench "
                    "(kopt task import-kernelbench); {} has no kernelbench.json",
                    candidate_path, task_directory));
  }
  KOPT_ASSIGN_OR_RETURN(std::string record_text, ReadWholeFile(record_path, size_t{16} << 20));
  nlohmann::json record = nlohmann::json::parse(record_text, nullptr, false);
  if (!record.is_object() || !record["arguments"].is_array()) {
    return InvalidInput(record_path + ": not a kopt.kernelbench.task/1 record");
  }
  return record;
}

// The problem's Model.forward arguments as the record lists them.
struct ProblemArguments {
  std::vector<const nlohmann::json*> forward_inputs;  // by forward position
  std::string output_name;
};

// InvalidInput when the model has parameters: a ModelNew holding its own weights cannot take them.
Result<ProblemArguments> ProblemArgumentsOf(const nlohmann::json& record, const std::string& candidate_path,
                                            const TaskSpec& task) {
  ProblemArguments arguments;
  for (const nlohmann::json& argument : record["arguments"]) {
    std::string source = argument.value("source", "");
    if (source == "parameter") {
      return InvalidInput(
          fmt::format("{}: the problem's model has parameters ({}): kopt feeds them as task inputs, which a "
                      "ModelNew holding "
                      "its own weights cannot take; write a native .cu candidate (entry {})",
                      candidate_path, argument.value("parameter", "?"), task.entry));
    }
    if (source == "output") arguments.output_name = argument.value("name", "");
    if (source == "input") {
      size_t position = static_cast<size_t>(argument.value("position", 0));
      if (arguments.forward_inputs.size() <= position) arguments.forward_inputs.resize(position + 1, nullptr);
      arguments.forward_inputs[position] = &argument;
    }
  }
  return arguments;
}

// The candidate as the reader script sees it (kopt.kernelbench.candidate/1): its load_inline
// sources, the function ModelNew.forward calls and that call's arguments.
Result<nlohmann::json> ReadCandidate(const std::string& candidate_path, const nlohmann::json& record,
                                     CommandRunner& runner, const std::string& python) {
  CommandSpec spec;
  spec.argv = {python, "-c", std::string(KernelBenchCandidateScript()), candidate_path,
               record.value("init_inputs", nlohmann::json::array()).dump()};
  spec.timeout_seconds = 60;
  Result<CommandResult> ran = runner.Run(spec);
  if (!ran.ok()) {
    return Unavailable(
        fmt::format("cannot run {} to read {}: {}", python, candidate_path, ran.status().message()));
  }
  const CommandResult& result = ran.value();
  if (!result.Succeeded()) {
    size_t at = result.stderr_text.find("kopt-candidate-error: ");
    if (result.exit_code == 3 && at != std::string::npos) {
      return InvalidInput(std::string(TrimWhitespace(std::string_view(result.stderr_text).substr(at + 22))));
    }
    return InvalidInput(fmt::format("{}: reading the candidate failed ({}): {}", candidate_path,
                                    DescribeCommandEnd(result, 60), Abbreviate(result.stderr_text, 600)));
  }
  nlohmann::json candidate = nlohmann::json::parse(result.stdout_text, nullptr, false);
  if (!candidate.is_object() || candidate.value("schema", "") != "kopt.kernelbench.candidate/1") {
    return Internal(candidate_path + ": the candidate reader gave no kopt.kernelbench.candidate/1 record");
  }
  return candidate;
}

// The arguments of the entry point's call of the candidate's function: constants, scalars by name,
// tensors wrapped for the shim.
Result<std::string> CallArguments(const nlohmann::json& candidate, const ProblemArguments& problem,
                                  const TaskSpec& task, const std::string& candidate_path,
                                  const std::string& record_path) {
  size_t forward_count = candidate["forward_parameters"].size();
  if (forward_count != problem.forward_inputs.size()) {
    return InvalidInput(
        fmt::format("{}: ModelNew.forward takes {} arguments; the problem's Model.forward takes {}",
                    candidate_path, forward_count, problem.forward_inputs.size()));
  }
  std::string call_arguments;
  for (const nlohmann::json& argument : candidate["arguments"]) {
    if (!call_arguments.empty()) call_arguments += ",\n      ";
    if (argument.value("kind", "") == "constant") {
      call_arguments += NumberLiteral(argument["value"]);
      continue;
    }
    size_t index = argument.value("index", size_t{0});
    const nlohmann::json* input =
        index < problem.forward_inputs.size() ? problem.forward_inputs[index] : nullptr;
    if (input == nullptr)
      return InvalidInput(candidate_path + ": forward passes an argument the problem lacks");
    std::string name = input->value("name", "");
    if (input->value("role", "") == "scalar") {
      call_arguments += name;
      continue;
    }
    const TensorSpec* tensor = task.FindTensor(name);
    if (tensor == nullptr) return Internal(record_path + ": no tensor " + name + " in task.toml");
    call_arguments += fmt::format("kopt_shim::Wrap({}, {}, kopt_shim::ScalarType::{})", name,
                                  ShapeList(tensor->shape), ShimType(tensor->dtype));
  }
  return call_arguments;
}

// The one .cu: the shim, the load_inline sources and the task's entry point calling the candidate.
std::string ConvertedSource(const std::string& candidate_path, const nlohmann::json& candidate,
                            const TaskSpec& task, const TensorSpec& output,
                            const std::string& call_arguments) {
  std::string cpp, cuda;
  for (const auto& text : candidate["extension"]["cpp_sources"]) cpp += WithoutTorchIncludes(text) + "\n";
  for (const auto& text : candidate["extension"]["cuda_sources"]) cuda += WithoutTorchIncludes(text) + "\n";
  std::string prototype = EntryPrototype(task);
  prototype.pop_back();
  std::string shim(KernelBenchTorchShim());
  if (!NeedsHalfTypes(cpp + cuda, task)) shim = "#define KOPT_SHIM_WITHOUT_HALF_TYPES\n" + shim;
  return fmt::format(
      "// Converted by kopt from the KernelBench candidate {} (ModelNew; docs/kernelbench.md):\n"
      "// its load_inline sources, compiled against kopt's torch shim instead of PyTorch, and\n"
      "// the task's entry point calling {} as ModelNew.forward does.\n\n"
      "{}\n"
      "// ---- load_inline cpp_sources\n{}\n"
      "// ---- load_inline cuda_sources\n{}\n"
      "// ---- the task's entry point\n"
      "{} {{\n"
      "  kopt_shim::CallScope scope(stream, {}, {}ull);\n"
      "  torch::Tensor result = {}(\n      {});\n"
      "  scope.Deliver(result, {}, kopt_shim::ScalarType::{});\n"
      "}}\n",
      fs::path(candidate_path).filename().string(), candidate.value("function", ""), shim, cpp, cuda,
      prototype, output.name, output.bytes, candidate.value("function", ""), call_arguments,
      ShapeList(output.shape), ShimType(output.dtype));
}

Result<std::string> Convert(const std::string& candidate_path, const std::string& task_directory,
                            CommandRunner& runner, const std::string& python) {
  std::string record_path = (fs::path(task_directory) / "kernelbench.json").string();
  KOPT_ASSIGN_OR_RETURN(nlohmann::json record, ReadTaskRecord(candidate_path, task_directory, record_path));
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(task_directory));
  KOPT_ASSIGN_OR_RETURN(ProblemArguments problem, ProblemArgumentsOf(record, candidate_path, task));
  const TensorSpec* output = task.FindTensor(problem.output_name);
  if (output == nullptr) return InvalidInput(record_path + ": no output argument");
  KOPT_ASSIGN_OR_RETURN(nlohmann::json candidate, ReadCandidate(candidate_path, record, runner, python));
  KOPT_ASSIGN_OR_RETURN(std::string call_arguments,
                        CallArguments(candidate, problem, task, candidate_path, record_path));
  return ConvertedSource(candidate_path, candidate, task, *output, call_arguments);
}

}  // namespace

Result<std::string> ConvertKernelBenchCandidate(const std::string& candidate_path,
                                                const std::string& task_directory, CommandRunner& runner,
                                                const std::string& python) {
  try {
    return Convert(candidate_path, task_directory, runner, python);
  } catch (const nlohmann::json::exception& error) {  // a record field of an unexpected type
    return InvalidInput(fmt::format("{}: malformed KernelBench record for {}: {}", candidate_path,
                                    task_directory, error.what()));
  }
}

}  // namespace kopt
