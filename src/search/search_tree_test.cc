#include "search/search_tree.h"

#include <gtest/gtest.h>

#include <cmath>

#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::AddRecorded;
using search_testing::Failed;
using search_testing::TreeWithReference;
using search_testing::Verified;

TEST(SearchTreeTest, RootIsTheReference) {
  SearchTree tree;
  ASSERT_EQ(*tree.AddRoot("reference"), 0);
  EXPECT_FALSE(tree.AddRoot("again").ok());
  EXPECT_FALSE(tree.AddChild(0, GenerationMode::kInitial, "").ok());  // root pending
  ASSERT_TRUE(tree.Record(0, Verified(2.0)).ok());
  EXPECT_DOUBLE_EQ(tree.reference_time_s(), 2.0);
  EXPECT_DOUBLE_EQ(tree.node(0).reward_log_speedup, 0.0);
  EXPECT_EQ(tree.BestNode(), NodeId{0});
  EXPECT_DOUBLE_EQ(tree.BestSpeedup(), 1.0);
}

TEST(SearchTreeTest, AFailedReferenceRefusesChildren) {
  SearchTree tree;
  ASSERT_TRUE(tree.AddRoot("reference").ok());
  ASSERT_TRUE(tree.Record(0, Failed(NodeStatus::kFailedCheck)).ok());
  Result<NodeId> child = tree.AddChild(0, GenerationMode::kInitial, "");
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.status().message().find("reference"), std::string::npos);
  EXPECT_FALSE(tree.BestNode().has_value());
  EXPECT_DOUBLE_EQ(tree.BestSpeedup(), 0.0);
}

TEST(SearchTreeTest, RecordRefusesBadInput) {
  SearchTree tree = TreeWithReference();
  NodeId child = *tree.AddChild(0, GenerationMode::kInitial, "");
  EXPECT_FALSE(tree.Record(child, Verified(0.0)).ok());
  EXPECT_FALSE(tree.Record(child, Verified(std::nan(""))).ok());
  Evaluation duplicate;
  duplicate.status = NodeStatus::kDuplicate;
  EXPECT_FALSE(tree.Record(child, duplicate).ok());
  EXPECT_FALSE(tree.Record(42, Verified(1.0)).ok());
  ASSERT_TRUE(tree.Record(child, Verified(0.5)).ok());
  EXPECT_FALSE(tree.Record(child, Verified(0.5)).ok());  // recorded twice
  EXPECT_FALSE(tree.AddChild(7, GenerationMode::kOptimize, "").ok());
}

TEST(SearchTreeTest, StatisticsBackUpToTheRoot) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = AddRecorded(tree, 0, Verified(0.5));   // 2x
  NodeId b = AddRecorded(tree, a, Failed());        // failure counts as a visit
  NodeId c = AddRecorded(tree, a, Verified(0.25));  // 4x
  EXPECT_EQ(tree.node(0).visits, 4);
  EXPECT_EQ(tree.node(a).visits, 3);
  EXPECT_EQ(tree.node(b).visits, 1);
  EXPECT_DOUBLE_EQ(tree.node(b).reward_log_speedup, kFailedReward);
  EXPECT_NEAR(tree.node(c).reward_log_speedup, std::log(4.0), 1e-12);
  EXPECT_NEAR(tree.node(0).subtree_value_log_speedup, std::log(4.0), 1e-12);
  EXPECT_NEAR(tree.node(a).subtree_value_log_speedup, std::log(4.0), 1e-12);
  EXPECT_EQ(tree.node(a).best_in_subtree, c);
  EXPECT_EQ(tree.node(a).expansions_since_improvement, 0);  // c improved on a
  EXPECT_EQ(tree.BestNode(), c);
  EXPECT_DOUBLE_EQ(tree.BestSpeedup(), 4.0);
  EXPECT_EQ(tree.evaluated_count(), 4);
  EXPECT_EQ(tree.PathFromRoot(c), (std::vector<NodeId>{0, a, c}));
  EXPECT_TRUE(tree.Improved(a));
  EXPECT_TRUE(tree.Improved(c));
  EXPECT_EQ(tree.NearestVerifiedAncestor(c), a);
}

TEST(SearchTreeTest, ExpansionsSinceImprovementCountsNonImprovingResults) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = AddRecorded(tree, 0, Verified(0.5));
  AddRecorded(tree, a, Verified(0.6));
  AddRecorded(tree, a, Failed());
  AddRecorded(tree, a, Verified(0.502));  // within 1 % noise of a: not an improvement
  EXPECT_EQ(tree.node(a).expansions_since_improvement, 3);
  AddRecorded(tree, a, Verified(0.3));
  EXPECT_EQ(tree.node(a).expansions_since_improvement, 0);
}

TEST(SearchTreeTest, RejectedNeverBecomesTheBest) {
  SearchTree tree = TreeWithReference(1.0);
  Evaluation suspect = Verified(0.0001);
  suspect.status = NodeStatus::kRejected;
  NodeId cheat = AddRecorded(tree, 0, suspect);
  EXPECT_EQ(tree.BestNode(), NodeId{0});
  EXPECT_DOUBLE_EQ(tree.node(cheat).reward_log_speedup, kFailedReward);
  EXPECT_DOUBLE_EQ(tree.node(0).subtree_value_log_speedup, 0.0);
}

TEST(SearchTreeTest, EnergyBreaksTiesForTheBest) {
  SearchTree tree = TreeWithReference(1.0, Objective::kTimeEnergy);
  NodeId a = AddRecorded(tree, 0, Verified(0.500, 0.02, 3.0));
  NodeId b = AddRecorded(tree, 0, Verified(0.505, 0.02, 2.0));  // within noise, less energy
  EXPECT_EQ(tree.BestNode(), b);
  AddRecorded(tree, 0, Verified(0.40, 0.02, 9.0));  // clearly faster: time first
  EXPECT_NE(tree.BestNode(), a);
  EXPECT_EQ(tree.node(*tree.BestNode()).time_s, 0.40);
}

TEST(SearchTreeTest, ALatePredictionRanksNodesWithoutMeasuredEnergy) {
  SearchTree tree = TreeWithReference(1.0, Objective::kTimeEnergy);
  NodeId a = AddRecorded(tree, 0, Verified(0.500, 0.02));
  NodeId b = AddRecorded(tree, 0, Verified(0.505, 0.02));  // within noise, no energy: a wins (lower time)
  EXPECT_EQ(tree.BestNode(), a);
  ASSERT_TRUE(tree.SetPredictedEnergy(a, 3.0).ok());
  EXPECT_EQ(tree.BestNode(), a) << "one prediction alone decides nothing";
  ASSERT_TRUE(tree.SetPredictedEnergy(b, 2.0).ok());
  EXPECT_EQ(tree.BestNode(), b);
  EXPECT_EQ(tree.node(0).best_in_subtree, b) << "the subtree statistics follow";
  std::optional<SearchTree::BestChoice> choice = tree.ExplainBest();
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->best, b);
  EXPECT_EQ(choice->runner_up, a);
  EXPECT_EQ(choice->comparison.rule, CompareRule::kPredictedEnergy);
  EXPECT_FALSE(tree.SetPredictedEnergy(99, 1.0).ok());
}

TEST(SearchTreeTest, ExplainBestWithOneVerifiedNode) {
  SearchTree tree = TreeWithReference(1.0);
  std::optional<SearchTree::BestChoice> choice = tree.ExplainBest();
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->best, 0);
  EXPECT_FALSE(choice->runner_up.has_value());
  AddRecorded(tree, 0, Verified(0.5));
  choice = tree.ExplainBest();
  EXPECT_EQ(choice->runner_up, NodeId{0});
  EXPECT_EQ(choice->comparison.rule, CompareRule::kTime);
}

TEST(SearchTreeTest, TranspositionBecomesADuplicateOfItsOwner) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = *tree.AddChild(0, GenerationMode::kInitial, "first");
  ASSERT_TRUE(tree.AddTranspositionKey(a, "source:abc").ok());
  EXPECT_EQ(tree.FindTransposition("source:abc"), a);  // found while a is still pending
  NodeId b = *tree.AddChild(0, GenerationMode::kInitial, "second");
  EXPECT_FALSE(tree.AddTranspositionKey(b, "source:abc").ok());
  ASSERT_TRUE(tree.RecordDuplicate(b, a).ok());
  Evaluation result = Verified(0.5);
  result.transposition_keys = {"source:abc", "binary:def"};
  ASSERT_TRUE(tree.Record(a, result).ok());
  EXPECT_EQ(tree.FindTransposition("binary:def"), a);
  const SearchNode& duplicate = tree.node(b);
  EXPECT_EQ(duplicate.status, NodeStatus::kDuplicate);
  EXPECT_EQ(duplicate.duplicate_of, a);
  EXPECT_TRUE(duplicate.closed);
  EXPECT_EQ(duplicate.close_reason, CloseReason::kDuplicate);
  EXPECT_EQ(duplicate.parent, NodeId{0});
  EXPECT_EQ(tree.node(0).visits, 3);  // reference, duplicate, a
  EXPECT_EQ(tree.duplicate_count(), 1);
  EXPECT_EQ(tree.evaluated_count(), 2);
  EXPECT_FALSE(tree.AddChild(b, GenerationMode::kOptimize, "").ok());
  EXPECT_FALSE(tree.RecordDuplicate(a, b).ok());  // a is finished
}

TEST(SearchTreeTest, KeysOfALaterRecordDoNotStealOwnership) {
  SearchTree tree = TreeWithReference(1.0);
  Evaluation first = Verified(0.5);
  first.transposition_keys = {"binary:x"};
  NodeId a = AddRecorded(tree, 0, first);
  NodeId b = AddRecorded(tree, 0, first);
  EXPECT_EQ(tree.FindTransposition("binary:x"), a);
  EXPECT_EQ(tree.node(b).transposition_keys, std::vector<std::string>{"binary:x"});
}

TEST(SearchTreeTest, CloseClosesTheSubtree) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = AddRecorded(tree, 0, Verified(0.5));
  NodeId b = AddRecorded(tree, a, Verified(0.6));
  NodeId pending = *tree.AddChild(b, GenerationMode::kOptimize, "");
  ASSERT_TRUE(tree.Close(a, CloseReason::kPruned).ok());
  EXPECT_EQ(tree.node(a).close_reason, CloseReason::kPruned);
  EXPECT_EQ(tree.node(b).close_reason, CloseReason::kAncestorClosed);
  EXPECT_TRUE(tree.node(pending).closed);
  EXPECT_TRUE(tree.Record(pending, Verified(0.55)).ok());  // a closed pending node is still recorded
  EXPECT_FALSE(tree.Close(a, CloseReason::kNone).ok());
  EXPECT_FALSE(tree.node(0).closed);
}

TEST(SearchTreeTest, PendingCountsAndIterationOrder) {
  SearchTree tree = TreeWithReference(1.0);
  NodeId a = *tree.AddChild(0, GenerationMode::kInitial, "");
  NodeId b = *tree.AddChild(0, GenerationMode::kInitial, "");
  EXPECT_EQ(tree.pending_count(), 2);
  EXPECT_EQ(tree.node(0).pending_in_subtree, 2);
  ASSERT_TRUE(tree.Record(b, Verified(0.9)).ok());
  EXPECT_EQ(tree.PendingNodes(), std::vector<NodeId>{a});
  EXPECT_EQ(tree.node(0).children, (std::vector<NodeId>{a, b}));
  EXPECT_EQ(tree.node(b).record_sequence, 1);
}

SearchTree ASmallTree() {
  SearchTree tree = TreeWithReference(2.0, Objective::kTimeEnergy);
  NodeId a = AddRecorded(tree, 0, Verified(1.0, 0.02, 0.5));
  NodeId f = AddRecorded(tree, a, Failed(NodeStatus::kFailedRun, "illegal address"));
  Evaluation keyed = Verified(0.8);
  keyed.transposition_keys = {"source:1", "binary:2"};
  AddRecorded(tree, f, keyed);
  NodeId duplicate = *tree.AddChild(a, GenerationMode::kOptimize, "finding F3");
  EXPECT_TRUE(tree.RecordDuplicate(duplicate, 3).ok());
  (void)tree.AddChild(a, GenerationMode::kOptimize, "in flight");
  EXPECT_TRUE(tree.Close(f, CloseReason::kCaller).ok());
  return tree;
}

TEST(SearchTreeTest, JsonRoundTripKeepsEverything) {
  SearchTree tree = ASmallTree();
  nlohmann::json json = tree.ToJson();
  EXPECT_EQ(json["schema_version"], 1);
  EXPECT_EQ(json["nodes"][1]["time_s"], 1.0);
  EXPECT_EQ(json["nodes"][1]["energy_j"], 0.5);
  EXPECT_TRUE(json["nodes"][1]["predicted_energy_j"].is_null());
  ASSERT_TRUE(tree.SetPredictedEnergy(1, 0.25).ok());
  json = tree.ToJson();
  EXPECT_EQ(json["nodes"][1]["predicted_energy_j"], 0.25);
  EXPECT_TRUE(json["nodes"][0]["parent_id"].is_null());
  Result<SearchTree> restored = SearchTree::FromJson(nlohmann::json::parse(json.dump()));
  ASSERT_TRUE(restored.ok()) << restored.status().message();
  EXPECT_EQ(restored->ToJson(), json);
  EXPECT_EQ(restored->objective(), Objective::kTimeEnergy);
  EXPECT_EQ(restored->FindTransposition("binary:2"), NodeId{3});
  EXPECT_EQ(restored->pending_count(), 1);
  EXPECT_EQ(restored->evaluated_count(), tree.evaluated_count());
  EXPECT_EQ(restored->duplicate_count(), 1);
  // The restored tree continues: the next record gets the next sequence number.
  ASSERT_TRUE(restored->Record(5, Verified(0.7)).ok());
  EXPECT_EQ(restored->node(5).record_sequence, 5);
}

TEST(SearchTreeTest, FromJsonRejectsMalformedDocuments) {
  nlohmann::json json = ASmallTree().ToJson();
  nlohmann::json wrong_version = json;
  wrong_version["schema_version"] = 2;
  EXPECT_FALSE(SearchTree::FromJson(wrong_version).ok());
  nlohmann::json bad_parent = json;
  bad_parent["nodes"][2]["parent_id"] = 4;
  EXPECT_FALSE(SearchTree::FromJson(bad_parent).ok());
  nlohmann::json bad_status = json;
  bad_status["nodes"][1]["status"] = "great";
  Result<SearchTree> result = SearchTree::FromJson(bad_status);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("node 1"), std::string::npos);
  nlohmann::json missing = json;
  missing["nodes"][1].erase("time_s");
  EXPECT_FALSE(SearchTree::FromJson(missing).ok());
  EXPECT_FALSE(SearchTree::FromJson(nlohmann::json::array()).ok());
}

}  // namespace
}  // namespace kopt
