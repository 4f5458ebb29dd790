// MCTS: UCT selection on the best log-speedup reward of each subtree, with
// progressive widening, asymmetric branching and dead-end pruning
// (search_policy.h, docs/search.md "MCTS").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "search/policy_support.h"
#include "search/search_policy.h"

namespace kopt {
namespace {

class MctsPolicy : public SearchPolicy {
 public:
  // UCT is deterministic (ties go to the older child): no seed is needed.
  explicit MctsPolicy(const SearchSettings& settings) : settings_(settings) {}

  SearchPolicyKind kind() const override { return SearchPolicyKind::kMcts; }

  Proposal Propose(const SearchTree& tree) const override {
    if (!RootUsable(tree)) return NothingToExpand(tree);
    bool widening = true;
    std::vector<bool> available = AvailableNodes(tree, widening);
    if (!available[0]) {
      widening = false;  // widening blocks every open node: the hard limits alone decide
      available = AvailableNodes(tree, widening);
    }
    if (!available[0]) return NothingToExpand(tree);
    NodeId at = 0;
    while (!CanExpand(tree, at, widening)) at = SelectChild(tree, at, available);
    return ExpandProposal(
        tree, at,
        fmt::format("uct{}: value {:.3f}, {} visits, {} children", widening ? "" : " (past widening)",
                    tree.node(at).subtree_value_log_speedup, EffectiveVisits(tree, at),
                    tree.node(at).children.size()));
  }

  void OnRecorded(SearchTree& tree, NodeId node) const override {
    if (!tree.Contains(node)) return;
    std::optional<NodeId> best = tree.BestNode();
    std::vector<NodeId> incumbent_path = best ? tree.PathFromRoot(*best) : std::vector<NodeId>{};
    for (std::optional<NodeId> at = node; at; at = tree.node(*at).parent) {
      if (tree.node(*at).closed) continue;
      bool on_incumbent_path =
          std::find(incumbent_path.begin(), incumbent_path.end(), *at) != incumbent_path.end();
      if (!on_incumbent_path && tree.node(*at).expansions_since_improvement >= settings_.prune_after) {
        (void)tree.Close(*at, CloseReason::kPruned);
      } else if (Exhausted(tree, *at)) {
        (void)tree.Close(*at, CloseReason::kExhausted);
      }
    }
  }

 private:
  // Visits plus pending nodes in the subtree: in-flight evaluations count as
  // (virtual) visits, so concurrent proposals spread instead of piling up.
  static int64_t EffectiveVisits(const SearchTree& tree, NodeId id) {
    return tree.node(id).visits + tree.node(id).pending_in_subtree;
  }

  bool CanExpand(const SearchTree& tree, NodeId id, bool widening) const {
    if (!IsOpenParent(tree, id)) return false;
    const SearchNode& node = tree.node(id);
    int64_t children = static_cast<int64_t>(node.children.size());
    if (children >= MctsChildLimit(tree, id, settings_)) return false;
    return !widening || children < WideningChildLimit(settings_, EffectiveVisits(tree, id));
  }

  bool Exhausted(const SearchTree& tree, NodeId id) const {
    const SearchNode& node = tree.node(id);
    if (node.pending() || node.pending_in_subtree > 0) return false;
    if (static_cast<int>(node.children.size()) < MctsChildLimit(tree, id, settings_)) return false;
    for (NodeId child : node.children) {
      if (!tree.node(child).closed) return false;
    }
    return true;
  }

  // available[id]: the node is open and it, or a node below it, can be expanded now.
  std::vector<bool> AvailableNodes(const SearchTree& tree, bool widening) const {
    std::vector<bool> available(static_cast<size_t>(tree.size()), false);
    for (NodeId id = tree.size() - 1; id >= 0; --id) {  // children have larger ids than parents
      if (!IsOpenParent(tree, id)) continue;
      bool below = false;
      for (NodeId child : tree.node(id).children) below = below || available[static_cast<size_t>(child)];
      available[static_cast<size_t>(id)] = below || CanExpand(tree, id, widening);
    }
    return available;
  }

  // The available child with the highest UCT score; ties go to the older child.
  NodeId SelectChild(const SearchTree& tree, NodeId id, const std::vector<bool>& available) const {
    double log_visits = std::log(static_cast<double>(std::max<int64_t>(EffectiveVisits(tree, id), 1)));
    std::optional<NodeId> chosen;
    double chosen_score = 0;
    for (NodeId child : tree.node(id).children) {
      if (!available[static_cast<size_t>(child)]) continue;
      double visits = static_cast<double>(std::max<int64_t>(EffectiveVisits(tree, child), 1));
      double score =
          tree.node(child).subtree_value_log_speedup + settings_.exploration * std::sqrt(log_visits / visits);
      if (!chosen || score > chosen_score) {
        chosen = child;
        chosen_score = score;
      }
    }
    return *chosen;  // available[id] without CanExpand(id) implies an available child
  }

  SearchSettings settings_;
};

int ConsecutiveFailures(const SearchTree& tree, NodeId id) {
  int failures = 0;
  for (std::optional<NodeId> at = id; at && IsFailure(tree.node(*at).status); at = tree.node(*at).parent)
    ++failures;
  return failures;
}

}  // namespace

int64_t WideningChildLimit(const SearchSettings& settings, int64_t visits) {
  if (visits <= 0) return 0;
  double limit = settings.widening_k * std::pow(static_cast<double>(visits), settings.widening_alpha);
  return static_cast<int64_t>(std::ceil(limit));
}

int MctsChildLimit(const SearchTree& tree, NodeId id, const SearchSettings& settings) {
  if (!tree.Contains(id)) return 0;
  const SearchNode& node = tree.node(id);
  if (id == 0) return node.verified() ? settings.max_children_root : 0;
  if (node.verified()) {
    return tree.Improved(id) ? settings.max_children_improving : settings.max_children_not_improving;
  }
  if (!IsFailure(node.status)) return 0;
  if (tree.HasVerifiedChild(id)) return settings.max_children_repaired;
  return ConsecutiveFailures(tree, id) >= settings.max_consecutive_failures ? 0
                                                                            : settings.max_children_failed;
}

std::unique_ptr<SearchPolicy> MakeMctsPolicy(const SearchSettings& settings, uint64_t /*seed*/) {
  return std::make_unique<MctsPolicy>(settings);
}

}  // namespace kopt
