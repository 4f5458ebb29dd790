#include "search/search_policy.h"

#include <fmt/format.h>

#include <cmath>

#include "core/text.h"

namespace kopt {

namespace {

constexpr SearchPolicyEntry kSearchPolicies[] = {
    {SearchPolicyKind::kMcts, "mcts",
     "UCT with progressive widening, asymmetric branching and dead-end pruning", MakeMctsPolicy},
    {SearchPolicyKind::kGreedy, "greedy",
     "repairs the newest failure once, else expands the best verified node", MakeGreedyPolicy},
    {SearchPolicyKind::kBeam, "beam",
     "repairs as greedy, else expands the beam_width best verified nodes in turn", MakeBeamPolicy},
    {SearchPolicyKind::kRandom, "random",
     "a uniformly random open verified node or failure awaiting its repair", MakeRandomPolicy},
    {SearchPolicyKind::kSampling, "sampling",
     "independent samples: every proposal an initial child of the reference, no feedback",
     MakeSamplingPolicy},
};

const SearchPolicyEntry* EntryOf(SearchPolicyKind kind) {
  for (const SearchPolicyEntry& entry : kSearchPolicies) {
    if (entry.kind == kind) return &entry;
  }
  return nullptr;
}

}  // namespace

std::span<const SearchPolicyEntry> SearchPolicyTable() {
  return kSearchPolicies;
}

std::string_view SearchPolicyKindName(SearchPolicyKind kind) {
  const SearchPolicyEntry* entry = EntryOf(kind);
  return entry ? entry->name : "";
}

std::string SearchPolicyNameList() {
  std::vector<std::string_view> names;
  for (const auto& entry : kSearchPolicies) names.push_back(entry.name);
  return AlternativesText(names);
}

Result<SearchPolicyKind> ParseSearchPolicyKind(std::string_view name) {
  for (const SearchPolicyEntry& entry : kSearchPolicies) {
    if (entry.name == name) return entry.kind;
  }
  return InvalidInput(
      fmt::format("unknown search policy \"{}\" (expected {})", name, SearchPolicyNameList()));
}

Status ValidateSearchSettings(const SearchSettings& settings) {
  auto bad = [](std::string_view field, const std::string& why) {
    return InvalidInput(fmt::format("search settings: {} {}", field, why));
  };
  if (!std::isfinite(settings.exploration) || settings.exploration < 0)
    return bad("exploration", "must be >= 0");
  if (!std::isfinite(settings.widening_k) || settings.widening_k <= 0)
    return bad("widening_k", "must be > 0");
  if (!(settings.widening_alpha > 0 && settings.widening_alpha <= 1)) {
    return bad("widening_alpha", "must lie in (0, 1]");
  }
  const std::pair<std::string_view, int> at_least_one[] = {
      {"max_children_root", settings.max_children_root},
      {"max_children_improving", settings.max_children_improving},
      {"max_children_not_improving", settings.max_children_not_improving},
      {"max_children_failed", settings.max_children_failed},
      {"max_children_repaired", settings.max_children_repaired},
      {"max_consecutive_failures", settings.max_consecutive_failures},
      {"prune_after", settings.prune_after},
      {"beam_width", settings.beam_width},
      {"baseline_max_children", settings.baseline_max_children},
  };
  for (const auto& [field, value] : at_least_one) {
    if (value < 1) return bad(field, fmt::format("must be >= 1 (is {})", value));
  }
  return Status::Ok();
}

Result<std::unique_ptr<SearchPolicy>> MakeSearchPolicy(SearchPolicyKind kind, const SearchSettings& settings,
                                                       uint64_t seed) {
  KOPT_RETURN_IF_ERROR(ValidateSearchSettings(settings));
  if (const SearchPolicyEntry* entry = EntryOf(kind)) return entry->make(settings, seed);
  return Internal("unknown search policy kind");
}

GenerationMode ChildModeFor(const SearchTree& tree, NodeId parent) {
  if (parent == 0) return GenerationMode::kInitial;
  if (tree.Contains(parent) && IsFailure(tree.node(parent).status)) return GenerationMode::kRepair;
  return GenerationMode::kOptimize;
}

}  // namespace kopt
