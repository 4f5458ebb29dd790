#include "search/reward.h"

#include <algorithm>
#include <cmath>

#include "core/enum_names.h"

namespace kopt {
namespace {

bool PositiveFinite(double value) {
  return std::isfinite(value) && value > 0;
}
double CleanNoise(double noise) {
  return std::isfinite(noise) && noise > 0 ? noise : 0;
}

constexpr EnumNameTable<CompareRule, 10> kRuleNames = {{
    {CompareRule::kStatus, "status"},
    {CompareRule::kTime, "time"},
    {CompareRule::kMeasuredEnergy, "measured_energy"},
    {CompareRule::kPredictedEnergy, "predicted_energy"},
    {CompareRule::kEnergyWithinNoise, "energy_within_noise"},
    {CompareRule::kPredictedTooClose, "predicted_too_close"},
    {CompareRule::kMixedEnergyBasis, "mixed_energy_basis"},
    {CompareRule::kNoEnergy, "no_energy"},
    {CompareRule::kTimeObjective, "time_objective"},
    {CompareRule::kNeitherVerified, "neither_verified"},
}};

bool ValidEnergy(const std::optional<double>& joules) {
  return joules.has_value() && std::isfinite(*joules) && *joules >= 0;
}

CandidateComparison Decided(double a, double b, CompareRule rule) {
  return {a < b ? -1 : 1, rule};
}

// Rules 1-3 of the header, for two verified evaluations whose times overlap.
CandidateComparison CompareEnergy(const Evaluation& a, const Evaluation& b) {
  bool a_measured = ValidEnergy(a.energy_j), b_measured = ValidEnergy(b.energy_j);
  if (a_measured && b_measured) {
    // The same overlap rule as for times, with the energies' measured noise.
    if (TimesOverlap(*a.energy_j, a.energy_noise_fraction, *b.energy_j, b.energy_noise_fraction)) {
      return {0, CompareRule::kEnergyWithinNoise};
    }
    return Decided(*a.energy_j, *b.energy_j, CompareRule::kMeasuredEnergy);
  }
  bool a_predicted = ValidEnergy(a.predicted_energy_j), b_predicted = ValidEnergy(b.predicted_energy_j);
  if (a_predicted && b_predicted) {
    double larger = std::max(*a.predicted_energy_j, *b.predicted_energy_j);
    if (std::fabs(*a.predicted_energy_j - *b.predicted_energy_j) <= kPredictedEnergyResolution * larger) {
      return {0, CompareRule::kPredictedTooClose};
    }
    return Decided(*a.predicted_energy_j, *b.predicted_energy_j, CompareRule::kPredictedEnergy);
  }
  bool a_any = a_measured || a_predicted, b_any = b_measured || b_predicted;
  return {0, a_any && b_any ? CompareRule::kMixedEnergyBasis : CompareRule::kNoEnergy};
}

}  // namespace

std::string_view ObjectiveName(Objective objective) {
  return objective == Objective::kTime ? "time" : "time+energy";
}

std::optional<Objective> ParseObjective(std::string_view name) {
  if (name == "time") return Objective::kTime;
  if (name == "time+energy" || name == "time-energy" || name == "time_energy") return Objective::kTimeEnergy;
  return std::nullopt;
}

double LogSpeedupReward(double reference_time_s, double time_s) {
  if (!PositiveFinite(reference_time_s) || !PositiveFinite(time_s)) return kFailedReward;
  double reward = std::log(reference_time_s) - std::log(time_s);
  if (!std::isfinite(reward)) return kFailedReward;
  return std::clamp(reward, kFailedReward, kMaxReward);
}

double EvaluationReward(const Evaluation& evaluation, double reference_time_s) {
  if (evaluation.status != NodeStatus::kVerified) return kFailedReward;
  return LogSpeedupReward(reference_time_s, evaluation.time_s);
}

bool TimesOverlap(double time_a_s, double noise_a, double time_b_s, double noise_b) {
  double noise = std::max(CleanNoise(noise_a), CleanNoise(noise_b));
  return std::fabs(time_a_s - time_b_s) <= noise * std::max(time_a_s, time_b_s);
}

std::string_view CompareRuleName(CompareRule rule) {
  return EnumName(kRuleNames, rule);
}

bool RuleDecides(CompareRule rule) {
  return rule == CompareRule::kStatus || rule == CompareRule::kTime || rule == CompareRule::kMeasuredEnergy ||
         rule == CompareRule::kPredictedEnergy;
}

CandidateComparison CompareCandidates(const Evaluation& a, const Evaluation& b, Objective objective) {
  bool a_counts = a.status == NodeStatus::kVerified && PositiveFinite(a.time_s);
  bool b_counts = b.status == NodeStatus::kVerified && PositiveFinite(b.time_s);
  if (a_counts != b_counts) return {a_counts ? -1 : 1, CompareRule::kStatus};
  if (!a_counts) return {0, CompareRule::kNeitherVerified};
  if (!TimesOverlap(a.time_s, a.time_noise_fraction, b.time_s, b.time_noise_fraction)) {
    return Decided(a.time_s, b.time_s, CompareRule::kTime);
  }
  if (objective != Objective::kTimeEnergy) return {0, CompareRule::kTimeObjective};
  return CompareEnergy(a, b);
}

int LexicographicCompare(const Evaluation& a, const Evaluation& b, Objective objective) {
  return CompareCandidates(a, b, objective).order;
}

bool IsBetterCandidate(const Evaluation& a, const Evaluation& b, Objective objective) {
  if (a.status != NodeStatus::kVerified || !PositiveFinite(a.time_s)) return false;
  int comparison = LexicographicCompare(a, b, objective);
  if (comparison != 0) return comparison < 0;
  return a.time_s < b.time_s;
}

}  // namespace kopt
