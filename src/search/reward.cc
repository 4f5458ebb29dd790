#include "search/reward.h"

#include <algorithm>
#include <cmath>

namespace kopt {
namespace {

bool PositiveFinite(double value) {
  return std::isfinite(value) && value > 0;
}
double CleanNoise(double noise) {
  return std::isfinite(noise) && noise > 0 ? noise : 0;
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

int LexicographicCompare(const Evaluation& a, const Evaluation& b, Objective objective) {
  bool a_counts = a.status == NodeStatus::kVerified && PositiveFinite(a.time_s);
  bool b_counts = b.status == NodeStatus::kVerified && PositiveFinite(b.time_s);
  if (a_counts != b_counts) return a_counts ? -1 : 1;
  if (!a_counts) return 0;
  if (!TimesOverlap(a.time_s, a.time_noise_fraction, b.time_s, b.time_noise_fraction)) {
    return a.time_s < b.time_s ? -1 : 1;
  }
  bool both_energies = a.energy_j && b.energy_j && std::isfinite(*a.energy_j) && std::isfinite(*b.energy_j);
  if (objective == Objective::kTimeEnergy && both_energies && *a.energy_j != *b.energy_j) {
    return *a.energy_j < *b.energy_j ? -1 : 1;
  }
  return 0;
}

bool IsBetterCandidate(const Evaluation& a, const Evaluation& b, Objective objective) {
  if (a.status != NodeStatus::kVerified || !PositiveFinite(a.time_s)) return false;
  int comparison = LexicographicCompare(a, b, objective);
  if (comparison != 0) return comparison < 0;
  return a.time_s < b.time_s;
}

}  // namespace kopt
