#include "agents/energy_moves.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::agents {
namespace {

using ::testing::HasSubstr;

TaskSpec TaskWith(DataType output, Tolerance tolerance, DataType input = DataType::kF32) {
  TaskSpec task;
  task.name = "t";
  TensorSpec x;
  x.name = "x";
  x.dtype = input;
  x.role = TensorRole::kInput;
  TensorSpec y;
  y.name = "y";
  y.dtype = output;
  y.role = TensorRole::kOutput;
  task.tensors = {x, y};
  for (int dtype = 0; dtype < kDataTypeCount; ++dtype) {
    task.tolerances[dtype] = DefaultTolerance(static_cast<DataType>(dtype));
  }
  task.tolerances[static_cast<int>(output)] = tolerance;
  return task;
}

TEST(EnergyMovesTest, TheDocumentedErrorIs32UlpOfFloat) {
  EXPECT_NEAR(kFastPathRelativeError, 3.8147e-6, 1e-9);
}

TEST(EnergyMovesTest, SwishToleranceAdmitsTheFastPaths) {
  FastMathAllowance allowance = FastMathAllowedBy(TaskWith(DataType::kF32, {1e-5, 1e-6}));
  EXPECT_TRUE(allowance.allowed) << allowance.reason;
  EXPECT_THAT(allowance.reason, HasSubstr("y (f32, rtol 1e-05)"));
}

TEST(EnergyMovesTest, ATighterToleranceRefusesThem) {
  FastMathAllowance tight = FastMathAllowedBy(TaskWith(DataType::kF32, {1e-6, 1e-7}));
  EXPECT_FALSE(tight.allowed);
  EXPECT_THAT(tight.reason, HasSubstr("rtol 1e-06"));
  EXPECT_THAT(tight.reason, HasSubstr("below the fast paths' documented error"));
  EXPECT_FALSE(FastMathAllowedBy(TaskWith(DataType::kF32, {0, 0})).allowed) << "bit-exact";
}

TEST(EnergyMovesTest, HalfPrecisionOutputsAdmitThemAtTheirDefaults) {
  EXPECT_TRUE(FastMathAllowedBy(TaskWith(DataType::kF16, DefaultTolerance(DataType::kF16))).allowed);
  EXPECT_TRUE(FastMathAllowedBy(TaskWith(DataType::kBF16, DefaultTolerance(DataType::kBF16))).allowed);
}

TEST(EnergyMovesTest, NoSinglePrecisionOutputGainsNothing) {
  FastMathAllowance f64 = FastMathAllowedBy(TaskWith(DataType::kF64, {1e-3, 1e-3}));
  EXPECT_FALSE(f64.allowed);
  EXPECT_THAT(f64.reason, HasSubstr("no single-precision output"));
  // The input's tolerance is irrelevant: only written tensors are checked.
  EXPECT_FALSE(FastMathAllowedBy(TaskWith(DataType::kI32, {0, 0}, DataType::kF32)).allowed);
}

TEST(EnergyMovesTest, EveryWrittenTensorMustAdmitThem) {
  TaskSpec task = TaskWith(DataType::kF32, {1e-5, 1e-6});
  TensorSpec second;
  second.name = "z";
  second.dtype = DataType::kF16;
  second.role = TensorRole::kInout;
  task.tensors.push_back(second);
  task.tolerances[static_cast<int>(DataType::kF16)] = {1e-6, 0};
  FastMathAllowance allowance = FastMathAllowedBy(task);
  EXPECT_FALSE(allowance.allowed);
  EXPECT_THAT(allowance.reason, HasSubstr("z (f16"));
}

}  // namespace
}  // namespace kopt::agents
