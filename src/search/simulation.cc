#include "search/simulation.h"

#include <fmt/format.h>

#include <deque>

namespace kopt {
namespace {

// The transposition owner of any of the evaluation's keys, other than `node`.
std::optional<NodeId> OwnerOfKeys(const SearchTree& tree, NodeId node, const Evaluation& evaluation) {
  for (const std::string& key : evaluation.transposition_keys) {
    std::optional<NodeId> owner = tree.FindTransposition(key);
    if (owner && *owner != node) return owner;
  }
  return std::nullopt;
}

class SimulationDriver {
 public:
  SimulationDriver(const SearchPolicy& policy, const SimulatedEvaluator& evaluate,
                   const SimulationSettings& settings, SimulationResult& result)
      : policy_(policy),
        evaluate_(evaluate),
        settings_(settings),
        result_(result),
        generator_(settings.seed) {
    max_nodes_ = settings.max_nodes > 0 ? settings.max_nodes : 4 * settings.max_evaluations + 16;
  }

  Status Run() {
    while (result_.evaluations < settings_.max_evaluations) {
      FillInFlight();
      if (in_flight_.empty()) {
        result_.exhausted = result_.tree.size() < max_nodes_;
        return Status::Ok();
      }
      KOPT_RETURN_IF_ERROR(CompleteOldest());
    }
    return Status::Ok();
  }

 private:
  // Proposes until `concurrency` nodes are in flight, the policy waits or is
  // exhausted, or the budget would be exceeded by what is in flight.
  void FillInFlight() {
    SearchTree& tree = result_.tree;
    while (static_cast<int>(in_flight_.size()) < settings_.concurrency && tree.size() < max_nodes_ &&
           result_.evaluations + static_cast<int64_t>(in_flight_.size()) < settings_.max_evaluations) {
      Proposal proposal = policy_.Propose(tree);
      if (proposal.kind != ProposalKind::kExpand) return;
      Result<NodeId> child = tree.AddChild(proposal.parent, proposal.mode, proposal.reason);
      if (!child.ok()) return;
      in_flight_.push_back(*child);
    }
  }

  Status CompleteOldest() {
    SearchTree& tree = result_.tree;
    NodeId node = in_flight_.front();
    in_flight_.pop_front();
    Evaluation evaluation = evaluate_(tree, node, generator_);
    std::optional<NodeId> owner = OwnerOfKeys(tree, node, evaluation);
    Status recorded = owner ? tree.RecordDuplicate(node, *owner) : tree.Record(node, evaluation);
    if (!recorded.ok()) return recorded.WithContext(fmt::format("simulation: node {}", node));
    policy_.OnRecorded(tree, node);
    if (!owner) {
      ++result_.evaluations;
      result_.best_speedup.push_back(tree.BestSpeedup());
    }
    return Status::Ok();
  }

  const SearchPolicy& policy_;
  const SimulatedEvaluator& evaluate_;
  const SimulationSettings& settings_;
  SimulationResult& result_;
  std::mt19937_64 generator_;
  std::deque<NodeId> in_flight_;
  int64_t max_nodes_ = 0;
};

}  // namespace

Result<SimulationResult> Simulate(const SearchPolicy& policy, Objective objective,
                                  const Evaluation& reference, const SimulatedEvaluator& evaluate,
                                  const SimulationSettings& settings) {
  if (reference.status != NodeStatus::kVerified)
    return InvalidInput("simulation: the reference must be verified");
  if (settings.concurrency < 1 || settings.max_evaluations < 0) {
    return InvalidInput("simulation: concurrency must be >= 1 and max_evaluations >= 0");
  }
  SimulationResult result{SearchTree(objective), {}, 0, false};
  KOPT_ASSIGN_OR_RETURN(NodeId root, result.tree.AddRoot("reference"));
  KOPT_RETURN_IF_ERROR(result.tree.Record(root, reference));
  KOPT_RETURN_IF_ERROR(SimulationDriver(policy, evaluate, settings, result).Run());
  return result;
}

}  // namespace kopt
