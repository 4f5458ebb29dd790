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
// side's measured relative noise); within the overlap, under kTimeEnergy, the
// lower energy wins when both sides have one. Only verified evaluations take
// part: a verified evaluation beats any other status, and a rejected
// (suspect) one is never better than anything, so it never becomes the best.
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

// The lexicographic comparison: < 0 when `a` is better, > 0 when `b` is
// better, 0 when they tie (both not verified; or times overlap and energy does
// not decide). Not transitive (overlap is not); use IsBetterCandidate to pick
// a best by a scan.
int LexicographicCompare(const Evaluation& a, const Evaluation& b, Objective objective);

// LexicographicCompare < 0, or a tie broken by the lower median time: what
// "the best candidate" means. False when `a` is not verified.
bool IsBetterCandidate(const Evaluation& a, const Evaluation& b, Objective objective);

}  // namespace kopt
