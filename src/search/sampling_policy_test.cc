#include <gtest/gtest.h>

#include "search/search_policy.h"
#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::AddRecorded;
using search_testing::Failed;
using search_testing::TreeWithReference;
using search_testing::Verified;

TEST(SamplingPolicyTest, EveryProposalIsANewInitialSampleOfTheReference) {
  std::unique_ptr<SearchPolicy> sampling =
      std::move(MakeSearchPolicy(SearchPolicyKind::kSampling, {}, 7)).value();
  EXPECT_EQ(SearchPolicyKindName(sampling->kind()), "sampling");
  EXPECT_EQ(*ParseSearchPolicyKind("sampling"), SearchPolicyKind::kSampling);
  SearchTree tree = TreeWithReference(1.0);
  // A fast verified sample and a failed one change nothing: no refinement, no repair.
  NodeId fast = AddRecorded(tree, 0, Verified(0.2));
  AddRecorded(tree, 0, Failed());
  AddRecorded(tree, fast, Verified(0.1));
  for (int index = 0; index < 20; ++index) {
    Proposal proposal = sampling->Propose(tree);
    ASSERT_EQ(proposal.kind, ProposalKind::kExpand);
    EXPECT_EQ(proposal.parent, 0);
    EXPECT_EQ(proposal.mode, GenerationMode::kInitial);
    AddRecorded(tree, 0, Verified(0.5));
  }
}

}  // namespace
}  // namespace kopt
