// Random: uniform over the nodes that may be expanded (open verified nodes
// below the baseline child limit, and failed nodes awaiting their one
// repair). Baseline for ablations; seeded per proposal (policy_support.h).
#include "search/policy_support.h"
#include "search/search_policy.h"

namespace kopt {
namespace {

class RandomPolicy : public SearchPolicy {
 public:
  RandomPolicy(const SearchSettings& settings, uint64_t seed) : settings_(settings), seed_(seed) {}

  SearchPolicyKind kind() const override { return SearchPolicyKind::kRandom; }

  Proposal Propose(const SearchTree& tree) const override {
    if (!RootUsable(tree)) return NothingToExpand(tree);
    std::vector<NodeId> choices = ExpandableVerifiedNodes(tree, settings_);
    std::vector<NodeId> repairs = NodesAwaitingRepair(tree, settings_);
    choices.insert(choices.end(), repairs.rbegin(), repairs.rend());
    if (choices.empty()) return NothingToExpand(tree);
    std::mt19937_64 generator = ProposalGenerator(seed_, tree);
    return ExpandProposal(tree, choices[generator() % choices.size()], "random");
  }

  void OnRecorded(SearchTree& /*tree*/, NodeId /*node*/) const override {}

 private:
  SearchSettings settings_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeRandomPolicy(const SearchSettings& settings, uint64_t seed) {
  return std::make_unique<RandomPolicy>(settings, seed);
}

}  // namespace kopt
