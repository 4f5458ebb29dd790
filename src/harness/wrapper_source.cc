#include "harness/wrapper_source.h"

#include <fmt/format.h>

namespace kopt {
namespace {

// The kopt_launch call's arguments: tensors[i] and *scalars[j], cast to the entry's parameter types.
std::string LaunchArguments(const TaskSpec& task) {
  std::string arguments;
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    const TensorSpec& tensor = task.tensors[index];
    std::string_view qualifier = tensor.role == TensorRole::kInput ? "const " : "";
    arguments += fmt::format("static_cast<{}{}*>(tensors[{}]),\n      ", qualifier,
                             DataTypeCName(tensor.dtype), index);
  }
  for (size_t index = 0; index < task.scalars.size(); ++index) {
    arguments += fmt::format("*static_cast<const {}*>(scalars[{}]),\n      ",
                             ScalarTypeCName(task.scalars[index].type), index);
  }
  return arguments + "stream";
}

}  // namespace

Result<std::string> GenerateWrapperSource(const TaskSpec& task, const std::string& candidate_path) {
  if (candidate_path.empty() || candidate_path[0] != '/' ||
      candidate_path.find_first_of("\"\\\n\r") != std::string::npos) {
    return InvalidInput(
        fmt::format("candidate path \"{}\": expected an absolute path without '\"', '\\' or line "
                    "breaks (it is #included by the generated wrapper)",
                    candidate_path));
  }
  return fmt::format(
      "#include <cstdint>\n"
      "#include <cuda_runtime.h>\n"
      "#include <cuda_fp16.h>\n"
      "#include <cuda_bf16.h>\n"
      "{}\n"
      "#include \"{}\"\n"
      "extern \"C\" int kopt_abi_version(void) {{ return {}; }}\n"
      "extern \"C\" void kopt_launch(void* const* tensors, const void* const* scalars, cudaStream_t stream) "
      "{{\n"
      "  {}(\n      {});\n"
      "}}\n",
      EntryPrototype(task), candidate_path, kWrapperAbiVersion, task.entry, LaunchArguments(task));
}

}  // namespace kopt
