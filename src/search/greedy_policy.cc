// Greedy: always expand the best verified node; repair a failed node once
// (a failed repair is not repaired again). Baseline for ablations.
#include "search/policy_support.h"
#include "search/search_policy.h"

namespace kopt {
namespace {

class GreedyPolicy : public SearchPolicy {
 public:
  explicit GreedyPolicy(const SearchSettings& settings) : settings_(settings) {}

  SearchPolicyKind kind() const override { return SearchPolicyKind::kGreedy; }

  Proposal Propose(const SearchTree& tree) const override {
    if (!RootUsable(tree)) return NothingToExpand(tree);
    std::vector<NodeId> repairs = NodesAwaitingRepair(tree, settings_);
    if (!repairs.empty()) return ExpandProposal(tree, repairs.front(), "repair");
    std::vector<NodeId> best = BestNodes(tree, ExpandableVerifiedNodes(tree, settings_), 1);
    if (best.empty()) return NothingToExpand(tree);
    return ExpandProposal(tree, best.front(), "best");
  }

  void OnRecorded(SearchTree& /*tree*/, NodeId /*node*/) const override {}

 private:
  SearchSettings settings_;
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeGreedyPolicy(const SearchSettings& settings, uint64_t /*seed*/) {
  return std::make_unique<GreedyPolicy>(settings);
}

}  // namespace kopt
