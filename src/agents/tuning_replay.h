// Simulation mode of the builtin generator (docs/tuning.md "Simulation"):
// replays a fully measured space (an exhaustive Kernel Tuner cache,
// search/kernel_tuner_cache.h) through the search layer (search/simulation.h)
// so that every search policy and move ordering can be compared on a CPU,
// the way Kernel Tuner compares its strategies (Willemsen, Schoonhoven, van
// Werkhoven et al., "A methodology for comparing optimization algorithms
// for auto-tuning", FGCS 2024).
//
// A replayed evaluation looks the generated configuration up instead of
// measuring it: its time, status and findings come from the cache; the
// findings of a node's parent are what the generator is shown. The root is
// the reference (its time from the cache header, else the slowest verified
// configuration).
//
// Scores, per strategy, over `repeats` runs with different seeds (means over
// the runs of the best time found after n unique evaluations):
//   random_budget  the smallest n at which random search's mean best time is
//                  within 4 % of the optimum (capped at max_evaluations);
//   score          (random(B) − strategy(B)) / (random(B) − optimum) at that
//                  budget B: 0 = as good as random, 1 = the optimum;
//   fraction_at    optimum / mean best time after each of `checkpoints`;
//   evaluations_to_95  the first n at which optimum / mean best ≥ 0.95
//                  (nullopt: not within max_evaluations).
//
// Thread safety: pure functions of their arguments (each run owns its generator).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agents/builtin_generator.h"
#include "core/status.h"
#include "harness/tuning_space.h"
#include "search/search_policy.h"
#include "search/kernel_tuner_cache.h"

namespace kopt::agents {

struct MeasuredSpace {
  std::string label;       // "gelu on NVIDIA H200", or "synthetic: ..."
  bool synthetic = false;  // never report a synthetic space's numbers as results
  TuningSpace space;
  std::map<std::string, KernelTunerCacheEntry> results;  // by configuration key, every valid configuration
  double reference_time_s = 0;
  double optimum_time_s = 0;  // the fastest verified result
};

// Checks that `cache` covers every valid configuration of `space` (with the
// same parameter names in the same order). InvalidInput naming the label:
// different parameters, a valid configuration without a result ("not
// exhaustive: 12 of 40 configurations measured; first missing: 256,4"), or
// no verified result.
Result<MeasuredSpace> MeasuredSpaceFromCache(const KernelTunerCache& cache, TuningSpace space,
                                             std::string label);

struct ReplayStrategy {
  std::string name;  // "guided+mcts"
  SearchPolicyKind policy = SearchPolicyKind::kMcts;
  MoveOrdering ordering = MoveOrdering::kGuided;
};
// Guided and unguided moves under MCTS, greedy and beam; random search
// (uniform sampling without replacement, under the random policy).
std::vector<ReplayStrategy> DefaultReplayStrategies();

struct ReplaySettings {
  int repeats = 100;
  int64_t max_evaluations = 60;
  std::vector<int64_t> checkpoints = {10, 20, 40};
  double within_optimum = 0.04;  // random search's budget: within 4 % of the optimum
  SearchSettings search;
  uint64_t seed = 1;
};

// The best time after each unique evaluation (size ≤ max_evaluations; the
// run may end early when the space or the policy is exhausted: the last
// value then stands for the rest).
Result<std::vector<double>> ReplayRun(const MeasuredSpace& measured, const ReplayStrategy& strategy,
                                      const ReplaySettings& settings, uint64_t seed);

struct StrategyScore {
  std::string name;
  double score = 0;
  std::vector<double> fraction_at;  // per checkpoint
  std::optional<int64_t> evaluations_to_95;
  std::vector<double> mean_best_s;  // per evaluation count 1..max_evaluations
};

struct ReplayComparison {
  std::string label;
  bool synthetic = false;
  size_t configurations = 0;
  double optimum_time_s = 0;
  int64_t random_budget = 0;
  bool random_reached = false;  // random search got within the margin inside max_evaluations
  std::vector<StrategyScore> strategies;
};

// Runs every strategy `repeats` times. The strategies must include one
// with ordering kRandomSearch (the baseline of the score): InvalidInput otherwise.
Result<ReplayComparison> CompareStrategies(const MeasuredSpace& measured,
                                           const std::vector<ReplayStrategy>& strategies,
                                           const ReplaySettings& settings);

// A synthetic measured space for tests and for exercising the simulation
// before real caches exist (labelled "synthetic: ..."; its numbers are not
// results). Each parameter has a hidden best value index; the time grows
// with the distance from it (a separable, rugged landscape drawn from
// `seed`), and each configuration's findings name, with probability
// `finding_accuracy`, a tool whose move points toward the best value of its
// worst parameter (else a random tool of the move table).
Result<MeasuredSpace> SyntheticMeasuredSpace(std::string_view tunable_source, uint64_t seed,
                                             double finding_accuracy = 0.7);

}  // namespace kopt::agents
