#include "report/optimize_energy.h"

#include <fmt/format.h>

#include "core/quantity_format.h"

namespace kopt {
namespace {

using nlohmann::json;

std::string Joules(double joules) {
  return FormatScaled(joules, "J", QuantityStyle::kTrimmed);
}

std::string Percent(double fraction) {
  return fmt::format("{:.1f} %", 100 * fraction);
}

std::string TimeWithNoise(const SearchNode& node) {
  return fmt::format("{} ±{}", FormatDuration(node.time_s * 1e9, QuantityStyle::kTrimmed),
                     Percent(node.time_noise_fraction));
}

std::string Name(NodeId id) {
  return id == 0 ? "the reference" : fmt::format("n{}", id);
}

json Quantity(const std::optional<double>& value, const char* unit) {
  if (!value) return nullptr;
  return json{{"value", *value}, {"unit", unit}};
}

// The tie-breaking part of the sentence: why energy did not decide.
std::string TieReason(const RunState& state, const SearchNode& best, const SearchNode& other,
                      CompareRule rule) {
  std::string pair = fmt::format("{} and {}", Name(best.id), Name(other.id));
  switch (rule) {
    case CompareRule::kEnergyWithinNoise:
      return fmt::format("their measured energies ({}, {}) are within each other's noise",
                         Joules(*best.energy_j), Joules(*other.energy_j));
    case CompareRule::kPredictedTooClose:
      return fmt::format("their predicted energies ({}, {}) are within the model's resolution",
                         Joules(*best.predicted_energy_j), Joules(*other.predicted_energy_j));
    case CompareRule::kMixedEnergyBasis:
      return fmt::format(
          "{} and {} have energies on different bases (one measured, one only predicted), which are not "
          "compared",
          Name(best.id), Name(other.id));
    case CompareRule::kNoEnergy: {
      const SearchNode& missing = best.energy_j || best.predicted_energy_j ? other : best;
      const std::string& note = state.record(missing.id).energy_note;
      return fmt::format("{} has no energy{}", Name(missing.id), note.empty() ? "" : " (" + note + ")");
    }
    case CompareRule::kTimeObjective: return "the objective is time alone";
    default: return pair + " tie";
  }
}

}  // namespace

bool EnergyShown(const RunState& state) {
  if (state.settings.value("objective", "") == "time+energy" || state.settings.value("energy", false))
    return true;
  for (const SearchNode& node : state.tree.nodes()) {
    if (node.energy_j || node.predicted_energy_j) return true;
  }
  return false;
}

std::string NodeEnergyText(const RunState& state, NodeId id) {
  const SearchNode& node = state.tree.node(id);
  if (!node.verified()) return "-";
  if (node.energy_j) {
    std::string text = fmt::format("{} ±{}", Joules(*node.energy_j), Percent(node.energy_noise_fraction));
    if (node.predicted_energy_j) text += fmt::format(" (predicted {})", Joules(*node.predicted_energy_j));
    return text;
  }
  if (node.predicted_energy_j) return fmt::format("~{} predicted", Joules(*node.predicted_energy_j));
  (void)state;
  return "-";
}

std::string BestEnergyText(const RunState& state) {
  std::optional<NodeId> best = state.tree.BestNode();
  if (!best) return "nothing verified";
  const SearchNode& node = state.tree.node(*best);
  const SearchNode& reference = state.tree.node(0);
  std::string text = Name(*best) + ": ";
  if (node.energy_j) {
    text += fmt::format("{} ±{} dynamic per launch (measured)", Joules(*node.energy_j),
                        Percent(node.energy_noise_fraction));
    if (*best != 0 && reference.energy_j) {
      text += fmt::format(", the reference {} ({:+.1f} %)", Joules(*reference.energy_j),
                          100 * (*node.energy_j / *reference.energy_j - 1));
    }
    return text;
  }
  const std::string& note = state.record(*best).energy_note;
  text += "not measured" + (note.empty() ? std::string() : ": " + note);
  if (node.predicted_energy_j)
    text += fmt::format("; predicted {} dynamic per launch", Joules(*node.predicted_energy_j));
  return text;
}

std::string BestChoiceText(const RunState& state) {
  std::optional<SearchTree::BestChoice> choice = state.tree.ExplainBest();
  if (!choice) return "";
  const SearchNode& best = state.tree.node(choice->best);
  if (!choice->runner_up) return fmt::format("{} is the only verified candidate", Name(best.id));
  const SearchNode& other = state.tree.node(*choice->runner_up);
  const CandidateComparison& comparison = choice->comparison;
  std::string overlap = fmt::format("{} and {} run within each other's time noise ({}, {})", Name(best.id),
                                    Name(other.id), TimeWithNoise(best), TimeWithNoise(other));
  auto change = [](double ours, double theirs) {
    return theirs > 0 ? fmt::format(" ({:+.1f} %)", 100 * (ours / theirs - 1)) : std::string();
  };
  switch (comparison.rule) {
    case CompareRule::kTime:
      return fmt::format("time: {} ({}) is faster than the runner-up {} ({}) beyond their noise",
                         Name(best.id), TimeWithNoise(best), Name(other.id), TimeWithNoise(other));
    case CompareRule::kMeasuredEnergy:
      return fmt::format("measured dynamic energy: {}; {} uses {} per launch, {} {}{}", overlap,
                         Name(best.id), Joules(*best.energy_j), Name(other.id), Joules(*other.energy_j),
                         change(*best.energy_j, *other.energy_j));
    case CompareRule::kPredictedEnergy:
      return fmt::format(
          "predicted dynamic energy (the proxy model, both sides predicted, neither measured): {}; {} is "
          "predicted at {} per launch, {} at {}{}",
          overlap, Name(best.id), Joules(*best.predicted_energy_j), Name(other.id),
          Joules(*other.predicted_energy_j), change(*best.predicted_energy_j, *other.predicted_energy_j));
    case CompareRule::kStatus:
    case CompareRule::kNeitherVerified:
      return fmt::format("{} is the only verified candidate", Name(best.id));
    default:
      return fmt::format(
          "{}: {}, and {}",
          best.time_s == other.time_s ? "the earlier node at an equal median time" : "the lower median time",
          overlap, TieReason(state, best, other, comparison.rule));
  }
}

json EnergyReportJson(const RunState& state) {
  json nodes = json::array();
  for (const SearchNode& node : state.tree.nodes()) {
    if (!node.verified()) continue;
    const NodeRecord& record = state.record(node.id);
    nodes.push_back(json{
        {"node", node.id},
        {"measured_dynamic", Quantity(node.energy_j, "J")},
        {"measured_noise", node.energy_j ? Quantity(node.energy_noise_fraction, "fraction") : json(nullptr)},
        {"measured_total", Quantity(record.energy_total_j, "J")},
        {"mean_power", Quantity(record.energy_mean_watts, "W")},
        {"idle_power", Quantity(record.energy_idle_watts, "W")},
        {"predicted_dynamic", Quantity(node.predicted_energy_j, "J")},
        {"model", record.energy_model},
        {"note", record.energy_note}});
  }
  json chosen = nullptr;
  if (std::optional<SearchTree::BestChoice> choice = state.tree.ExplainBest()) {
    chosen = json{{"rule", choice->runner_up ? CompareRuleName(choice->comparison.rule) : "only_verified"},
                  {"best", choice->best},
                  {"runner_up", choice->runner_up ? json(*choice->runner_up) : json(nullptr)},
                  {"text", BestChoiceText(state)}};
  }
  return json{{"objective", ObjectiveName(state.tree.objective())}, {"chosen_by", chosen}, {"nodes", nodes}};
}

}  // namespace kopt
