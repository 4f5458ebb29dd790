#include <gtest/gtest.h>

#include <set>

#include "search/search_policy.h"
#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::AddRecorded;
using search_testing::Failed;
using search_testing::TreeWithReference;
using search_testing::Verified;

std::unique_ptr<SearchPolicy> Random(uint64_t seed) {
  return std::move(MakeSearchPolicy(SearchPolicyKind::kRandom, {}, seed)).value();
}

TEST(RandomPolicyTest, ChoosesAmongOpenNodesOnly) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = AddRecorded(tree, 0, Verified(0.5));
  NodeId closed = AddRecorded(tree, 0, Verified(0.4));
  ASSERT_TRUE(tree.Close(closed, CloseReason::kCaller).ok());
  NodeId failed = AddRecorded(tree, a, Failed());
  std::set<NodeId> chosen;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Proposal proposal = Random(seed)->Propose(tree);
    ASSERT_EQ(proposal.kind, ProposalKind::kExpand);
    chosen.insert(proposal.parent);
    if (proposal.parent == failed) {
      EXPECT_EQ(proposal.mode, GenerationMode::kRepair);
    }
  }
  EXPECT_EQ(chosen, (std::set<NodeId>{0, a, failed}));
}

TEST(RandomPolicyTest, TheSameSeedAndTreeGiveTheSameProposal) {
  SearchTree tree = TreeWithReference(1.0);
  for (int index = 0; index < 6; ++index) AddRecorded(tree, 0, Verified(0.5 + 0.01 * index));
  auto policy = Random(7);
  NodeId first = policy->Propose(tree).parent;
  EXPECT_EQ(policy->Propose(tree).parent, first);
  EXPECT_EQ(Random(7)->Propose(tree).parent, first);
}

TEST(RandomPolicyTest, NeverProposesAPendingNode) {
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Random(3);
  for (int step = 0; step < 20; ++step) {
    Proposal proposal = policy->Propose(tree);
    ASSERT_EQ(proposal.kind, ProposalKind::kExpand);
    EXPECT_FALSE(tree.node(proposal.parent).pending());
    NodeId child = *tree.AddChild(proposal.parent, proposal.mode, "");
    if (step % 2 == 0) {  // half stay in flight
      ASSERT_TRUE(tree.Record(child, Verified(0.9)).ok());
    }
  }
}

}  // namespace
}  // namespace kopt
