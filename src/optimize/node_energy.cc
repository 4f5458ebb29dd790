#include "optimize/node_energy.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "analysis/energy_model.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

constexpr std::string_view kNotePrefix = "energy: ";  // every MissingEnergyNotes line

bool PositiveFinite(double value) {
  return std::isfinite(value) && value > 0;
}

std::string DeviceNameOf(const Profile& profile) {
  for (const KernelLaunch& launch : profile.launches) {
    if (std::optional<std::string> name = launch.Text("device__attribute_display_name")) return *name;
  }
  return "";
}

}  // namespace

void ApplyMeasuredEnergy(const MeasurementEntry& entry, bool energy_asked, Evaluation& evaluation,
                         NodeRecord& record) {
  if (!entry.energy.has_value()) {
    if (energy_asked) record.energy_note = "no energy event in the measurement";
    return;
  }
  const runner::EnergyEvent& energy = *entry.energy;
  if (!energy.available) {
    record.energy_note = energy.reason.empty() ? "energy unavailable (no reason given)" : energy.reason;
    return;
  }
  record.energy_total_j = energy.joules_per_launch;
  record.energy_stdev_j = energy.joules_per_launch_stdev;
  record.energy_mean_watts = energy.mean_watts;
  record.energy_idle_watts = energy.idle_watts;
  if (!PositiveFinite(energy.dynamic_joules_per_launch)) {
    record.energy_note = fmt::format(
        "dynamic energy {} J per launch is not positive: the kernel's power is within the idle estimate's "
        "noise ({:.1f} W idle, {:.1f} W while running), so it ranks by time",
        energy.dynamic_joules_per_launch, energy.idle_watts, energy.mean_watts);
    return;
  }
  evaluation.energy_j = energy.dynamic_joules_per_launch;
  evaluation.energy_noise_fraction =
      std::isfinite(energy.joules_per_launch_stdev)
          ? std::max(0.0, energy.joules_per_launch_stdev) / energy.dynamic_joules_per_launch
          : 0;
  record.energy_j = evaluation.energy_j;
  record.energy_note.clear();
}

const EnergyCoefficients* EnergyPredictor::CoefficientsFor(const Profile& profile,
                                                           const std::string& gpu_name,
                                                           std::vector<std::string>& notes) {
  if (!looked_up_) {
    looked_up_ = true;
    std::string device = DeviceNameOf(profile);
    if (device.empty()) device = gpu_name;
    std::vector<std::string> lookup_notes;
    Result<EnergyCoefficients> found = FindEnergyCoefficients(model_path_, device, lookup_notes);
    for (const std::string& note : lookup_notes) notes.push_back("energy model: " + note);
    if (found.ok()) {
      coefficients_ = std::move(*found);
    } else {
      notes.push_back(
          fmt::format("no energy prediction for profiled candidates (no proxy-model coefficients for {}): {}",
                      device.empty() ? "this GPU" : device, found.status().message()));
    }
  }
  return coefficients_ ? &*coefficients_ : nullptr;
}

std::optional<NodeEnergyPrediction> EnergyPredictor::Predict(const Profile& profile,
                                                             const std::string& gpu_name,
                                                             std::vector<std::string>& notes) {
  if (profile.launches.empty()) return std::nullopt;
  if (!CoefficientsFor(profile, gpu_name, notes)) return std::nullopt;
  EnergyPrediction prediction = PredictEnergy(CountEnergyActivity(profile.launches), *coefficients_);
  if (!std::isfinite(prediction.dynamic_joules) || prediction.dynamic_joules < 0) return std::nullopt;
  NodeEnergyPrediction result;
  result.dynamic_joules = prediction.dynamic_joules;
  result.model =
      prediction.coefficients_source.empty() ? coefficients_->path : prediction.coefficients_source;
  if (!prediction.missing_metrics.empty()) {
    result.model +=
        fmt::format(" (lower bound: {} metric{} missing from the profile)", prediction.missing_metrics.size(),
                    prediction.missing_metrics.size() == 1 ? "" : "s");
  }
  return result;
}

std::vector<std::string> MissingEnergyNotes(const RunState& state, Objective objective) {
  if (!state.settings.value("energy", false)) return {};
  std::map<std::string, std::vector<std::string>> nodes_by_reason;  // reason → node names
  int verified = 0, measured = 0;
  for (const SearchNode& node : state.tree.nodes()) {
    if (!node.verified()) continue;
    ++verified;
    if (node.energy_j) {
      ++measured;
      continue;
    }
    const NodeRecord& record = state.record(node.id);
    std::string reason = record.energy_note.empty() ? "not measured" : record.energy_note;
    nodes_by_reason[reason].push_back(node.id == 0 ? "the reference" : fmt::format("n{}", node.id));
  }
  if (nodes_by_reason.empty()) return {};
  std::vector<std::string> notes;
  for (const auto& [reason, nodes] : nodes_by_reason) {
    notes.push_back(fmt::format("{}{} of {} verified node{} without a measured energy ({}): {}", kNotePrefix,
                                nodes.size(), verified, verified == 1 ? "" : "s", fmt::join(nodes, ", "),
                                reason));
  }
  std::string ranking =
      objective == Objective::kTimeEnergy
          ? "their times are kept; within time noise they are ranked by the proxy model's predicted energy "
            "when both sides have one (profiled), never a measured energy against a predicted one, else by "
            "time alone"
          : "their times are kept (the objective is time: energy is shown, never ranked)";
  notes.push_back(
      fmt::format("{}{} of {} verified nodes measured; {}", kNotePrefix, measured, verified, ranking));
  return notes;
}

void UpdateMissingEnergyNotes(RunState& state, Objective objective) {
  std::erase_if(state.notes, [](const std::string& note) { return note.starts_with(kNotePrefix); });
  for (std::string& note : MissingEnergyNotes(state, objective)) state.notes.push_back(std::move(note));
}

}  // namespace kopt
