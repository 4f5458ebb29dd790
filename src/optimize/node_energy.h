// Energy of the optimization loop's nodes (docs/energy.md "Energy in
// optimize"): the measured energy of a node's measurement turned into its
// Evaluation and NodeRecord, the proxy model's prediction from its profile,
// and the run's notes on energy that is missing.
//
// Measured: kopt-runner's energy event (NVML windows, idle subtracted) gives
// the dynamic energy per launch the lexicographic reward compares
// (search/reward.h) and its relative noise (window stdev / dynamic energy).
// An event that is unavailable (no NVML, a counter that did not advance, a
// window shorter than the counter's update period), missing, or whose dynamic
// energy is not positive leaves the evaluation without a measured energy and
// the record with a note saying why; the time is kept either way.
//
// Predicted: analysis/energy_model.h over the node's profile with the GPU's
// coefficients (hw/energy_coefficients.h, FindEnergyCoefficients: the
// --energy-model path, else the calibrated or built-in table), looked up once
// per run by the profile's device name; a lookup that fails becomes one run
// note and no prediction.
//
// Units: joules per launch, watts, fractions.
// Thread safety: EnergyPredictor is used under the loop's mutex; the rest are
// pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw/energy_coefficients.h"
#include "measure/measurement_report.h"
#include "profile/profile.h"
#include "search/run_state.h"

namespace kopt {

// Fills evaluation.energy_j / energy_noise_fraction and the record's energy
// fields from `entry` (a verified, timed measurement). `energy_asked`: the
// run measured energy (else nothing is noted when there is none).
void ApplyMeasuredEnergy(const MeasurementEntry& entry, bool energy_asked, Evaluation& evaluation,
                         NodeRecord& record);

// The proxy model's prediction for one profile.
struct NodeEnergyPrediction {
  double dynamic_joules = 0;  // per launch
  std::string model;          // the coefficients' source, plus "lower bound: N metrics missing" when so
};

class EnergyPredictor {
 public:
  // `model_path`: a coefficients file or directory ("" : the default search).
  explicit EnergyPredictor(std::string model_path) : model_path_(std::move(model_path)) {}

  // The prediction for `profile` on `gpu_name` (the profile's device name
  // wins when it has one). nullopt when no coefficients exist for the GPU or
  // the profile has no launch; the first such reason goes to `notes`.
  std::optional<NodeEnergyPrediction> Predict(const Profile& profile, const std::string& gpu_name,
                                              std::vector<std::string>& notes);
  // The coefficients for `profile`'s GPU (looked up once, as Predict does); null when there are none.
  // Owned by this predictor; valid while it lives.
  const EnergyCoefficients* CoefficientsFor(const Profile& profile, const std::string& gpu_name,
                                            std::vector<std::string>& notes);

 private:
  std::string model_path_;
  bool looked_up_ = false;
  std::optional<EnergyCoefficients> coefficients_;
};

// The run's notes on energy (empty when the run did not ask for energy, or
// every verified node has a measured energy): which verified nodes lack a
// measured energy and why, that their times are kept, and how they are
// ranked under `objective`.
std::vector<std::string> MissingEnergyNotes(const RunState& state, Objective objective);

// Replaces the notes MissingEnergyNotes wrote earlier (a resumed run) with
// the current ones in state.notes.
void UpdateMissingEnergyNotes(RunState& state, Objective objective);

}  // namespace kopt
