// Search policies: which node to expand next, and how (docs/search.md).
//
// One interface, one implementation per file: mcts_policy.cc (UCT with
// progressive widening, asymmetric branching, dead-end pruning),
// greedy_policy.cc, beam_policy.cc, random_policy.cc (baselines for
// ablations at equal budget).
//
// The loop, as the caller (the optimize orchestrator, or simulation.h) runs it:
//
//   Proposal p = policy.Propose(tree);
//   if (p.kind == ProposalKind::kExhausted) stop;      // nothing left anywhere
//   if (p.kind == ProposalKind::kWait) wait for an in-flight result;
//   NodeId child = tree.AddChild(p.parent, p.mode, note).value();
//   ... generate, compile, verify, time (possibly concurrently with others) ...
//   tree.Record(child, evaluation);   // or tree.RecordDuplicate(child, owner)
//   policy.OnRecorded(tree, child);   // statistics, pruning, exhaustion
//
// The budget (evaluations, seconds, cost) is the caller's: a policy only says
// what is worth expanding. Several evaluations may be in flight: pending
// children count as children (for widening and child limits) and as virtual
// visits, and a pending node is never proposed as a parent; kWait means every
// open node that could be expanded is waiting on a pending result.
//
// Determinism: Propose is a pure function of (settings, seed, tree). A policy
// keeps no state besides its settings and seed: where it needs randomness it
// seeds a generator from (seed, tree.size()), so the same tree gives the same
// proposal, and a search resumed from a stored tree (SearchTree::FromJson)
// continues exactly as the uninterrupted one would. Call AddChild with a
// proposal before asking for the next one (else the same proposal returns).
//
// Thread safety: a policy is used by one thread (the tree's owner).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "search/search_tree.h"

namespace kopt {

enum class SearchPolicyKind { kMcts, kGreedy, kBeam, kRandom, kSampling };
// "mcts", "greedy", "beam", "random", "sampling".
std::string_view SearchPolicyKindName(SearchPolicyKind kind);
// InvalidInput naming the accepted names for anything else.
Result<SearchPolicyKind> ParseSearchPolicyKind(std::string_view name);
// The accepted names for messages and help: "mcts, greedy, beam or random".
std::string SearchPolicyNameList();

// Plain settings with their defaults (docs/search.md lists them with sources).
struct SearchSettings {
  // MCTS: UCT score of a child = value + exploration · sqrt(ln N_parent / N_child),
  // value = the best log-speedup reward in the child's subtree. UCB1's √2
  // (Auer, Cesa-Bianchi, Fischer 2002; Kocsis & Szepesvári 2006, Cp = 1/√2)
  // assumes rewards spread over [0, 1]; sibling candidates differ by about a
  // quarter of that in log speedup (one optimization step changes the time
  // by 10-30 %), so the constant is scaled by 1/4: √2/4 ≈ 0.35. In the
  // synthetic landscape of simulation_test.cc, √2 left MCTS barely ahead of
  // random (0.95 vs 0.65 mean log speedup at 60 evaluations), 0.1-0.35 did
  // best (1.94-1.98).
  double exploration = 0.35;
  // MCTS progressive widening: a node may gain a child only while
  // children < widening_k · N^widening_alpha (N: its visits plus pending
  // nodes in its subtree). k = 1, α = 0.5 as in Couëtoux et al. 2011
  // ("Continuous Upper Confidence Trees") and the progressive unpruning of
  // Chaslot et al. 2008 ("Progressive strategies for MCTS"): the number of
  // children grows like the square root of the visits.
  double widening_k = 1.0;
  double widening_alpha = 0.5;
  // MCTS asymmetric branching (KernelPro: more children for successful
  // nodes than for failed ones; its numbers are not published — these are
  // kopt's choices, tunable in simulation):
  int max_children_root = 16;          // the reference: initial candidates (and seeds)
  int max_children_improving = 4;      // a verified node better than its nearest verified ancestor
  int max_children_not_improving = 2;  // a verified node that is not
  int max_children_failed = 1;         // a failed node: repairs, until one of them verifies
  int max_children_repaired = 3;       // a failed node once a repair verified ("full width")
  // MCTS: a failed node that ends a chain of this many consecutive failures
  // (itself and its failed ancestors up to the nearest verified one) gets no
  // repair child: the chain is closed (a generator that keeps failing costs
  // at most this many evaluations per branch; kopt's choice).
  int max_consecutive_failures = 3;
  // MCTS dead-end pruning: a non-root node whose subtree has seen this many
  // evaluations (failed, duplicate or verified) without improving on its
  // best is closed, unless it lies on the path to the best candidate (the
  // incumbent's lineage is bounded by the child limits instead; pruning it
  // cut MCTS's result in simulation by 40 %). kopt's choice: 1.5 ×
  // max_children_improving.
  int prune_after = 6;
  // Beam: how many of the best open verified nodes form the beam.
  int beam_width = 4;
  // Greedy, beam and random: the child limit of any node (a failed node gets
  // one repair, and a failed repair none, whatever this says).
  int baseline_max_children = 8;
};

// InvalidInput naming the field for k <= 0, alpha outside (0, 1],
// exploration < 0 or not finite, or any count (child limits,
// max_consecutive_failures, prune_after, beam_width) < 1.
Status ValidateSearchSettings(const SearchSettings& settings);

enum class ProposalKind {
  kExpand,     // add a child of `parent` with `mode`
  kWait,       // nothing expandable until a pending evaluation is recorded
  kExhausted,  // every node is closed or at its limit and nothing is pending
};

struct Proposal {
  ProposalKind kind = ProposalKind::kExhausted;
  NodeId parent = 0;
  GenerationMode mode = GenerationMode::kOptimize;  // root → kInitial, verified → kOptimize, failed → kRepair
  std::string reason;  // why this parent, for logs and the report ("uct 0.83", "best", "repair")
};

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;
  virtual SearchPolicyKind kind() const = 0;
  // The next expansion (see the file comment). Precondition: the root is
  // recorded. Never fails: a tree whose root did not verify is kExhausted.
  virtual Proposal Propose(const SearchTree& tree) const = 0;
  // Called after every Record/RecordDuplicate of `node`: may close nodes
  // (pruning, exhaustion). The tree's own statistics are already updated.
  virtual void OnRecorded(SearchTree& tree, NodeId node) const = 0;
};

// InvalidInput when the settings do not validate.
Result<std::unique_ptr<SearchPolicy>> MakeSearchPolicy(SearchPolicyKind kind, const SearchSettings& settings,
                                                       uint64_t seed);

// The policies as data: adding one is its file with its factory, a
// SearchPolicyKind value and one row of SearchPolicyTable() (search_policy.cc);
// names, parsing, the factory and the help derive from the table, and
// search_policy_test checks it holds every kind once.
struct SearchPolicyEntry {
  SearchPolicyKind kind;
  std::string_view name;  // the --search value
  std::string_view help;  // one line: what the policy does
  std::unique_ptr<SearchPolicy> (*make)(const SearchSettings& settings, uint64_t seed);
};
std::span<const SearchPolicyEntry> SearchPolicyTable();

// One factory per implementation, each in its own file. Preconditions: valid settings.
std::unique_ptr<SearchPolicy> MakeMctsPolicy(const SearchSettings& settings, uint64_t seed);
std::unique_ptr<SearchPolicy> MakeGreedyPolicy(const SearchSettings& settings, uint64_t seed);
std::unique_ptr<SearchPolicy> MakeBeamPolicy(const SearchSettings& settings, uint64_t seed);
std::unique_ptr<SearchPolicy> MakeRandomPolicy(const SearchSettings& settings, uint64_t seed);
// Independent samples: every proposal an initial child of the reference (sampling_policy.cc).
std::unique_ptr<SearchPolicy> MakeSamplingPolicy(const SearchSettings& settings, uint64_t seed);

// MCTS's rules (mcts_policy.cc), exposed for tests and the report:
// How many children progressive widening allows a node with `visits` visits
// (N, pending nodes of its subtree included): the number of counts c >= 0
// with c < k·N^α, i.e. ceil(k·N^α). When widening blocks every open node, MCTS
// expands as if it did not (only the hard limits below apply), so that
// evaluations never stall: widening orders the expansions, the limits bound them.
int64_t WideningChildLimit(const SearchSettings& settings, int64_t visits);
// The asymmetric-branching (hard) limit of a node's children: the root
// max_children_root; a verified node max_children_improving when
// SearchTree::Improved, else max_children_not_improving; a failed node
// max_children_repaired once one of its children verified, else
// max_children_failed, or 0 when it ends max_consecutive_failures consecutive
// failures; a pending or duplicate node 0.
int MctsChildLimit(const SearchTree& tree, NodeId id, const SearchSettings& settings);

// The mode a child of `parent` gets: kInitial under the root, kRepair under a
// failed node, kOptimize under a verified one.
GenerationMode ChildModeFor(const SearchTree& tree, NodeId parent);

}  // namespace kopt
