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

// Within time noise: a verified evaluation with measured and/or predicted dynamic energy.
Evaluation WithEnergy(std::optional<double> measured, std::optional<double> predicted, double noise = 0.01) {
  Evaluation evaluation = Verified(1.0, 0.05);
  evaluation.energy_j = measured;
  evaluation.energy_noise_fraction = noise;
  evaluation.predicted_energy_j = predicted;
  return evaluation;
}

TEST(RewardTest, MeasuredEnergyDecidesWhenBothSidesHaveOne) {
  Evaluation low = WithEnergy(8.0, std::nullopt);
  Evaluation high = WithEnergy(10.0, std::nullopt);
  CandidateComparison comparison = CompareCandidates(low, high, Objective::kTimeEnergy);
  EXPECT_LT(comparison.order, 0);
  EXPECT_EQ(comparison.rule, CompareRule::kMeasuredEnergy);
  EXPECT_TRUE(RuleDecides(comparison.rule));
  EXPECT_EQ(CompareCandidates(high, low, Objective::kTimeEnergy).order, 1);
}

TEST(RewardTest, MeasuredEnergiesWithinTheirNoiseDoNotDecide) {
  Evaluation a = WithEnergy(10.0, std::nullopt, 0.03);
  Evaluation b = WithEnergy(10.2, std::nullopt, 0.01);  // |ΔE| = 0.2 <= 0.03 · 10.2
  CandidateComparison comparison = CompareCandidates(a, b, Objective::kTimeEnergy);
  EXPECT_EQ(comparison.order, 0);
  EXPECT_EQ(comparison.rule, CompareRule::kEnergyWithinNoise);
  EXPECT_FALSE(RuleDecides(comparison.rule));
}

TEST(RewardTest, MeasuredWinsOverPredictionsWhenBothSidesAreMeasured) {
  // The predictions say the opposite; the measurement is what counts.
  Evaluation a = WithEnergy(8.0, 12.0);
  Evaluation b = WithEnergy(10.0, 6.0);
  CandidateComparison comparison = CompareCandidates(a, b, Objective::kTimeEnergy);
  EXPECT_LT(comparison.order, 0);
  EXPECT_EQ(comparison.rule, CompareRule::kMeasuredEnergy);
}

TEST(RewardTest, PredictionsDecideOnlyAgainstPredictions) {
  Evaluation a = WithEnergy(std::nullopt, 5.0);
  Evaluation b = WithEnergy(std::nullopt, 6.0);
  CandidateComparison comparison = CompareCandidates(a, b, Objective::kTimeEnergy);
  EXPECT_LT(comparison.order, 0);
  EXPECT_EQ(comparison.rule, CompareRule::kPredictedEnergy);
  // One side measured too: still both predicted, so the predictions decide (same basis).
  Evaluation measured_too = WithEnergy(20.0, 6.0);
  EXPECT_EQ(CompareCandidates(a, measured_too, Objective::kTimeEnergy).rule, CompareRule::kPredictedEnergy);
  // Within the model's resolution: no decision.
  Evaluation close = WithEnergy(std::nullopt, 5.0 * (1 + kPredictedEnergyResolution / 2));
  EXPECT_EQ(CompareCandidates(a, close, Objective::kTimeEnergy).rule, CompareRule::kPredictedTooClose);
  EXPECT_EQ(CompareCandidates(a, close, Objective::kTimeEnergy).order, 0);
}

TEST(RewardTest, AMeasuredEnergyIsNeverComparedWithAPredictedOne) {
  Evaluation measured = WithEnergy(10.0, std::nullopt);
  Evaluation predicted = WithEnergy(std::nullopt, 1.0);  // far lower, but on another basis
  CandidateComparison comparison = CompareCandidates(measured, predicted, Objective::kTimeEnergy);
  EXPECT_EQ(comparison.order, 0);
  EXPECT_EQ(comparison.rule, CompareRule::kMixedEnergyBasis);
  EXPECT_EQ(CompareCandidates(predicted, measured, Objective::kTimeEnergy).rule,
            CompareRule::kMixedEnergyBasis);
  // A side with no energy at all.
  Evaluation none = WithEnergy(std::nullopt, std::nullopt);
  EXPECT_EQ(CompareCandidates(measured, none, Objective::kTimeEnergy).rule, CompareRule::kNoEnergy);
  // The tie goes to the lower median time for "best".
  predicted.time_s = 0.99;
  EXPECT_TRUE(IsBetterCandidate(predicted, measured, Objective::kTimeEnergy));
}

TEST(RewardTest, TimeObjectiveNeverLooksAtEnergy) {
  Evaluation low = WithEnergy(1.0, 1.0);
  Evaluation high = WithEnergy(100.0, 100.0);
  CandidateComparison comparison = CompareCandidates(low, high, Objective::kTime);
  EXPECT_EQ(comparison.order, 0);
  EXPECT_EQ(comparison.rule, CompareRule::kTimeObjective);
  // Outside the time noise, time decides under either objective whatever the energies.
  high.time_s = 0.5;
  EXPECT_EQ(CompareCandidates(low, high, Objective::kTimeEnergy).rule, CompareRule::kTime);
  EXPECT_GT(CompareCandidates(low, high, Objective::kTimeEnergy).order, 0);
}

TEST(RewardTest, BadEnergiesCountAsAbsent) {
  Evaluation nan = WithEnergy(std::numeric_limits<double>::quiet_NaN(), std::nullopt);
  Evaluation negative = WithEnergy(-1.0, std::nullopt);
  Evaluation good = WithEnergy(5.0, std::nullopt);
  EXPECT_EQ(CompareCandidates(nan, good, Objective::kTimeEnergy).rule, CompareRule::kNoEnergy);
  EXPECT_EQ(CompareCandidates(negative, good, Objective::kTimeEnergy).rule, CompareRule::kNoEnergy);
  EXPECT_EQ(CompareRuleName(CompareRule::kMixedEnergyBasis), "mixed_energy_basis");
}

TEST(RewardTest, ObjectiveNames) {
  EXPECT_EQ(ObjectiveName(Objective::kTimeEnergy), "time+energy");
  EXPECT_EQ(ParseObjective("time"), Objective::kTime);
  EXPECT_EQ(ParseObjective("time+energy"), Objective::kTimeEnergy);
  EXPECT_FALSE(ParseObjective("energy").has_value());
}

}  // namespace
}  // namespace kopt
