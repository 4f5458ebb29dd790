#include "agents/energy_moves.h"

#include <fmt/format.h>

#include <vector>

namespace kopt::agents {
namespace {

bool SinglePrecision(DataType dtype) {
  return dtype == DataType::kF32 || dtype == DataType::kF16 || dtype == DataType::kBF16;
}

}  // namespace

FastMathAllowance FastMathAllowedBy(const TaskSpec& task) {
  std::vector<std::string> admitted;
  for (const TensorSpec& tensor : task.tensors) {
    if (tensor.role == TensorRole::kInput || !SinglePrecision(tensor.dtype)) continue;
    const Tolerance& tolerance = task.ToleranceFor(tensor.dtype);
    std::string described =
        fmt::format("{} ({}, rtol {:g})", tensor.name, DataTypeName(tensor.dtype), tolerance.rtol);
    if (!(tolerance.rtol >= kFastPathRelativeError)) {
      return {false, fmt::format("{} is below the fast paths' documented error ({:.2g} relative: __expf "
                                 "2 + floor(1.173|x|) ulp, __fdividef 2 ulp)",
                                 described, kFastPathRelativeError)};
    }
    admitted.push_back(std::move(described));
  }
  if (admitted.empty()) {
    return {false, "no single-precision output: fast-math changes f32/f16/bf16 arithmetic only"};
  }
  return {true,
          fmt::format("{} admit{} the fast paths' documented error ({:.2g} relative)",
                      fmt::join(admitted, ", "), admitted.size() == 1 ? "s" : "", kFastPathRelativeError)};
}

}  // namespace kopt::agents
