// The search's reward and the lexicographic order of candidates
// (docs/search.md "Reward").
//
// Reward (a scalar the policies maximize): the log speedup over the reference,
// log(reference_time_s / time_s). A log reward keeps one outlier (a 50x
// candidate) from dominating the averages and confidence bounds of the search
// (KernelPro's "log-reward calibration"); a speedup s and a slowdown 1/s are
// symmetric around 0.
//
// Failed nodes (failed_generate/compile/check/run, rejected) get the constant
// kFailedReward = log(0.5): "worth as much as a correct candidate twice as slow
// as the reference". Why this value: it is below every candidate a search would
// keep (rewards near 0 or above), so a failure never outranks a working sibling
// of reasonable speed; it is bounded, so one failure does not drown a subtree
// whose value is the best result in it; and it is the same for every kind of
// failure so that a rejected cheat is never worth more than a crash. A
// verified candidate is never worth less than a failure: its reward is
// clamped to [kFailedReward, kMaxReward] (a correct 10x-slower kernel is still
// a base to repair from; the clamp also keeps the reward finite for absurd
// times). Never NaN, never infinite: a verified evaluation whose time is not
// a positive finite number, or a reference time that is not, is rewarded as a
// failure.
//
// Lexicographic order (KernelPro's energy-aware reward): time first; two
// times overlap when |ta − tb| <= max(noise_a, noise_b) · max(ta, tb) (each
// side's measured relative noise). Only verified evaluations take part: a
// verified evaluation beats any other status, and a rejected (suspect) one is
// never better than anything, so it never becomes the best.
//
// Within the overlap, under kTimeEnergy, energy decides on ONE basis, never a
// measured value on one side against a predicted one on the other:
//   1. both sides have a measured dynamic energy (Evaluation::energy_j): the
//      lower wins, unless the two overlap within their measured energy noise
//      (the rule above with energy_noise_fraction): then energy does not decide;
//   2. else both sides have a predicted dynamic energy (predicted_energy_j,
//      the proxy model from their profiles): the lower wins when they differ
//      by more than kPredictedEnergyResolution of the larger (the model's
//      resolution; closer predictions do not decide);
//   3. else (one side measured and the other only predicted, or a side with
//      neither) energy does not decide, and CompareCandidates says why
//      (kMixedEnergyBasis / kNoEnergy) so that reports can say so.
// Under kTime energy never decides. When nothing decides the comparison is a
// tie (0); IsBetterCandidate breaks it by the lower median time.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "search/evaluation.h"

namespace kopt {

// What "better" means: time alone, or time with energy breaking ties.
enum class Objective { kTime, kTimeEnergy };
std::string_view ObjectiveName(Objective objective);  // "time", "time+energy"
// Accepts "time", "time+energy" (also "time-energy", "time_energy").
std::optional<Objective> ParseObjective(std::string_view name);

inline constexpr double kFailedReward = -0.69314718055994530942;  // log(0.5)
inline constexpr double kMaxReward = 13.815510557964274;          // log(1e6)

// log(reference_time_s / time_s) clamped to [kFailedReward, kMaxReward];
// kFailedReward when either time is not positive and finite.
double LogSpeedupReward(double reference_time_s, double time_s);

// The reward of a finished evaluation: LogSpeedupReward for kVerified,
// kFailedReward for every other status.
double EvaluationReward(const Evaluation& evaluation, double reference_time_s);

// True when the two times lie within each other's measured noise (rule above).
// Noise below 0 or not finite counts as 0.
bool TimesOverlap(double time_a_s, double noise_a, double time_b_s, double noise_b);

// Within this relative difference two predicted energies do not decide (rule 2).
inline constexpr double kPredictedEnergyResolution = 0.01;

// What settled a comparison (rules above).
enum class CompareRule {
  kStatus,             // one side verified (with a valid time), the other not
  kTime,               // times outside each other's noise
  kMeasuredEnergy,     // rule 1: lower measured dynamic energy
  kPredictedEnergy,    // rule 2: lower predicted dynamic energy
  kEnergyWithinNoise,  // a tie: both measured, within the energy noise
  kPredictedTooClose,  // a tie: both predicted, within kPredictedEnergyResolution
  kMixedEnergyBasis,   // a tie: one side measured, the other only predicted
  kNoEnergy,           // a tie: a side without any energy
  kTimeObjective,      // a tie: times overlap and the objective is time alone
  kNeitherVerified,    // a tie: neither side counts
};
// "status", "time", "measured_energy", "predicted_energy",
// "energy_within_noise", "predicted_too_close", "mixed_energy_basis",
// "no_energy", "time_objective", "neither_verified".
std::string_view CompareRuleName(CompareRule rule);
// True for the rules that decide (kStatus, kTime, kMeasuredEnergy, kPredictedEnergy).
bool RuleDecides(CompareRule rule);

struct CandidateComparison {
  int order = 0;  // < 0: a is better, > 0: b is better, 0: a tie
  CompareRule rule = CompareRule::kNeitherVerified;
};

// The lexicographic comparison with the rule that settled it.
CandidateComparison CompareCandidates(const Evaluation& a, const Evaluation& b, Objective objective);

// CompareCandidates(...).order: < 0 when `a` is better, > 0 when `b` is
// better, 0 when they tie. Not transitive (overlap is not); use
// IsBetterCandidate to pick a best by a scan.
int LexicographicCompare(const Evaluation& a, const Evaluation& b, Objective objective);

// LexicographicCompare < 0, or a tie broken by the lower median time: what
// "the best candidate" means. False when `a` is not verified.
bool IsBetterCandidate(const Evaluation& a, const Evaluation& b, Objective objective);

}  // namespace kopt
