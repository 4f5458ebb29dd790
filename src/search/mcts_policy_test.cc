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

std::unique_ptr<SearchPolicy> Mcts(const SearchSettings& settings = {}) {
  Result<std::unique_ptr<SearchPolicy>> policy = MakeSearchPolicy(SearchPolicyKind::kMcts, settings, 1);
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  return std::move(policy).value();
}

// A child of `proposal.parent`, recorded, with OnRecorded called.
NodeId ExpandAndRecord(SearchTree& tree, const SearchPolicy& policy, const Proposal& proposal,
                       const Evaluation& evaluation) {
  EXPECT_EQ(proposal.kind, ProposalKind::kExpand) << proposal.reason;
  NodeId child = *tree.AddChild(proposal.parent, proposal.mode, proposal.reason);
  EXPECT_TRUE(tree.Record(child, evaluation).ok());
  policy.OnRecorded(tree, child);
  return child;
}

TEST(MctsPolicyTest, WideningLimitIsTheCeilingOfKTimesNToTheAlpha) {
  SearchSettings settings;  // k = 1, α = 0.5
  EXPECT_EQ(WideningChildLimit(settings, 0), 0);
  EXPECT_EQ(WideningChildLimit(settings, 1), 1);
  EXPECT_EQ(WideningChildLimit(settings, 2), 2);
  EXPECT_EQ(WideningChildLimit(settings, 4), 2);
  EXPECT_EQ(WideningChildLimit(settings, 5), 3);
  EXPECT_EQ(WideningChildLimit(settings, 9), 3);
  EXPECT_EQ(WideningChildLimit(settings, 10), 4);
  EXPECT_EQ(WideningChildLimit(settings, 100), 10);
  settings.widening_k = 2;
  EXPECT_EQ(WideningChildLimit(settings, 4), 4);
  EXPECT_EQ(WideningChildLimit(settings, 5), 5);
  settings.widening_k = 0.5;
  settings.widening_alpha = 1;
  EXPECT_EQ(WideningChildLimit(settings, 3), 2);
  EXPECT_EQ(WideningChildLimit(settings, 4), 2);
}

TEST(MctsPolicyTest, WideningDecidesBetweenARootChildAndADeeperOne) {
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Mcts();
  Proposal first = policy->Propose(tree);
  EXPECT_EQ(first.parent, 0);
  EXPECT_EQ(first.mode, GenerationMode::kInitial);
  NodeId a = ExpandAndRecord(tree, *policy, first, Verified(0.5));
  Proposal second = policy->Propose(tree);  // root: 2 visits, 1 child < ceil(√2) = 2
  EXPECT_EQ(second.parent, 0);
  ExpandAndRecord(tree, *policy, second, Verified(0.9));
  Proposal third = policy->Propose(tree);  // root: 3 visits, 2 children = ceil(√3): descend, UCT picks a
  EXPECT_EQ(third.parent, a);
  EXPECT_EQ(third.mode, GenerationMode::kOptimize);
}

TEST(MctsPolicyTest, AsymmetricChildLimits) {
  SearchSettings settings;
  SearchTree tree = TreeWithReference(1.0);
  NodeId improving = AddRecorded(tree, 0, Verified(0.5));
  NodeId flat = AddRecorded(tree, 0, Verified(1.003));  // within noise of the reference
  NodeId failed = AddRecorded(tree, 0, Failed());
  NodeId failed_twice = AddRecorded(tree, failed, Failed());
  NodeId failed_thrice = AddRecorded(tree, failed_twice, Failed());
  EXPECT_EQ(MctsChildLimit(tree, 0, settings), settings.max_children_root);
  EXPECT_EQ(MctsChildLimit(tree, improving, settings), settings.max_children_improving);
  EXPECT_EQ(MctsChildLimit(tree, flat, settings), settings.max_children_not_improving);
  EXPECT_EQ(MctsChildLimit(tree, failed, settings), settings.max_children_failed);
  EXPECT_EQ(MctsChildLimit(tree, failed_twice, settings), settings.max_children_failed);
  EXPECT_EQ(MctsChildLimit(tree, failed_thrice, settings), 0);  // third consecutive failure
  EXPECT_GT(settings.max_children_improving, settings.max_children_not_improving);
  EXPECT_GT(settings.max_children_not_improving, settings.max_children_failed);

  SearchTree repaired = TreeWithReference(1.0);
  NodeId broken = AddRecorded(repaired, 0, Failed());
  AddRecorded(repaired, broken, Verified(0.8));
  EXPECT_EQ(MctsChildLimit(repaired, broken, settings), settings.max_children_repaired);
}

TEST(MctsPolicyTest, FailedNodeGetsOneRepairThenOpensOnceItVerifies) {
  SearchSettings settings;
  settings.widening_k = 100;  // widening out of the way
  settings.max_children_root = 1;
  settings.prune_after = 100;
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Mcts(settings);
  NodeId failed = ExpandAndRecord(tree, *policy, policy->Propose(tree), Failed());
  Proposal repair = policy->Propose(tree);
  EXPECT_EQ(repair.parent, failed);
  EXPECT_EQ(repair.mode, GenerationMode::kRepair);
  NodeId repaired = *tree.AddChild(repair.parent, repair.mode, "");
  EXPECT_EQ(policy->Propose(tree).kind, ProposalKind::kWait);  // the single repair is in flight
  ASSERT_TRUE(tree.Record(repaired, Verified(0.5)).ok());
  policy->OnRecorded(tree, repaired);
  EXPECT_EQ(ChildModeFor(tree, repaired), GenerationMode::kOptimize);  // the repair's children optimize
  int repairs_of_failed = 0;
  for (int step = 0; step < 6; ++step) {
    Proposal next = policy->Propose(tree);
    if (next.parent == failed) ++repairs_of_failed;
    ExpandAndRecord(tree, *policy, next, Verified(0.6));
  }
  EXPECT_EQ(static_cast<int>(tree.node(failed).children.size()), settings.max_children_repaired);
  EXPECT_EQ(repairs_of_failed, settings.max_children_repaired - 1);
}

TEST(MctsPolicyTest, DeadEndsArePrunedAfterPruneAfterExpansions) {
  SearchSettings settings;
  settings.prune_after = 3;
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Mcts(settings);
  NodeId dead_end = AddRecorded(tree, 0, Verified(0.5));
  NodeId best = AddRecorded(tree, 0, Verified(0.3));
  for (int step = 1; step <= 3; ++step) {
    policy->OnRecorded(tree, AddRecorded(tree, dead_end, Verified(0.7)));
    EXPECT_EQ(tree.node(dead_end).closed, step == 3) << step;
  }
  EXPECT_EQ(tree.node(dead_end).close_reason, CloseReason::kPruned);
  EXPECT_EQ(tree.node(tree.node(dead_end).children.front()).close_reason, CloseReason::kAncestorClosed);
  // The path to the best candidate is never pruned (nor the root): its
  // children are bounded by the child limits instead.
  for (int step = 1; step <= 3; ++step) policy->OnRecorded(tree, AddRecorded(tree, best, Verified(0.4)));
  EXPECT_GE(tree.node(best).expansions_since_improvement, 3);
  EXPECT_FALSE(tree.node(best).closed);
  EXPECT_FALSE(tree.node(0).closed);
  Proposal next = policy->Propose(tree);
  EXPECT_NE(next.parent, dead_end);
  EXPECT_FALSE(tree.node(next.parent).closed);
}

TEST(MctsPolicyTest, AChainOfFailuresIsClosed) {
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Mcts();
  NodeId failed = AddRecorded(tree, 0, Failed(NodeStatus::kFailedGenerate, "no code block"));
  policy->OnRecorded(tree, failed);
  NodeId first_repair = AddRecorded(tree, failed, Failed());
  policy->OnRecorded(tree, first_repair);
  EXPECT_FALSE(tree.node(failed).closed);
  NodeId second_repair = AddRecorded(tree, first_repair, Failed());
  policy->OnRecorded(tree, second_repair);
  EXPECT_EQ(tree.node(second_repair).close_reason, CloseReason::kExhausted);
  EXPECT_EQ(tree.node(first_repair).close_reason, CloseReason::kExhausted);
  EXPECT_EQ(tree.node(failed).close_reason, CloseReason::kExhausted);
  EXPECT_FALSE(tree.node(0).closed);
  EXPECT_EQ(policy->Propose(tree).parent, 0);  // the search goes on elsewhere
}

TEST(MctsPolicyTest, SeveralPendingEvaluationsAtOnce) {
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Mcts();
  std::vector<NodeId> in_flight;
  for (int gpu = 0; gpu < 4; ++gpu) {
    Proposal proposal = policy->Propose(tree);
    ASSERT_EQ(proposal.kind, ProposalKind::kExpand);
    EXPECT_FALSE(tree.node(proposal.parent).pending());
    in_flight.push_back(*tree.AddChild(proposal.parent, proposal.mode, ""));
  }
  EXPECT_EQ(tree.pending_count(), 4);
  EXPECT_EQ(tree.node(0).children.size(), 4u);  // nothing else is finished: past widening, within the limit
  for (auto id = in_flight.rbegin(); id != in_flight.rend(); ++id) {  // results arrive in any order
    ASSERT_TRUE(tree.Record(*id, *id % 2 ? Verified(0.5) : Failed()).ok());
    policy->OnRecorded(tree, *id);
  }
  Proposal next = policy->Propose(tree);
  ASSERT_EQ(next.kind, ProposalKind::kExpand);
  EXPECT_FALSE(tree.node(next.parent).pending());
}

TEST(MctsPolicyTest, ExhaustedWhenEverythingIsClosed) {
  SearchSettings settings;
  settings.max_children_root = 2;
  settings.max_consecutive_failures = 1;
  SearchTree tree = TreeWithReference(1.0);
  auto policy = Mcts(settings);
  ExpandAndRecord(tree, *policy, policy->Propose(tree), Failed());
  ExpandAndRecord(tree, *policy, policy->Propose(tree), Failed());
  EXPECT_EQ(tree.node(0).close_reason, CloseReason::kExhausted);
  EXPECT_EQ(policy->Propose(tree).kind, ProposalKind::kExhausted);
}

TEST(MctsPolicyTest, ARootThatDidNotVerifyHasNothingToExpand) {
  SearchTree tree;
  ASSERT_TRUE(tree.AddRoot("reference").ok());
  ASSERT_TRUE(tree.Record(0, Failed()).ok());
  EXPECT_EQ(Mcts()->Propose(tree).kind, ProposalKind::kExhausted);
}

// The table holds every kind once, each with a distinct name and a factory making that kind.
TEST(SearchPolicyTest, TheTableHoldsEveryKindOnce) {
  std::set<SearchPolicyKind> kinds;
  std::set<std::string_view> names;
  for (const SearchPolicyEntry& entry : SearchPolicyTable()) {
    kinds.insert(entry.kind);
    names.insert(entry.name);
    EXPECT_FALSE(entry.help.empty()) << entry.name;
    EXPECT_EQ(entry.make({}, 0)->kind(), entry.kind) << entry.name;
  }
  EXPECT_EQ(kinds.size(), SearchPolicyTable().size());
  EXPECT_EQ(names.size(), SearchPolicyTable().size());
  EXPECT_EQ(kinds.size(), 4u);  // SearchPolicyKind's values
  EXPECT_EQ(SearchPolicyNameList(), "mcts, greedy, beam or random");
}

TEST(SearchPolicyTest, KindsAndSettings) {
  for (SearchPolicyKind kind : {SearchPolicyKind::kMcts, SearchPolicyKind::kGreedy, SearchPolicyKind::kBeam,
                                SearchPolicyKind::kRandom}) {
    EXPECT_EQ(*ParseSearchPolicyKind(SearchPolicyKindName(kind)), kind);
    EXPECT_EQ((*MakeSearchPolicy(kind, {}, 0))->kind(), kind);
  }
  Result<SearchPolicyKind> unknown = ParseSearchPolicyKind("annealing");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("mcts"), std::string::npos);
  EXPECT_TRUE(ValidateSearchSettings({}).ok());
  SearchSettings bad;
  bad.widening_alpha = 1.5;
  EXPECT_FALSE(MakeSearchPolicy(SearchPolicyKind::kMcts, bad, 0).ok());
  bad = {};
  bad.beam_width = 0;
  Status status = ValidateSearchSettings(bad);
  EXPECT_NE(status.message().find("beam_width"), std::string::npos);
}

}  // namespace
}  // namespace kopt
