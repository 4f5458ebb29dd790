// The tree of candidates the search grows (docs/search.md "The tree").
//
// Node 0 is the root: the reference (or a seed standing in for it), created
// by AddRoot and recorded first; every reward is relative to its time. Each
// other node is one candidate, created pending by AddChild(parent, mode,
// note) when a policy proposes an expansion, and finished by exactly one of
// Record (it was evaluated) or RecordDuplicate (it is a transposition of an
// earlier node and is not evaluated again). Ids are dense: id == index in
// nodes(), in creation order; iteration over nodes and over children is in
// creation order, so everything derived from a tree is deterministic.
//
// Statistics kept by the tree (the same for every policy), updated on every
// Record / RecordDuplicate for the node and each of its ancestors:
//   visits                       +1 (a failed evaluation and a duplicate count
//                                as visits: each cost a generation)
//   subtree_value_log_speedup    max reward over the evaluated nodes of the
//                                subtree (duplicates excluded)
//   best_in_subtree              the best verified node of the subtree
//                                (IsBetterCandidate, reward.h)
//   expansions_since_improvement 0 when the new node is LexicographicCompare-
//                                better than the previous best_in_subtree,
//                                else +1 (not counted on the node itself)
//   pending_in_subtree           pending nodes below and at the node (virtual
//                                visits for concurrent evaluations)
//
// Transpositions: a node carries keys (transposition_key.h: the hash of its
// normalized source, of its compiled binary). The first node to register a
// key owns it; FindTransposition(key) returns the owner, pending or finished
// (two concurrent generations of the same source: the second is a duplicate
// of the first, whose result arrives later). The integrator, once the
// generator returned the source and again once it compiled, asks
// FindTransposition and, on a hit, calls RecordDuplicate(node, owner) instead
// of spending an evaluation. How a duplicate is linked: it stays a child of
// the parent that generated it (the report shows what that parent produced),
// with status kDuplicate, duplicate_of = the owner, closed (reason
// kDuplicate), no keys, no time, reward kFailedReward and no contribution to
// any subtree value (the owner's result lives once, in the owner's subtree);
// it counts as a visit and as a non-improving expansion of its ancestors, so
// a parent that keeps producing the same code is widened less and pruned.
// Record also registers Evaluation::transposition_keys (keys already owned by
// another node are kept on the node but do not change the owner).
//
// Closing: Close(node, reason) closes the node and its whole subtree (the
// descendants get kAncestorClosed). Policies never expand a closed node; a
// pending node that is closed is still recorded when its result arrives.
//
// JSON (ToJson/FromJson): {"schema": "kopt.search_tree", "schema_version": 1,
// "objective", "reference_time_s", "nodes": [...]}, every number's unit in its
// key (time_s, time_noise_fraction, energy_j, predicted_energy_j, reward_log_speedup, visits, ...);
// FromJson validates ids, parents and children and restores every statistic,
// so a resumed search continues the same tree (pending nodes stay pending:
// the caller redoes or adopts them).
//
// Thread safety: none; one thread owns a tree (the loop's orchestrator).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "search/evaluation.h"
#include "search/reward.h"

namespace kopt {

using NodeId = int64_t;

enum class CloseReason {
  kNone,            // open
  kPruned,          // dead end: no improvement in SearchSettings::prune_after expansions
  kExhausted,       // reached its child limit and every child is closed
  kDuplicate,       // a transposition of an earlier node
  kAncestorClosed,  // an ancestor was closed
  kCaller,          // closed by the caller (e.g. a branch the user or the orchestrator gave up)
};
// "", "pruned", "exhausted", "duplicate", "ancestor_closed", "caller".
std::string_view CloseReasonName(CloseReason reason);
std::optional<CloseReason> ParseCloseReason(std::string_view name);

struct SearchNode {
  NodeId id = 0;
  std::optional<NodeId> parent;  // nullopt for the root
  std::vector<NodeId> children;  // creation order; pending children included
  GenerationMode mode = GenerationMode::kInitial;
  NodeStatus status = NodeStatus::kPending;
  std::string note;  // what motivated the node (e.g. the finding id), free text

  // The evaluation (meaningful once status is final and not kDuplicate).
  double time_s = 0;
  double time_noise_fraction = 0;
  std::optional<double> energy_j;  // measured dynamic energy per launch (J), evaluation.h
  double energy_noise_fraction = 0;
  std::optional<double> predicted_energy_j;  // the proxy model's (J); may arrive after Record
  std::string detail;                        // failure / rejection text
  double reward_log_speedup = 0;             // EvaluationReward; kFailedReward for duplicates
  int64_t record_sequence = -1;              // order of Record/RecordDuplicate (0, 1, ...); -1 while pending

  // Statistics (see the file comment).
  int64_t visits = 0;
  double subtree_value_log_speedup = kFailedReward;
  std::optional<NodeId> best_in_subtree;
  int64_t expansions_since_improvement = 0;
  int64_t pending_in_subtree = 0;

  bool closed = false;
  CloseReason close_reason = CloseReason::kNone;
  std::optional<NodeId> duplicate_of;
  std::vector<std::string> transposition_keys;

  bool pending() const { return status == NodeStatus::kPending; }
  bool verified() const { return status == NodeStatus::kVerified; }
  // The node's result as an Evaluation (for reward.h comparisons).
  Evaluation AsEvaluation() const;
  // Every field equal (the run state's journal writes the nodes that changed).
  bool operator==(const SearchNode&) const = default;
};

class SearchTree {
 public:
  explicit SearchTree(Objective objective = Objective::kTime);

  // Creates the root (id 0, mode kInitial, pending). InvalidInput when the
  // tree already has one.
  Result<NodeId> AddRoot(std::string note);
  // Creates a pending child of `parent`. InvalidInput when the parent does
  // not exist, is pending or a duplicate, or when the root has not been
  // recorded as verified (rewards need the reference time). A closed parent
  // is allowed (the caller decides; policies never propose one).
  Result<NodeId> AddChild(NodeId parent, GenerationMode mode, std::string note);
  // Finishes a pending node with its evaluation and updates the statistics.
  // InvalidInput when the node does not exist or is not pending, when the
  // status is kPending or kDuplicate, or when a verified time is not positive
  // and finite. Recording the root sets the reference time (a root that does
  // not verify is recorded; AddChild then refuses).
  Status Record(NodeId node, const Evaluation& evaluation);
  // Finishes a pending node as a duplicate of `original` (see the file
  // comment). InvalidInput when either does not exist, the node is not
  // pending, the node is the root, or original == node.
  Status RecordDuplicate(NodeId node, NodeId original);
  // Registers a key for a node (pending or finished). A key owned by another
  // node is InvalidInput (ask FindTransposition first); by the same node, OK.
  Status AddTranspositionKey(NodeId node, const std::string& key);
  // The node that owns `key`, or nullopt.
  std::optional<NodeId> FindTransposition(const std::string& key) const;
  // Sets (or with nullopt clears) a finished node's predicted energy: the
  // proxy model's value usually arrives after Record, once the node was
  // profiled. Re-derives every best_in_subtree (other statistics stay).
  // InvalidInput for an unknown or pending node.
  Status SetPredictedEnergy(NodeId node, std::optional<double> joules);
  // Closes the node and its subtree (descendants: kAncestorClosed). A node
  // already closed keeps its first reason. InvalidInput for an unknown node
  // or reason kNone.
  Status Close(NodeId node, CloseReason reason);

  Objective objective() const { return objective_; }
  // The reference time (the root's), or 0 before the root is recorded verified.
  double reference_time_s() const { return reference_time_s_; }
  bool empty() const { return nodes_.empty(); }
  int64_t size() const { return static_cast<int64_t>(nodes_.size()); }
  bool Contains(NodeId id) const { return id >= 0 && id < size(); }
  // Precondition: Contains(id).
  const SearchNode& node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  const std::vector<SearchNode>& nodes() const { return nodes_; }

  // Counts: finished nodes that were evaluated (Record, the root included),
  // duplicates, pending nodes.
  int64_t evaluated_count() const { return evaluated_count_; }
  int64_t duplicate_count() const { return duplicate_count_; }
  int64_t pending_count() const;
  std::vector<NodeId> PendingNodes() const;  // id order

  // The best verified node of the whole tree (the root included), by
  // IsBetterCandidate; never a rejected one. nullopt when nothing verified.
  std::optional<NodeId> BestNode() const;
  // What decided the best: the best node, the runner-up (the best of the
  // other verified nodes, by the same scan) and CompareCandidates(best,
  // runner-up). nullopt when nothing is verified; no runner-up when the best
  // is the only verified node.
  struct BestChoice {
    NodeId best = 0;
    std::optional<NodeId> runner_up;
    CandidateComparison comparison;
  };
  std::optional<BestChoice> ExplainBest() const;
  // The speedup of the best node over the reference (1.0 when the best is
  // the reference; 0 when the root is not verified).
  double BestSpeedup() const;
  // The closest verified proper ancestor (nullopt for the root or when none).
  std::optional<NodeId> NearestVerifiedAncestor(NodeId id) const;
  // True when the node is verified and LexicographicCompare-better than its
  // nearest verified ancestor (the root: never).
  bool Improved(NodeId id) const;
  // True when some verified node is among the node's children.
  bool HasVerifiedChild(NodeId id) const;
  // The ids from the root to `id`, root first.
  std::vector<NodeId> PathFromRoot(NodeId id) const;

  nlohmann::json ToJson() const;
  // One element of ToJson()'s "nodes" (the run state's journal stores changed nodes one by one).
  static nlohmann::json NodeToJson(const SearchNode& node);
  // InvalidInput (naming the node and field) for a malformed document or a
  // schema_version other than 1.
  static Result<SearchTree> FromJson(const nlohmann::json& json);

 private:
  SearchNode& mutable_node(NodeId id) { return nodes_[static_cast<size_t>(id)]; }
  Status CheckPending(NodeId id, std::string_view doing) const;
  void AdjustPending(NodeId id, int64_t delta);
  void BackUp(NodeId id, bool evaluated);
  void RegisterKeys(NodeId id, const std::vector<std::string>& keys);

  Objective objective_;
  double reference_time_s_ = 0;
  std::vector<SearchNode> nodes_;
  std::map<std::string, NodeId> key_owners_;
  int64_t evaluated_count_ = 0;
  int64_t duplicate_count_ = 0;
  int64_t next_record_sequence_ = 0;
};

}  // namespace kopt
