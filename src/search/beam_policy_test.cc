#include <gtest/gtest.h>

#include <map>

#include "search/search_policy.h"
#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::AddRecorded;
using search_testing::Failed;
using search_testing::TreeWithReference;
using search_testing::Verified;

std::unique_ptr<SearchPolicy> Beam(int width) {
  SearchSettings settings;
  settings.beam_width = width;
  return std::move(MakeSearchPolicy(SearchPolicyKind::kBeam, settings, 0)).value();
}

TEST(BeamPolicyTest, ExpandsTheWidthBestRoundRobin) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId first = AddRecorded(tree, 0, Verified(0.3));
  NodeId second = AddRecorded(tree, 0, Verified(0.4));
  AddRecorded(tree, 0, Verified(0.9));  // third best after these two: outside a beam of 2
  auto policy = Beam(2);
  std::map<NodeId, int> expansions;
  for (int step = 0; step < 4; ++step) {
    Proposal proposal = policy->Propose(tree);
    ASSERT_EQ(proposal.kind, ProposalKind::kExpand);
    ++expansions[proposal.parent];
    (void)tree.AddChild(proposal.parent, proposal.mode, "");  // pending: counts as a child
  }
  EXPECT_EQ(expansions[first], 2);
  EXPECT_EQ(expansions[second], 2);
  EXPECT_EQ(expansions.size(), 2u);
}

TEST(BeamPolicyTest, RepairsAFailedNodeFirst) {
  SearchTree tree = TreeWithReference(1.0);
  AddRecorded(tree, 0, Verified(0.3));
  NodeId failed = AddRecorded(tree, 0, Failed(NodeStatus::kFailedRun));
  Proposal proposal = Beam(4)->Propose(tree);
  EXPECT_EQ(proposal.parent, failed);
  EXPECT_EQ(proposal.mode, GenerationMode::kRepair);
}

TEST(BeamPolicyTest, ANewBetterNodeEntersTheBeam) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = AddRecorded(tree, 0, Verified(0.5));
  auto policy = Beam(1);
  EXPECT_EQ(policy->Propose(tree).parent, a);
  NodeId better = AddRecorded(tree, a, Verified(0.2));
  EXPECT_EQ(policy->Propose(tree).parent, better);
}

}  // namespace
}  // namespace kopt
