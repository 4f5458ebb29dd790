#include "search/reward.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::Failed;
using search_testing::Verified;

TEST(RewardTest, LogSpeedupIsSymmetric) {
  EXPECT_DOUBLE_EQ(LogSpeedupReward(2.0, 1.0), std::log(2.0));
  EXPECT_DOUBLE_EQ(LogSpeedupReward(1.0, 1.0), 0.0);
  EXPECT_NEAR(LogSpeedupReward(1.0, 1.5), -std::log(1.5), 1e-12);
}

TEST(RewardTest, FailedNodesGetTheConstantPenalty) {
  EXPECT_DOUBLE_EQ(kFailedReward, std::log(0.5));
  for (NodeStatus status : {NodeStatus::kFailedGenerate, NodeStatus::kFailedCompile, NodeStatus::kFailedCheck,
                            NodeStatus::kFailedRun, NodeStatus::kRejected}) {
    EXPECT_DOUBLE_EQ(EvaluationReward(Failed(status), 1.0), kFailedReward) << NodeStatusName(status);
  }
}

TEST(RewardTest, NeverNanNorInfiniteAndNeverBelowAFailure) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  for (double reference : {1.0, 0.0, -1.0, nan, infinity}) {
    for (double time : {1e-300, 1.0, 1e300, 0.0, -2.0, nan, infinity}) {
      double reward = LogSpeedupReward(reference, time);
      EXPECT_TRUE(std::isfinite(reward)) << reference << " " << time;
      EXPECT_GE(reward, kFailedReward);
      EXPECT_LE(reward, kMaxReward);
    }
  }
  EXPECT_DOUBLE_EQ(LogSpeedupReward(1.0, 10.0), kFailedReward);  // 10x slower: clamped to a failure's worth
}

TEST(RewardTest, OutsideNoiseTimeWins) {
  Evaluation fast = Verified(1.00, 0.01, 9.0);
  Evaluation slow = Verified(1.10, 0.01, 1.0);  // 10 % apart, 1 % noise: not a tie, energy irrelevant
  EXPECT_LT(LexicographicCompare(fast, slow, Objective::kTimeEnergy), 0);
  EXPECT_GT(LexicographicCompare(slow, fast, Objective::kTimeEnergy), 0);
  EXPECT_TRUE(IsBetterCandidate(fast, slow, Objective::kTimeEnergy));
}

TEST(RewardTest, WithinNoiseLowerEnergyWins) {
  Evaluation a = Verified(1.00, 0.03, 5.0);
  Evaluation b = Verified(1.02, 0.01, 4.0);  // |Δt| = 0.02 <= 0.03 · 1.02: overlap
  EXPECT_TRUE(TimesOverlap(a.time_s, a.time_noise_fraction, b.time_s, b.time_noise_fraction));
  EXPECT_GT(LexicographicCompare(a, b, Objective::kTimeEnergy), 0);  // b uses less energy
  EXPECT_TRUE(IsBetterCandidate(b, a, Objective::kTimeEnergy));
  // Objective time: a tie, broken for "best" by the lower median.
  EXPECT_EQ(LexicographicCompare(a, b, Objective::kTime), 0);
  EXPECT_TRUE(IsBetterCandidate(a, b, Objective::kTime));
}

TEST(RewardTest, WithinNoiseWithoutBothEnergiesIsATie) {
  Evaluation a = Verified(1.00, 0.05, 5.0);
  Evaluation b = Verified(1.01, 0.0);
  EXPECT_EQ(LexicographicCompare(a, b, Objective::kTimeEnergy), 0);
  EXPECT_TRUE(IsBetterCandidate(a, b, Objective::kTimeEnergy));
}

TEST(RewardTest, OverlapUsesTheLargerNoise) {
  EXPECT_TRUE(TimesOverlap(1.0, 0.0, 1.05, 0.05));
  EXPECT_FALSE(TimesOverlap(1.0, 0.0, 1.06, 0.05));
  EXPECT_FALSE(TimesOverlap(1.0, -1.0, 1.001, std::numeric_limits<double>::quiet_NaN()));
}

TEST(RewardTest, RejectedIsNeverBetter) {
  Evaluation rejected = Verified(0.001);
  rejected.status = NodeStatus::kRejected;
  Evaluation slow = Verified(100.0);
  EXPECT_GT(LexicographicCompare(rejected, slow, Objective::kTime), 0);
  EXPECT_FALSE(IsBetterCandidate(rejected, slow, Objective::kTime));
  EXPECT_FALSE(IsBetterCandidate(rejected, Failed(), Objective::kTime));
  EXPECT_EQ(LexicographicCompare(rejected, Failed(), Objective::kTime), 0);
}

TEST(RewardTest, ObjectiveNames) {
  EXPECT_EQ(ObjectiveName(Objective::kTimeEnergy), "time+energy");
  EXPECT_EQ(ParseObjective("time"), Objective::kTime);
  EXPECT_EQ(ParseObjective("time+energy"), Objective::kTimeEnergy);
  EXPECT_FALSE(ParseObjective("energy").has_value());
}

}  // namespace
}  // namespace kopt
