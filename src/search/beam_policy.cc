// Beam: the beam_width best open verified nodes form the beam; each proposal
// expands the member with the fewest children (ties: the better one), which
// visits the beam round-robin and stays a pure function of the tree. A failed
// node is repaired once first, as in greedy. Baseline for ablations.
#include <fmt/format.h>

#include "search/policy_support.h"
#include "search/search_policy.h"

namespace kopt {
namespace {

class BeamPolicy : public SearchPolicy {
 public:
  explicit BeamPolicy(const SearchSettings& settings) : settings_(settings) {}

  SearchPolicyKind kind() const override { return SearchPolicyKind::kBeam; }

  Proposal Propose(const SearchTree& tree) const override {
    if (!RootUsable(tree)) return NothingToExpand(tree);
    std::vector<NodeId> repairs = NodesAwaitingRepair(tree, settings_);
    if (!repairs.empty()) return ExpandProposal(tree, repairs.front(), "repair");
    std::vector<NodeId> beam =
        BestNodes(tree, ExpandableVerifiedNodes(tree, settings_), static_cast<size_t>(settings_.beam_width));
    if (beam.empty()) return NothingToExpand(tree);
    size_t chosen = 0;
    for (size_t rank = 1; rank < beam.size(); ++rank) {
      if (tree.node(beam[rank]).children.size() < tree.node(beam[chosen]).children.size()) chosen = rank;
    }
    return ExpandProposal(tree, beam[chosen], fmt::format("beam rank {} of {}", chosen + 1, beam.size()));
  }

  void OnRecorded(SearchTree& /*tree*/, NodeId /*node*/) const override {}

 private:
  SearchSettings settings_;
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeBeamPolicy(const SearchSettings& settings, uint64_t /*seed*/) {
  return std::make_unique<BeamPolicy>(settings);
}

}  // namespace kopt
