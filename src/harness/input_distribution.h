// Input distributions other than the task's own, for testing how well the
// correctness check catches wrong kernels (bench/mutation_score.py) and for
// probing a candidate with inputs its author did not tune for: every
// floating-point input tensor's initialiser scaled (×3, ×0.01, ×-1 negates)
// or replaced by a heavy-tailed one of the same spread. Integer tensors
// (indices, counts) and outputs keep theirs.
//
// Thread safety: values and pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "harness/task_spec.h"

namespace kopt {

// The shape of the drawn values.
enum class InputShape {
  kDeclared,     // the task's initialiser (scaled)
  kHeavyTailed,  // Student-t(alpha 2.5), scaled to the declared spread, centred on the declared centre
};
// "declared", "heavy_tailed".
std::string_view InputShapeName(InputShape shape);
std::optional<InputShape> ParseInputShape(std::string_view name);

struct InputDistribution {
  InputShape shape = InputShape::kDeclared;
  double scale = 1.0;  // every drawn value times this (ratio; -1 negates); finite, not 0
  bool IsDeclared() const { return shape == InputShape::kDeclared && scale == 1.0; }
};

// `task` with its floating-point input (and inout) tensors' initialisers
// transformed. Scaling: normal (mean, stddev) -> (scale·mean, |scale|·stddev);
// uniform [low, high) -> the interval scale·[low, high); heavy_tailed: its
// scale times |scale| (Student-t is symmetric about 0: negation changes
// nothing); zeros and ones stay as declared (no initialiser draws a scaled
// constant). kHeavyTailed: the initialiser becomes heavy_tailed (alpha 2.5)
// with scale = the declared spread (normal stddev, half the uniform width,
// the heavy-tailed scale, 1 for ones) times |scale|, centred on 0.
TaskSpec ApplyInputDistribution(TaskSpec task, const InputDistribution& distribution);

}  // namespace kopt
