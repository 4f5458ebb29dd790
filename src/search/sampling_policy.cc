// Sampling: every proposal is a new initial child of the reference, never a
// repair or a refinement: independent samples from the task's prompt, the
// random-sampling control at the same budget (simple baselines are
// competitive with code evolution, arXiv 2602.16805). The best of the
// samples is the run's best; nothing is learnt from one sample to the next.
#include "search/policy_support.h"
#include "search/search_policy.h"

namespace kopt {
namespace {

class SamplingPolicy : public SearchPolicy {
 public:
  SearchPolicyKind kind() const override { return SearchPolicyKind::kSampling; }

  Proposal Propose(const SearchTree& tree) const override {
    if (!RootUsable(tree)) return NothingToExpand(tree);
    return ExpandProposal(tree, 0, "independent sample");
  }

  void OnRecorded(SearchTree& /*tree*/, NodeId /*node*/) const override {}
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeSamplingPolicy(const SearchSettings& /*settings*/, uint64_t /*seed*/) {
  return std::make_unique<SamplingPolicy>();
}

}  // namespace kopt
