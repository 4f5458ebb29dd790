#include <gtest/gtest.h>

#include "search/search_policy.h"
#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::AddRecorded;
using search_testing::Failed;
using search_testing::TreeWithReference;
using search_testing::Verified;

std::unique_ptr<SearchPolicy> Greedy(const SearchSettings& settings = {}) {
  return std::move(MakeSearchPolicy(SearchPolicyKind::kGreedy, settings, 0)).value();
}

TEST(GreedyPolicyTest, ExpandsTheBestVerifiedNode) {
  SearchTree tree = TreeWithReference(1.0);
  AddRecorded(tree, 0, Verified(0.8));
  NodeId best = AddRecorded(tree, 0, Verified(0.4));
  AddRecorded(tree, best, Verified(0.9));
  Proposal proposal = Greedy()->Propose(tree);
  EXPECT_EQ(proposal.kind, ProposalKind::kExpand);
  EXPECT_EQ(proposal.parent, best);
  EXPECT_EQ(proposal.mode, GenerationMode::kOptimize);
}

TEST(GreedyPolicyTest, RepairsAFailedNodeOnceAndAFailedRepairNever) {
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Greedy();
  NodeId best = AddRecorded(tree, 0, Verified(0.5));
  NodeId failed = AddRecorded(tree, best, Failed());
  Proposal repair = policy->Propose(tree);
  EXPECT_EQ(repair.parent, failed);
  EXPECT_EQ(repair.mode, GenerationMode::kRepair);
  NodeId failed_repair = AddRecorded(tree, failed, Failed(NodeStatus::kFailedCheck));
  EXPECT_EQ(tree.node(failed_repair).mode, GenerationMode::kRepair);
  EXPECT_EQ(policy->Propose(tree).parent, best);  // no second repair
}

TEST(GreedyPolicyTest, PendingChildrenCountAgainstTheLimit) {
  SearchSettings settings;
  settings.baseline_max_children = 2;
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Greedy(settings);
  NodeId best = AddRecorded(tree, 0, Verified(0.5));
  for (int gpu = 0; gpu < 2; ++gpu) {
    Proposal proposal = policy->Propose(tree);
    EXPECT_EQ(proposal.parent, best);
    (void)tree.AddChild(proposal.parent, proposal.mode, "");
  }
  EXPECT_EQ(policy->Propose(tree).parent, 0);  // best is full (two in flight): the next best, the reference
}

TEST(GreedyPolicyTest, WaitsOrIsExhausted) {
  SearchSettings settings;
  settings.baseline_max_children = 1;
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Greedy(settings);
  NodeId child = *tree.AddChild(0, GenerationMode::kInitial, "");
  EXPECT_EQ(policy->Propose(tree).kind, ProposalKind::kWait);
  ASSERT_TRUE(tree.Record(child, Failed()).ok());
  EXPECT_EQ(policy->Propose(tree).parent, child);
  AddRecorded(tree, child, Failed());
  EXPECT_EQ(policy->Propose(tree).kind, ProposalKind::kExhausted);
}

}  // namespace
}  // namespace kopt
