// Helpers shared by the search layer's tests: evaluations and small trees.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "search/search_tree.h"

namespace kopt::search_testing {

inline Evaluation Verified(double time_s, double noise = 0.01,
                           std::optional<double> energy_j = std::nullopt) {
  Evaluation evaluation;
  evaluation.status = NodeStatus::kVerified;
  evaluation.time_s = time_s;
  evaluation.time_noise_fraction = noise;
  evaluation.energy_j = energy_j;
  return evaluation;
}

inline Evaluation Failed(NodeStatus status = NodeStatus::kFailedCompile, std::string detail = "error: boom") {
  Evaluation evaluation;
  evaluation.status = status;
  evaluation.detail = std::move(detail);
  return evaluation;
}

// A tree whose root (the reference) is verified at `reference_time_s`.
inline SearchTree TreeWithReference(double reference_time_s = 1.0, Objective objective = Objective::kTime) {
  SearchTree tree(objective);
  EXPECT_TRUE(tree.AddRoot("reference").ok());
  EXPECT_TRUE(tree.Record(0, Verified(reference_time_s)).ok());
  return tree;
}

// Adds a child of `parent` (mode from the parent) and records `evaluation`.
inline NodeId AddRecorded(SearchTree& tree, NodeId parent, const Evaluation& evaluation) {
  GenerationMode mode = parent == 0                           ? GenerationMode::kInitial
                        : IsFailure(tree.node(parent).status) ? GenerationMode::kRepair
                                                              : GenerationMode::kOptimize;
  Result<NodeId> child = tree.AddChild(parent, mode, "test");
  EXPECT_TRUE(child.ok()) << child.status().message();
  Status recorded = tree.Record(*child, evaluation);
  EXPECT_TRUE(recorded.ok()) << recorded.message();
  return *child;
}

}  // namespace kopt::search_testing
