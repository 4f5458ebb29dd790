#include "search/search_policy.h"

#include <fmt/format.h>

#include <cmath>

namespace kopt {

std::string_view SearchPolicyKindName(SearchPolicyKind kind) {
  switch (kind) {
    case SearchPolicyKind::kMcts: return "mcts";
    case SearchPolicyKind::kGreedy: return "greedy";
    case SearchPolicyKind::kBeam: return "beam";
    case SearchPolicyKind::kRandom: return "random";
    case SearchPolicyKind::kSampling: return "sampling";
  }
  return "";
}

Result<SearchPolicyKind> ParseSearchPolicyKind(std::string_view name) {
  for (SearchPolicyKind kind : {SearchPolicyKind::kMcts, SearchPolicyKind::kGreedy, SearchPolicyKind::kBeam,
                                SearchPolicyKind::kRandom, SearchPolicyKind::kSampling}) {
    if (SearchPolicyKindName(kind) == name) return kind;
  }
  return InvalidInput(
      fmt::format("unknown search policy \"{}\" (expected mcts, greedy, beam, random or sampling)", name));
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
  switch (kind) {
    case SearchPolicyKind::kMcts: return MakeMctsPolicy(settings, seed);
    case SearchPolicyKind::kGreedy: return MakeGreedyPolicy(settings, seed);
    case SearchPolicyKind::kBeam: return MakeBeamPolicy(settings, seed);
    case SearchPolicyKind::kRandom: return MakeRandomPolicy(settings, seed);
    case SearchPolicyKind::kSampling: return MakeSamplingPolicy();
  }
  return Internal("unknown search policy kind");
}

GenerationMode ChildModeFor(const SearchTree& tree, NodeId parent) {
  if (parent == 0) return GenerationMode::kInitial;
  if (tree.Contains(parent) && IsFailure(tree.node(parent).status)) return GenerationMode::kRepair;
  return GenerationMode::kOptimize;
}

}  // namespace kopt
