#include "search/search_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <utility>

#include "core/enum_names.h"

namespace kopt {
namespace {

constexpr EnumNameTable<CloseReason, 6> kCloseReasonNames = {{
    {CloseReason::kNone, ""},
    {CloseReason::kPruned, "pruned"},
    {CloseReason::kExhausted, "exhausted"},
    {CloseReason::kDuplicate, "duplicate"},
    {CloseReason::kAncestorClosed, "ancestor_closed"},
    {CloseReason::kCaller, "caller"},
}};

std::optional<double> FiniteOrNothing(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? value : std::nullopt;
}

}  // namespace

std::string_view CloseReasonName(CloseReason reason) {
  return EnumName(kCloseReasonNames, reason);
}
std::optional<CloseReason> ParseCloseReason(std::string_view name) {
  return EnumFromName(kCloseReasonNames, name);
}

Evaluation SearchNode::AsEvaluation() const {
  Evaluation evaluation;
  evaluation.status = status;
  evaluation.time_s = time_s;
  evaluation.time_noise_fraction = time_noise_fraction;
  evaluation.energy_j = energy_j;
  evaluation.energy_noise_fraction = energy_noise_fraction;
  evaluation.predicted_energy_j = predicted_energy_j;
  evaluation.transposition_keys = transposition_keys;
  evaluation.detail = detail;
  return evaluation;
}

SearchTree::SearchTree(Objective objective) : objective_(objective) {}

Result<NodeId> SearchTree::AddRoot(std::string note) {
  if (!nodes_.empty()) return InvalidInput("search tree: the root exists already");
  SearchNode root;
  root.note = std::move(note);
  root.pending_in_subtree = 1;
  nodes_.push_back(std::move(root));
  return NodeId{0};
}

Result<NodeId> SearchTree::AddChild(NodeId parent, GenerationMode mode, std::string note) {
  if (!Contains(parent))
    return InvalidInput(fmt::format("search tree: no node {} to add a child to", parent));
  const SearchNode& parent_node = node(parent);
  if (parent_node.pending() || parent_node.status == NodeStatus::kDuplicate) {
    return InvalidInput(fmt::format("search tree: node {} is {} and cannot have children", parent,
                                    NodeStatusName(parent_node.status)));
  }
  if (!node(0).verified() || reference_time_s_ <= 0) {
    return InvalidInput("search tree: the reference (root) did not verify; no candidate can be rewarded");
  }
  SearchNode child;
  child.id = size();
  child.parent = parent;
  child.mode = mode;
  child.note = std::move(note);
  nodes_.push_back(std::move(child));
  mutable_node(parent).children.push_back(size() - 1);
  AdjustPending(size() - 1, +1);
  return size() - 1;
}

Status SearchTree::CheckPending(NodeId id, std::string_view doing) const {
  if (!Contains(id)) return InvalidInput(fmt::format("search tree: {}: no node {}", doing, id));
  if (!node(id).pending()) {
    return InvalidInput(
        fmt::format("search tree: {}: node {} is already {}", doing, id, NodeStatusName(node(id).status)));
  }
  return Status::Ok();
}

Status SearchTree::Record(NodeId id, const Evaluation& evaluation) {
  KOPT_RETURN_IF_ERROR(CheckPending(id, "record"));
  if (evaluation.status == NodeStatus::kPending || evaluation.status == NodeStatus::kDuplicate) {
    return InvalidInput(
        fmt::format("search tree: node {} cannot be recorded as {}", id, NodeStatusName(evaluation.status)));
  }
  bool valid_time = std::isfinite(evaluation.time_s) && evaluation.time_s > 0;
  if (evaluation.status == NodeStatus::kVerified && !valid_time) {
    return InvalidInput(fmt::format("search tree: node {} is verified with time {} s (must be positive)", id,
                                    evaluation.time_s));
  }
  if (id == 0) reference_time_s_ = evaluation.status == NodeStatus::kVerified ? evaluation.time_s : 0;
  SearchNode& target = mutable_node(id);
  target.status = evaluation.status;
  target.time_s = valid_time ? evaluation.time_s : 0;
  bool valid_noise = std::isfinite(evaluation.time_noise_fraction) && evaluation.time_noise_fraction > 0;
  target.time_noise_fraction = valid_noise ? evaluation.time_noise_fraction : 0;
  target.energy_j = FiniteOrNothing(evaluation.energy_j);
  bool valid_energy_noise =
      std::isfinite(evaluation.energy_noise_fraction) && evaluation.energy_noise_fraction > 0;
  target.energy_noise_fraction = valid_energy_noise ? evaluation.energy_noise_fraction : 0;
  target.predicted_energy_j = FiniteOrNothing(evaluation.predicted_energy_j);
  target.detail = evaluation.detail;
  target.reward_log_speedup = EvaluationReward(evaluation, reference_time_s_);
  target.record_sequence = next_record_sequence_++;
  RegisterKeys(id, evaluation.transposition_keys);
  AdjustPending(id, -1);
  ++evaluated_count_;
  BackUp(id, /*evaluated=*/true);
  return Status::Ok();
}

Status SearchTree::RecordDuplicate(NodeId id, NodeId original) {
  KOPT_RETURN_IF_ERROR(CheckPending(id, "record a duplicate"));
  if (id == 0) return InvalidInput("search tree: the root cannot be a duplicate");
  if (!Contains(original) || original == id) {
    return InvalidInput(fmt::format("search tree: node {} cannot be a duplicate of node {}", id, original));
  }
  SearchNode& target = mutable_node(id);
  target.status = NodeStatus::kDuplicate;
  target.duplicate_of = original;
  target.reward_log_speedup = kFailedReward;
  target.record_sequence = next_record_sequence_++;
  target.closed = true;
  target.close_reason = CloseReason::kDuplicate;
  AdjustPending(id, -1);
  ++duplicate_count_;
  BackUp(id, /*evaluated=*/false);
  return Status::Ok();
}

void SearchTree::AdjustPending(NodeId id, int64_t delta) {
  for (std::optional<NodeId> at = id; at; at = node(*at).parent)
    mutable_node(*at).pending_in_subtree += delta;
}

void SearchTree::BackUp(NodeId id, bool evaluated) {
  SearchNode& self = mutable_node(id);
  ++self.visits;
  if (evaluated) {
    self.subtree_value_log_speedup = self.reward_log_speedup;
    if (self.verified()) self.best_in_subtree = id;
  }
  Evaluation result = self.AsEvaluation();
  for (std::optional<NodeId> at = self.parent; at; at = node(*at).parent) {
    SearchNode& ancestor = mutable_node(*at);
    ++ancestor.visits;
    bool improved = false;
    if (evaluated) {
      ancestor.subtree_value_log_speedup =
          std::max(ancestor.subtree_value_log_speedup, self.reward_log_speedup);
      if (result.status == NodeStatus::kVerified) {
        std::optional<NodeId> best = ancestor.best_in_subtree;
        Evaluation best_result = best ? node(*best).AsEvaluation() : Evaluation{};
        improved = !best || LexicographicCompare(result, best_result, objective_) < 0;
        if (!best || IsBetterCandidate(result, best_result, objective_)) ancestor.best_in_subtree = id;
      }
    }
    ancestor.expansions_since_improvement = improved ? 0 : ancestor.expansions_since_improvement + 1;
  }
}

void SearchTree::RegisterKeys(NodeId id, const std::vector<std::string>& keys) {
  SearchNode& target = mutable_node(id);
  for (const std::string& key : keys) {
    if (key.empty()) continue;
    key_owners_.emplace(key, id);
    bool present = false;
    for (const std::string& held : target.transposition_keys) present = present || held == key;
    if (!present) target.transposition_keys.push_back(key);
  }
}

Status SearchTree::AddTranspositionKey(NodeId id, const std::string& key) {
  if (!Contains(id)) return InvalidInput(fmt::format("search tree: no node {} to key", id));
  if (key.empty()) return InvalidInput(fmt::format("search tree: empty transposition key for node {}", id));
  std::optional<NodeId> owner = FindTransposition(key);
  if (owner && *owner != id) {
    return InvalidInput(fmt::format("search tree: key {} of node {} is owned by node {}", key, id, *owner));
  }
  RegisterKeys(id, {key});
  return Status::Ok();
}

std::optional<NodeId> SearchTree::FindTransposition(const std::string& key) const {
  auto found = key_owners_.find(key);
  if (found == key_owners_.end()) return std::nullopt;
  return found->second;
}

Status SearchTree::Close(NodeId id, CloseReason reason) {
  if (!Contains(id)) return InvalidInput(fmt::format("search tree: no node {} to close", id));
  if (reason == CloseReason::kNone) return InvalidInput("search tree: closing needs a reason");
  std::deque<NodeId> queue = {id};
  while (!queue.empty()) {
    SearchNode& at = mutable_node(queue.front());
    queue.pop_front();
    if (!at.closed) {
      at.closed = true;
      at.close_reason = at.id == id ? reason : CloseReason::kAncestorClosed;
    }
    for (NodeId child : at.children) queue.push_back(child);
  }
  return Status::Ok();
}

int64_t SearchTree::pending_count() const {
  return nodes_.empty() ? 0 : nodes_[0].pending_in_subtree;
}

std::vector<NodeId> SearchTree::PendingNodes() const {
  std::vector<NodeId> pending;
  for (const SearchNode& at : nodes_) {
    if (at.pending()) pending.push_back(at.id);
  }
  return pending;
}

Status SearchTree::SetPredictedEnergy(NodeId id, std::optional<double> joules) {
  if (!Contains(id)) return InvalidInput(fmt::format("search tree: no node {} to predict the energy of", id));
  if (node(id).pending()) {
    return InvalidInput(fmt::format("search tree: node {} is pending; record it before its prediction", id));
  }
  mutable_node(id).predicted_energy_j = FiniteOrNothing(joules);
  // Re-derive best_in_subtree bottom-up (children have larger ids than their parents).
  for (NodeId at = size() - 1; at >= 0; --at) {
    SearchNode& current = mutable_node(at);
    std::optional<NodeId> best;
    if (current.verified()) best = at;
    for (NodeId child : current.children) {
      std::optional<NodeId> candidate = node(child).best_in_subtree;
      if (candidate && (!best || IsBetterCandidate(node(*candidate).AsEvaluation(),
                                                   node(*best).AsEvaluation(), objective_))) {
        best = candidate;
      }
    }
    current.best_in_subtree = best;
  }
  return Status::Ok();
}

std::optional<NodeId> SearchTree::BestNode() const {
  std::optional<NodeId> best;
  for (const SearchNode& at : nodes_) {
    if (!at.verified()) continue;
    if (!best || IsBetterCandidate(at.AsEvaluation(), node(*best).AsEvaluation(), objective_)) best = at.id;
  }
  return best;
}

std::optional<SearchTree::BestChoice> SearchTree::ExplainBest() const {
  std::optional<NodeId> best = BestNode();
  if (!best) return std::nullopt;
  BestChoice choice;
  choice.best = *best;
  for (const SearchNode& at : nodes_) {
    if (!at.verified() || at.id == *best) continue;
    if (!choice.runner_up ||
        IsBetterCandidate(at.AsEvaluation(), node(*choice.runner_up).AsEvaluation(), objective_)) {
      choice.runner_up = at.id;
    }
  }
  if (choice.runner_up) {
    choice.comparison =
        CompareCandidates(node(*best).AsEvaluation(), node(*choice.runner_up).AsEvaluation(), objective_);
  }
  return choice;
}

double SearchTree::BestSpeedup() const {
  std::optional<NodeId> best = BestNode();
  if (!best || reference_time_s_ <= 0) return 0;
  return reference_time_s_ / node(*best).time_s;
}

std::optional<NodeId> SearchTree::NearestVerifiedAncestor(NodeId id) const {
  if (!Contains(id)) return std::nullopt;
  for (std::optional<NodeId> at = node(id).parent; at; at = node(*at).parent) {
    if (node(*at).verified()) return at;
  }
  return std::nullopt;
}

bool SearchTree::Improved(NodeId id) const {
  if (!Contains(id) || !node(id).verified()) return false;
  std::optional<NodeId> ancestor = NearestVerifiedAncestor(id);
  return ancestor &&
         LexicographicCompare(node(id).AsEvaluation(), node(*ancestor).AsEvaluation(), objective_) < 0;
}

bool SearchTree::HasVerifiedChild(NodeId id) const {
  if (!Contains(id)) return false;
  for (NodeId child : node(id).children) {
    if (node(child).verified()) return true;
  }
  return false;
}

std::vector<NodeId> SearchTree::PathFromRoot(NodeId id) const {
  std::vector<NodeId> path;
  if (!Contains(id)) return path;
  for (std::optional<NodeId> at = id; at; at = node(*at).parent) path.insert(path.begin(), *at);
  return path;
}

}  // namespace kopt
