#include "search/simulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "search/search_test_util.h"

namespace kopt {
namespace {

using search_testing::Verified;

std::unique_ptr<SearchPolicy> Policy(SearchPolicyKind kind, uint64_t seed = 0) {
  return std::move(MakeSearchPolicy(kind, {}, seed)).value();
}

// A synthetic landscape: each candidate has a hidden log speedup q. An
// optimization moves q by a normal step of mean `drift` (most changes do not
// help) and fails to compile with probability `failure_rate` (its intended q
// kept for the repair); a repair succeeds with probability 0.7 and lands on
// the intended q. Good parents have good children: a search that focuses on
// them beats one that spreads its budget uniformly.
class Landscape {
 public:
  Landscape(double drift, double step, double failure_rate)
      : drift_(drift), step_(step), failure_rate_(failure_rate) {}

  SimulatedEvaluator Evaluator() {
    return [this](const SearchTree& tree, NodeId node, std::mt19937_64& rng) {
      return Evaluate(tree, node, rng);
    };
  }

 private:
  Evaluation Evaluate(const SearchTree& tree, NodeId node, std::mt19937_64& rng) {
    const SearchNode& candidate = tree.node(node);
    double parent_quality = quality_[*candidate.parent];
    std::uniform_real_distribution<double> uniform(0, 1);
    bool fails;
    if (candidate.mode == GenerationMode::kRepair) {
      quality_[node] = parent_quality;
      fails = uniform(rng) > 0.7;
    } else {
      std::normal_distribution<double> change(drift_, step_);
      quality_[node] = parent_quality + change(rng);
      fails = uniform(rng) < failure_rate_;
    }
    if (fails) return search_testing::Failed(NodeStatus::kFailedCompile);
    return Verified(std::exp(-quality_[node]), 0.01);
  }

  double drift_;
  double step_;
  double failure_rate_;
  std::map<NodeId, double> quality_ = {{0, 0.0}};
};

SimulationResult RunSimulation(SearchPolicyKind kind, uint64_t seed, int64_t budget, int concurrency = 1) {
  Landscape landscape(-0.05, 0.25, 0.2);
  SimulationSettings settings;
  settings.max_evaluations = budget;
  settings.concurrency = concurrency;
  settings.seed = seed;
  auto policy = Policy(kind, seed);
  Result<SimulationResult> result =
      Simulate(*policy, Objective::kTime, Verified(1.0), landscape.Evaluator(), settings);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return std::move(result).value();
}

double MeanBestLogSpeedup(SearchPolicyKind kind, int64_t budget, int repeats) {
  double total = 0;
  for (int seed = 0; seed < repeats; ++seed)
    total += std::log(RunSimulation(kind, 1000 + seed, budget).tree.BestSpeedup());
  return total / repeats;
}

TEST(SimulationTest, MctsBeatsRandomAtEqualBudget) {
  double mcts = MeanBestLogSpeedup(SearchPolicyKind::kMcts, 60, 40);
  double random = MeanBestLogSpeedup(SearchPolicyKind::kRandom, 60, 40);
  RecordProperty("mcts_mean_log_speedup", std::to_string(mcts));
  RecordProperty("random_mean_log_speedup", std::to_string(random));
  EXPECT_GT(mcts, random + 0.5) << "mcts " << mcts << " random " << random;
}

// Not run by default: prints the mean and spread of the best log speedup of
// every policy on the landscape (--gtest_also_run_disabled_tests).
TEST(SimulationTest, DISABLED_PrintPolicyComparison) {
  for (int64_t budget : {20, 60, 120}) {
    for (SearchPolicyKind kind : {SearchPolicyKind::kMcts, SearchPolicyKind::kGreedy, SearchPolicyKind::kBeam,
                                  SearchPolicyKind::kRandom}) {
      std::vector<double> values;
      for (int seed = 0; seed < 100; ++seed) {
        values.push_back(std::log(RunSimulation(kind, 1000 + seed, budget).tree.BestSpeedup()));
      }
      double mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
      double variance = 0;
      for (double value : values) variance += (value - mean) * (value - mean) / (values.size() - 1);
      std::printf("budget %3lld %-6s mean %.3f stdev %.3f\n", static_cast<long long>(budget),
                  std::string(SearchPolicyKindName(kind)).c_str(), mean, std::sqrt(variance));
    }
  }
}

TEST(SimulationTest, BudgetAndBestSoFarCurve) {
  SimulationResult result = RunSimulation(SearchPolicyKind::kMcts, 5, 30);
  EXPECT_EQ(result.evaluations, 30);
  EXPECT_FALSE(result.exhausted);
  ASSERT_EQ(result.best_speedup.size(), 30u);
  for (size_t index = 1; index < result.best_speedup.size(); ++index) {
    EXPECT_GE(result.best_speedup[index], result.best_speedup[index - 1]);
  }
  EXPECT_GE(result.best_speedup.front(), 1.0);
  EXPECT_DOUBLE_EQ(result.best_speedup.back(), result.tree.BestSpeedup());
  EXPECT_EQ(result.tree.evaluated_count(), 31);  // the reference too
}

TEST(SimulationTest, TheSameSeedsGiveTheSameTree) {
  for (SearchPolicyKind kind : {SearchPolicyKind::kMcts, SearchPolicyKind::kGreedy, SearchPolicyKind::kBeam,
                                SearchPolicyKind::kRandom}) {
    EXPECT_EQ(RunSimulation(kind, 9, 25, 3).tree.ToJson(), RunSimulation(kind, 9, 25, 3).tree.ToJson())
        << SearchPolicyKindName(kind);
  }
  EXPECT_NE(RunSimulation(SearchPolicyKind::kRandom, 1, 25).tree.ToJson(),
            RunSimulation(SearchPolicyKind::kRandom, 2, 25).tree.ToJson());
}

TEST(SimulationTest, AResumedTreeGetsTheSameProposals) {
  for (SearchPolicyKind kind : {SearchPolicyKind::kMcts, SearchPolicyKind::kGreedy, SearchPolicyKind::kBeam,
                                SearchPolicyKind::kRandom}) {
    SimulationResult result = RunSimulation(kind, 4, 20);
    Result<SearchTree> restored = SearchTree::FromJson(nlohmann::json::parse(result.tree.ToJson().dump()));
    ASSERT_TRUE(restored.ok());
    auto policy = Policy(kind, 4);
    Proposal original = policy->Propose(result.tree);
    Proposal resumed = policy->Propose(*restored);
    EXPECT_EQ(original.kind, resumed.kind);
    EXPECT_EQ(original.parent, resumed.parent) << SearchPolicyKindName(kind);
    EXPECT_EQ(original.mode, resumed.mode);
  }
}

TEST(SimulationTest, ConcurrentEvaluationsRespectTheChildLimits) {
  SimulationResult result = RunSimulation(SearchPolicyKind::kMcts, 11, 80, 4);
  EXPECT_EQ(result.evaluations, 80);
  SearchSettings settings;
  for (const SearchNode& node : result.tree.nodes()) {
    EXPECT_LE(static_cast<int>(node.children.size()),
              std::max(1, MctsChildLimit(result.tree, node.id, settings)))
        << "node " << node.id;
    if (!node.pending()) {
      EXPECT_GE(node.visits, 1);
    }
  }
  EXPECT_EQ(result.tree.pending_count(), 0);
}

TEST(SimulationTest, TranspositionsAreNotEvaluatedTwice) {
  int evaluator_calls = 0;
  SimulatedEvaluator repeating = [&](const SearchTree& tree, NodeId node, std::mt19937_64&) {
    ++evaluator_calls;
    Evaluation evaluation = Verified(1.0 / (1.0 + static_cast<double>(node % 4)), 0.01);
    evaluation.transposition_keys = {"source:" + std::to_string(node % 4)};
    (void)tree;
    return evaluation;
  };
  SimulationSettings settings;
  settings.max_evaluations = 10;
  auto policy = Policy(SearchPolicyKind::kGreedy);
  Result<SimulationResult> result = Simulate(*policy, Objective::kTime, Verified(1.0), repeating, settings);
  ASSERT_TRUE(result.ok());
  // Only four distinct keys exist: at most four evaluations, the rest duplicates, then the node guard stops
  // it.
  EXPECT_LE(result->evaluations, 4);
  EXPECT_GT(result->tree.duplicate_count(), 0);
  for (const SearchNode& node : result->tree.nodes()) {
    if (node.status != NodeStatus::kDuplicate) continue;
    ASSERT_TRUE(node.duplicate_of.has_value());
    EXPECT_NE(result->tree.node(*node.duplicate_of).status, NodeStatus::kDuplicate);
  }
  EXPECT_EQ(evaluator_calls, result->tree.size() - 1);
}

TEST(SimulationTest, AGeneratorThatAlwaysFailsExhaustsTheSearch) {
  SimulatedEvaluator failing = [](const SearchTree&, NodeId, std::mt19937_64&) {
    return search_testing::Failed(NodeStatus::kFailedGenerate, "no code block");
  };
  SimulationSettings settings;
  settings.max_evaluations = 1000;
  auto policy = Policy(SearchPolicyKind::kMcts);
  Result<SimulationResult> result = Simulate(*policy, Objective::kTime, Verified(1.0), failing, settings);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->exhausted);
  SearchSettings defaults;
  EXPECT_EQ(result->evaluations, defaults.max_children_root * defaults.max_consecutive_failures);
  EXPECT_DOUBLE_EQ(result->tree.BestSpeedup(), 1.0);
}

TEST(SimulationTest, RefusesAFailedReference) {
  auto policy = Policy(SearchPolicyKind::kMcts);
  Result<SimulationResult> result =
      Simulate(*policy, Objective::kTime, search_testing::Failed(), Landscape(0, 0.1, 0).Evaluator(), {});
  EXPECT_FALSE(result.ok());
}

}  // namespace
}  // namespace kopt
