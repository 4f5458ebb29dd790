// A CPU-only driver that runs a search policy against an evaluator callback
// for a budget of evaluations: the tests' synthetic landscapes now, the
// builtin generator's simulation mode over measured spaces later (replaying
// an exhaustively measured cache: the evaluator looks the child's
// configuration up instead of measuring).
//
// The driver runs the loop of search_policy.h with `concurrency` evaluations
// in flight: it fills the in-flight set with proposals (AddChild), then
// completes the oldest (FIFO): calls the evaluator for it, and when one of
// the returned transposition keys is already owned by another node records
// the child as that node's duplicate (no evaluation spent), else records the
// evaluation; then OnRecorded. It stops when `max_evaluations` evaluations
// (duplicates excluded) are recorded, when the policy is exhausted, or when
// `max_nodes` nodes exist (a guard against a generator that only repeats).
//
// Thread safety: runs on the calling thread; the evaluator is called there.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "core/status.h"
#include "search/search_policy.h"
#include "search/search_tree.h"

namespace kopt {

// Evaluates the pending node `node` of `tree` (its parent, mode and note are
// set; the parent is finished). The returned status must be final and not
// kDuplicate. `rng` is the driver's generator (seeded by SimulationSettings).
using SimulatedEvaluator =
    std::function<Evaluation(const SearchTree& tree, NodeId node, std::mt19937_64& rng)>;

struct SimulationSettings {
  int64_t max_evaluations = 60;  // evaluations recorded after the root (duplicates excluded)
  int concurrency = 1;           // evaluations in flight at once (>= 1)
  uint64_t seed = 0;             // the evaluator's generator
  int64_t max_nodes = 0;         // 0: 4 · max_evaluations + 16
};

struct SimulationResult {
  SearchTree tree;
  // best_speedup[i]: the best speedup over the reference (BestSpeedup) after
  // i + 1 evaluations (duplicates excluded); 1.0 until something beats it.
  std::vector<double> best_speedup;
  int64_t evaluations = 0;  // recorded after the root, duplicates excluded
  bool exhausted = false;   // the policy had nothing left before the budget
};

// Records `reference` as the root and runs the loop. InvalidInput when the
// reference is not verified, the settings are invalid, or the evaluator
// returns a status the tree refuses (the message names the node).
Result<SimulationResult> Simulate(const SearchPolicy& policy, Objective objective,
                                  const Evaluation& reference, const SimulatedEvaluator& evaluate,
                                  const SimulationSettings& settings);

}  // namespace kopt
