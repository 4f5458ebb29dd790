#include "search/policy_support.h"

namespace kopt {
namespace {

uint64_t SplitMix64(uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

}  // namespace

bool IsOpenParent(const SearchTree& tree, NodeId id) {
  const SearchNode& node = tree.node(id);
  return !node.closed && !node.pending() && node.status != NodeStatus::kDuplicate;
}

bool RootUsable(const SearchTree& tree) {
  return !tree.empty() && tree.node(0).verified() && tree.reference_time_s() > 0;
}

int BaselineChildLimit(const SearchTree& tree, NodeId id, const SearchSettings& settings) {
  const SearchNode& node = tree.node(id);
  if (IsFailure(node.status)) return node.mode == GenerationMode::kRepair ? 0 : 1;
  return settings.baseline_max_children;
}

std::vector<NodeId> NodesAwaitingRepair(const SearchTree& tree, const SearchSettings& settings) {
  std::vector<NodeId> awaiting;
  for (NodeId id = tree.size() - 1; id >= 0; --id) {
    const SearchNode& node = tree.node(id);
    if (!IsFailure(node.status) || !IsOpenParent(tree, id)) continue;
    if (static_cast<int>(node.children.size()) < BaselineChildLimit(tree, id, settings))
      awaiting.push_back(id);
  }
  return awaiting;
}

std::vector<NodeId> ExpandableVerifiedNodes(const SearchTree& tree, const SearchSettings& settings) {
  std::vector<NodeId> expandable;
  for (const SearchNode& node : tree.nodes()) {
    if (!node.verified() || !IsOpenParent(tree, node.id)) continue;
    if (static_cast<int>(node.children.size()) < BaselineChildLimit(tree, node.id, settings)) {
      expandable.push_back(node.id);
    }
  }
  return expandable;
}

std::vector<NodeId> BestNodes(const SearchTree& tree, std::vector<NodeId> candidates, size_t count) {
  std::vector<NodeId> best;
  while (best.size() < count && !candidates.empty()) {
    size_t chosen = 0;
    for (size_t index = 1; index < candidates.size(); ++index) {
      if (IsBetterCandidate(tree.node(candidates[index]).AsEvaluation(),
                            tree.node(candidates[chosen]).AsEvaluation(), tree.objective())) {
        chosen = index;
      }
    }
    best.push_back(candidates[chosen]);
    candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(chosen));
  }
  return best;
}

Proposal ExpandProposal(const SearchTree& tree, NodeId parent, std::string reason) {
  Proposal proposal;
  proposal.kind = ProposalKind::kExpand;
  proposal.parent = parent;
  proposal.mode = ChildModeFor(tree, parent);
  proposal.reason = std::move(reason);
  return proposal;
}

Proposal NothingToExpand(const SearchTree& tree) {
  Proposal proposal;
  proposal.kind = tree.pending_count() > 0 ? ProposalKind::kWait : ProposalKind::kExhausted;
  proposal.reason = tree.pending_count() > 0 ? "waiting for a pending evaluation" : "nothing left to expand";
  return proposal;
}

std::mt19937_64 ProposalGenerator(uint64_t seed, const SearchTree& tree) {
  return std::mt19937_64(SplitMix64(seed ^ SplitMix64(static_cast<uint64_t>(tree.size()))));
}

}  // namespace kopt
