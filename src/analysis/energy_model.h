// The energy proxy model: dynamic energy per launch predicted from the
// counters of one ncu profile and a GPU's coefficients
// (hw/energy_coefficients.h, where the terms and their metrics are listed),
// the fit that produces those coefficients, and the simple baseline it is
// compared with (docs/energy.md).
//
// Prediction: E = sum over terms of count x joules_per_unit. A term whose
// metrics the profile lacks counts 0 and is named in `missing_metrics`, so a
// partial profile gives a lower bound that says so.
//
// Fit: non-negative least squares on relative errors (each kernel's row is
// divided by its measured energy, so a 10 µJ kernel weighs as much as a 10 mJ
// one: the MAPE the model is judged by), Lawson-Hanson active set over
// Eigen's QR. A term no calibration kernel exercises gets 0 and says so.
//
// Units: joules, seconds, the terms' units.
// Thread safety: pure functions over values.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "hw/energy_coefficients.h"
#include "profile/kernel_launch.h"

namespace kopt {

// Activity counts of one launch (or the sum of several), AllEnergyTerms() order.
struct EnergyCounts {
  std::array<double, kEnergyTermCount> values{};
  std::vector<std::string> missing_metrics;  // metrics the profile lacked (their terms count 0)

  double& operator[](EnergyTerm term) { return values[static_cast<size_t>(term)]; }
  double operator[](EnergyTerm term) const { return values[static_cast<size_t>(term)]; }
  EnergyCounts& operator+=(const EnergyCounts& other);
  EnergyCounts Scaled(double factor) const;
};

// The counts of one launch from its metrics (the table of energy_coefficients.h).
EnergyCounts CountEnergyActivity(const KernelLaunch& launch);
// The counts of one call of a candidate: the sum over `launches` (every
// kernel the call launched, e.g. a profile of one kopt_launch call).
EnergyCounts CountEnergyActivity(const std::vector<KernelLaunch>& launches);
// The metric names CountEnergyActivity reads (for collection and "missing" notes).
std::vector<std::string> EnergyModelMetrics();

struct EnergyTermShare {
  EnergyTerm term = EnergyTerm::kDramBytes;
  double count = 0;   // in the term's unit
  double joules = 0;  // count x coefficient
  double share = 0;   // joules / total (0 when the total is 0)
};

struct EnergyPrediction {
  double dynamic_joules = 0;           // per launch
  std::vector<EnergyTermShare> terms;  // every term, AllEnergyTerms() order
  std::vector<std::string> missing_metrics;
  std::string coefficients_source;   // the table's path ("built-in: NVIDIA H200, fitted ...")
  double average_dynamic_watts = 0;  // dynamic_joules / active_seconds (0 without a duration)
};

EnergyPrediction PredictEnergy(const EnergyCounts& counts, const EnergyCoefficients& coefficients);

// One calibration kernel: its counts per launch and its measured dynamic
// energy per launch (kopt bench --energy: NVML windows >= 1 s, idle subtracted).
struct EnergySample {
  std::string name;
  std::string gpu;  // the profile's device__attribute_display_name ("NVIDIA H200"); "" when absent
  EnergyCounts counts;
  double measured_dynamic_joules = 0;  // > 0
  // The standard deviation of the per-launch energy across the measurement's
  // windows (J); 0 when not recorded (samples written before it was).
  double measured_dynamic_joules_stdev = 0;
  double seconds_per_launch = 0;  // the measured median time (for the baseline)
};

struct EnergyFitSettings {
  std::string gpu_name;
  std::string measured_at;  // ISO-8601 UTC
  std::string tool = "kopt calibrate --energy";
};

// The coefficients that fit `samples` best (rule above). InvalidInput when
// there are fewer samples than exercised terms, or a sample's measured energy
// is not positive and finite (the message names it).
Result<EnergyCoefficients> FitEnergyCoefficients(const std::vector<EnergySample>& samples,
                                                 const EnergyFitSettings& settings);

// The baseline people use: energy = time x one average dynamic power, the
// power being the mean of measured dynamic joules / seconds over `samples`.
// InvalidInput without a sample with a positive time and energy.
Result<double> AverageDynamicWatts(const std::vector<EnergySample>& samples);

// Accuracy over a held-out set: mean absolute percentage error and the
// Spearman rank correlation of predicted against measured values.
struct PredictionAccuracy {
  int kernels = 0;
  double mape_percent = 0;
  double max_error_percent = 0;
  std::optional<double> spearman;  // nullopt with fewer than 3 kernels or constant values
};
PredictionAccuracy CompareWithMeasured(const std::vector<double>& predicted,
                                       const std::vector<double>& measured);
// Spearman's rho with average ranks for ties; nullopt as above.
std::optional<double> SpearmanRankCorrelation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace kopt
