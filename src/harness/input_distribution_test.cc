#include "harness/input_distribution.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TaskSpec DistributionTask() {
  TaskSpec task;
  auto add = [&](std::string name, DataType dtype, TensorRole role, TensorInit init) {
    TensorSpec tensor;
    tensor.name = std::move(name);
    tensor.dtype = dtype;
    tensor.role = role;
    tensor.init = init;
    task.tensors.push_back(tensor);
  };
  TensorInit normal{InitKind::kNormal};
  normal.mean = 0.5;
  normal.stddev = 2.0;
  TensorInit uniform{InitKind::kUniform};
  uniform.low = -1.0;
  uniform.high = 3.0;
  TensorInit heavy{InitKind::kHeavyTailed};
  heavy.scale = 1.5;
  TensorInit indices{InitKind::kIntRange};
  add("x", DataType::kF32, TensorRole::kInput, normal);
  add("w", DataType::kBF16, TensorRole::kInout, uniform);
  add("h", DataType::kF16, TensorRole::kInput, heavy);
  add("index", DataType::kI32, TensorRole::kInput, indices);
  add("y", DataType::kF32, TensorRole::kOutput, TensorInit{InitKind::kZeros});
  return task;
}

TEST(InputDistributionTest, DeclaredChangesNothing) {
  TaskSpec task = ApplyInputDistribution(DistributionTask(), {});
  EXPECT_EQ(task.tensors[0].init.mean, 0.5);
  EXPECT_EQ(task.tensors[1].init.low, -1.0);
}

TEST(InputDistributionTest, ScalingScalesEveryFloatingInputAndNegationFlipsIntervals) {
  TaskSpec tripled = ApplyInputDistribution(DistributionTask(), {InputShape::kDeclared, 3.0});
  EXPECT_DOUBLE_EQ(tripled.tensors[0].init.mean, 1.5);
  EXPECT_DOUBLE_EQ(tripled.tensors[0].init.stddev, 6.0);
  EXPECT_DOUBLE_EQ(tripled.tensors[1].init.low, -3.0);
  EXPECT_DOUBLE_EQ(tripled.tensors[1].init.high, 9.0);
  EXPECT_DOUBLE_EQ(tripled.tensors[2].init.scale, 4.5);
  EXPECT_EQ(tripled.tensors[3].init.kind, InitKind::kIntRange);
  EXPECT_EQ(tripled.tensors[3].init.integer_high, 100);
  EXPECT_EQ(tripled.tensors[4].init.kind, InitKind::kZeros);

  TaskSpec negated = ApplyInputDistribution(DistributionTask(), {InputShape::kDeclared, -1.0});
  EXPECT_DOUBLE_EQ(negated.tensors[0].init.mean, -0.5);
  EXPECT_DOUBLE_EQ(negated.tensors[0].init.stddev, 2.0);
  EXPECT_DOUBLE_EQ(negated.tensors[1].init.low, -3.0);
  EXPECT_DOUBLE_EQ(negated.tensors[1].init.high, 1.0);
  EXPECT_DOUBLE_EQ(negated.tensors[2].init.scale, 1.5);
}

TEST(InputDistributionTest, HeavyTailedKeepsTheDeclaredSpread) {
  TaskSpec heavy = ApplyInputDistribution(DistributionTask(), {InputShape::kHeavyTailed, 0.01});
  for (int index : {0, 1, 2}) EXPECT_EQ(heavy.tensors[index].init.kind, InitKind::kHeavyTailed) << index;
  EXPECT_DOUBLE_EQ(heavy.tensors[0].init.scale, 0.02);
  EXPECT_DOUBLE_EQ(heavy.tensors[1].init.scale, 0.02);
  EXPECT_DOUBLE_EQ(heavy.tensors[2].init.scale, 0.015);
  EXPECT_EQ(heavy.tensors[3].init.kind, InitKind::kIntRange);
  EXPECT_EQ(heavy.tensors[4].init.kind, InitKind::kZeros);
}

TEST(InputDistributionTest, ShapeNames) {
  EXPECT_EQ(InputShapeName(InputShape::kHeavyTailed), "heavy_tailed");
  EXPECT_EQ(ParseInputShape("declared"), InputShape::kDeclared);
  EXPECT_EQ(ParseInputShape("cauchy"), std::nullopt);
}

}  // namespace
}  // namespace kopt
