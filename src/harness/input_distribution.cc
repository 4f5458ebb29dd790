#include "harness/input_distribution.h"

#include <cmath>
#include <utility>

#include "core/enum_names.h"

namespace kopt {
namespace {

constexpr EnumNameTable<InputShape, 2> kInputShapeNames = {{
    {InputShape::kDeclared, "declared"},
    {InputShape::kHeavyTailed, "heavy_tailed"},
}};

constexpr double kHeavyTailedAlpha = 2.5;

double Spread(const TensorInit& init) {
  switch (init.kind) {
    case InitKind::kNormal: return init.stddev;
    case InitKind::kUniform: return (init.high - init.low) / 2;
    case InitKind::kHeavyTailed: return init.scale;
    case InitKind::kOnes: return 1.0;
    case InitKind::kNone:
    case InitKind::kIntRange:
    case InitKind::kZeros: return 0.0;
  }
  return 0.0;
}

void Scale(TensorInit& init, double scale) {
  switch (init.kind) {
    case InitKind::kNormal:
      init.mean *= scale;
      init.stddev *= std::fabs(scale);
      break;
    case InitKind::kUniform: {
      double low = init.low * scale, high = init.high * scale;
      if (low > high) std::swap(low, high);
      init.low = low;
      init.high = high;
      break;
    }
    case InitKind::kHeavyTailed: init.scale *= std::fabs(scale); break;
    case InitKind::kNone:
    case InitKind::kIntRange:
    case InitKind::kZeros:
    case InitKind::kOnes: break;
  }
}

}  // namespace

std::string_view InputShapeName(InputShape shape) {
  return EnumName(kInputShapeNames, shape);
}

std::optional<InputShape> ParseInputShape(std::string_view name) {
  return EnumFromName(kInputShapeNames, name);
}

TaskSpec ApplyInputDistribution(TaskSpec task, const InputDistribution& distribution) {
  if (distribution.IsDeclared()) return task;
  for (TensorSpec& tensor : task.tensors) {
    if (tensor.role == TensorRole::kOutput || !IsFloatingDataType(tensor.dtype)) continue;
    TensorInit& init = tensor.init;
    if (distribution.shape == InputShape::kHeavyTailed) {
      double spread = Spread(init);
      if (spread <= 0) continue;
      TensorInit heavy;
      heavy.kind = InitKind::kHeavyTailed;
      heavy.alpha = kHeavyTailedAlpha;
      heavy.scale = spread * std::fabs(distribution.scale);
      init = heavy;
    } else {
      Scale(init, distribution.scale);
    }
  }
  return task;
}

}  // namespace kopt
