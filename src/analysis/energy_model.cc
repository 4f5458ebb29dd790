#include "analysis/energy_model.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace kopt {
namespace {

constexpr double kSectorBytes = 32;

// The metrics of one term: summed; `scale` turns their sum into the term's unit.
struct TermMetrics {
  EnergyTerm term;
  std::vector<std::string_view> metrics;  // summed (present ones); the term is missing when none is
  double scale = 1;
};

const std::vector<TermMetrics>& SummedTerms() {
  static const std::vector<TermMetrics> terms = {
      {EnergyTerm::kDramBytes, {"dram__bytes_read.sum", "dram__bytes_write.sum"}, 1},
      {EnergyTerm::kL2Bytes, {"lts__t_sectors.sum"}, kSectorBytes},
      {EnergyTerm::kL1Bytes,
       {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"},
       kSectorBytes},
      {EnergyTerm::kLocalBytes,
       {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"},
       kSectorBytes},
      {EnergyTerm::kSharedWavefronts, {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"}, 1},
      {EnergyTerm::kTensor16BitOps,
       {"sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
       1},
      {EnergyTerm::kTensorTf32Ops, {"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}, 1},
      {EnergyTerm::kTensor8BitOps,
       {"sm__ops_path_tensor_src_int8.sum", "sm__ops_path_tensor_src_fp8_sparsity_off.sum"},
       1},
      {EnergyTerm::kTensorFp64Ops, {"sm__ops_path_tensor_src_fp64.sum"}, 1},
      {EnergyTerm::kActiveSeconds, {"gpu__time_duration.sum"}, 1e-9},
  };
  return terms;
}

struct PipeTerm {
  EnergyTerm term;
  std::string_view metric;  // % of peak over active cycles
};
constexpr std::string_view kActiveCycles = "sm__cycles_active.sum";
constexpr PipeTerm kPipeTerms[] = {
    {EnergyTerm::kFmaPipe, "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"},
    {EnergyTerm::kAluPipe, "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"},
    {EnergyTerm::kFp64Pipe, "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active"},
    {EnergyTerm::kXuPipe, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"},
    {EnergyTerm::kLsuPipe, "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"},
};

void AddMissing(std::vector<std::string>& missing, std::string_view metric) {
  if (std::find(missing.begin(), missing.end(), metric) == missing.end()) missing.emplace_back(metric);
}

// Least squares over the columns in `active` (others 0).
Eigen::VectorXd SolveOnColumns(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                               const std::vector<bool>& active) {
  std::vector<int> columns;
  for (int j = 0; j < a.cols(); ++j) {
    if (active[j]) columns.push_back(j);
  }
  Eigen::MatrixXd sub(a.rows(), static_cast<int>(columns.size()));
  for (size_t k = 0; k < columns.size(); ++k) sub.col(static_cast<int>(k)) = a.col(columns[k]);
  Eigen::VectorXd solved = sub.colPivHouseholderQr().solve(b);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(a.cols());
  for (size_t k = 0; k < columns.size(); ++k) out(columns[k]) = solved(static_cast<int>(k));
  return out;
}

// Lawson-Hanson non-negative least squares: min |a x - b| with x >= 0.
Eigen::VectorXd NonNegativeLeastSquares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const int n = static_cast<int>(a.cols());
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(n, false);
  const double tolerance = 1e-12 * std::max(1.0, a.norm() * b.norm());
  for (int outer = 0; outer < 3 * n + 10; ++outer) {
    Eigen::VectorXd gradient = a.transpose() * (b - a * x);
    int best = -1;
    for (int j = 0; j < n; ++j) {
      if (!passive[j] && gradient(j) > tolerance && (best < 0 || gradient(j) > gradient(best))) best = j;
    }
    if (best < 0) break;
    passive[best] = true;
    for (int inner = 0; inner < 3 * n + 10; ++inner) {
      Eigen::VectorXd s = SolveOnColumns(a, b, passive);
      double alpha = 1;
      bool feasible = true;
      for (int j = 0; j < n; ++j) {
        if (passive[j] && s(j) <= 0) {
          feasible = false;
          alpha = std::min(alpha, x(j) / (x(j) - s(j)));
        }
      }
      if (feasible) {
        x = s;
        break;
      }
      x += alpha * (s - x);
      for (int j = 0; j < n; ++j) {
        if (passive[j] && x(j) <= 1e-15) {
          passive[j] = false;
          x(j) = 0;
        }
      }
    }
  }
  return x;
}

std::vector<double> AverageRanks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    double rank = 0.5 * static_cast<double>(i + j) + 1;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

}  // namespace

EnergyCounts& EnergyCounts::operator+=(const EnergyCounts& other) {
  for (size_t i = 0; i < values.size(); ++i) values[i] += other.values[i];
  for (const std::string& metric : other.missing_metrics) AddMissing(missing_metrics, metric);
  return *this;
}

EnergyCounts EnergyCounts::Scaled(double factor) const {
  EnergyCounts out = *this;
  for (double& value : out.values) value *= factor;
  return out;
}

EnergyCounts CountEnergyActivity(const KernelLaunch& launch) {
  EnergyCounts counts;
  for (const TermMetrics& term : SummedTerms()) {
    double sum = 0;
    bool any = false;
    for (std::string_view metric : term.metrics) {
      if (auto value = launch.Metric(metric)) {
        sum += *value;
        any = true;
      }
    }
    if (!any) AddMissing(counts.missing_metrics, term.metrics.front());
    counts[term.term] = sum * term.scale;
  }
  counts[EnergyTerm::kLaunches] = 1;
  auto cycles = launch.Metric(kActiveCycles);
  if (!cycles) AddMissing(counts.missing_metrics, kActiveCycles);
  for (const PipeTerm& pipe : kPipeTerms) {
    auto percent = launch.Metric(pipe.metric);
    if (!percent) AddMissing(counts.missing_metrics, pipe.metric);
    counts[pipe.term] = (percent && cycles) ? *percent / 100.0 * *cycles : 0.0;
  }
  return counts;
}

EnergyCounts CountEnergyActivity(const std::vector<KernelLaunch>& launches) {
  EnergyCounts total;
  for (const KernelLaunch& launch : launches) total += CountEnergyActivity(launch);
  return total;
}

std::vector<std::string> EnergyModelMetrics() {
  std::vector<std::string> out;
  for (const TermMetrics& term : SummedTerms()) {
    for (std::string_view metric : term.metrics) out.emplace_back(metric);
  }
  out.emplace_back(kActiveCycles);
  for (const PipeTerm& pipe : kPipeTerms) out.emplace_back(pipe.metric);
  return out;
}

EnergyPrediction PredictEnergy(const EnergyCounts& counts, const EnergyCoefficients& coefficients) {
  EnergyPrediction prediction;
  prediction.missing_metrics = counts.missing_metrics;
  prediction.coefficients_source = coefficients.path;
  for (EnergyTerm term : AllEnergyTerms()) {
    EnergyTermShare share{term, counts[term], counts[term] * coefficients.JoulesPerUnit(term), 0};
    prediction.dynamic_joules += share.joules;
    prediction.terms.push_back(share);
  }
  for (EnergyTermShare& share : prediction.terms) {
    share.share = prediction.dynamic_joules > 0 ? share.joules / prediction.dynamic_joules : 0;
  }
  double seconds = counts[EnergyTerm::kActiveSeconds];
  prediction.average_dynamic_watts = seconds > 0 ? prediction.dynamic_joules / seconds : 0;
  return prediction;
}

Result<EnergyCoefficients> FitEnergyCoefficients(const std::vector<EnergySample>& samples,
                                                 const EnergyFitSettings& settings) {
  const int rows = static_cast<int>(samples.size());
  const int columns = kEnergyTermCount;
  Eigen::MatrixXd a(rows, columns);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(rows);
  for (int i = 0; i < rows; ++i) {
    const EnergySample& sample = samples[static_cast<size_t>(i)];
    double measured = sample.measured_dynamic_joules;
    if (!std::isfinite(measured) || measured <= 0)
      return InvalidInput(fmt::format(
          "energy fit: kernel \"{}\": measured dynamic energy {} J is not positive", sample.name, measured));
    for (int j = 0; j < columns; ++j) {
      double count = sample.counts.values[static_cast<size_t>(j)];
      if (!std::isfinite(count) || count < 0)
        return InvalidInput(fmt::format("energy fit: kernel \"{}\": count of {} is {}", sample.name,
                                        EnergyTermName(AllEnergyTerms()[static_cast<size_t>(j)]), count));
      a(i, j) = count / measured;
    }
  }
  // Columns scaled to unit norm: the terms' units differ by 15 orders of magnitude.
  Eigen::VectorXd norms = a.colwise().norm().transpose();
  int exercised = 0;
  for (int j = 0; j < columns; ++j) {
    if (norms(j) > 0) {
      ++exercised;
      a.col(j) /= norms(j);
    }
  }
  if (rows < exercised)
    return InvalidInput(
        fmt::format("energy fit: {} kernels for {} exercised terms: the fit needs at least as many "
                    "kernels as terms",
                    rows, exercised));
  Eigen::VectorXd scaled = NonNegativeLeastSquares(a, b);
  EnergyCoefficients out;
  out.gpu_name = settings.gpu_name;
  out.measured_at = settings.measured_at;
  out.tool = settings.tool;
  for (int j = 0; j < columns; ++j) {
    EnergyTerm term = AllEnergyTerms()[static_cast<size_t>(j)];
    EnergyCoefficient coefficient{term, norms(j) > 0 ? scaled(j) / norms(j) : 0.0, ""};
    if (norms(j) == 0) {
      coefficient.source = "not exercised by the calibration kernels: 0";
    } else {
      // The kernel where this term's share of the measured energy is largest names the evidence.
      int dominant = 0;
      for (int i = 1; i < rows; ++i) {
        if (a(i, j) > a(dominant, j)) dominant = i;
      }
      coefficient.source = fmt::format("non-negative fit over {} calibration kernels; strongest in {}{}",
                                       rows, samples[static_cast<size_t>(dominant)].name,
                                       coefficient.joules_per_unit == 0 ? " (the fit set it to 0)" : "");
    }
    out.coefficients.push_back(std::move(coefficient));
  }
  std::vector<double> predicted, measured;
  for (const EnergySample& sample : samples) {
    predicted.push_back(PredictEnergy(sample.counts, out).dynamic_joules);
    measured.push_back(sample.measured_dynamic_joules);
  }
  PredictionAccuracy accuracy = CompareWithMeasured(predicted, measured);
  out.fit = {rows, accuracy.mape_percent, accuracy.max_error_percent};
  return out;
}

Result<double> AverageDynamicWatts(const std::vector<EnergySample>& samples) {
  double sum = 0;
  int count = 0;
  for (const EnergySample& sample : samples) {
    if (sample.seconds_per_launch > 0 && sample.measured_dynamic_joules > 0) {
      sum += sample.measured_dynamic_joules / sample.seconds_per_launch;
      ++count;
    }
  }
  if (count == 0) return InvalidInput("average dynamic power: no kernel with a positive time and energy");
  return sum / count;
}

PredictionAccuracy CompareWithMeasured(const std::vector<double>& predicted,
                                       const std::vector<double>& measured) {
  PredictionAccuracy accuracy;
  size_t n = std::min(predicted.size(), measured.size());
  std::vector<double> errors;
  for (size_t i = 0; i < n; ++i) {
    if (measured[i] == 0) continue;
    errors.push_back(std::abs(predicted[i] - measured[i]) / std::abs(measured[i]) * 100.0);
  }
  accuracy.kernels = static_cast<int>(errors.size());
  if (!errors.empty()) {
    accuracy.mape_percent =
        std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
    accuracy.max_error_percent = *std::max_element(errors.begin(), errors.end());
  }
  accuracy.spearman = SpearmanRankCorrelation(std::vector<double>(predicted.begin(), predicted.begin() + n),
                                              std::vector<double>(measured.begin(), measured.begin() + n));
  return accuracy;
}

std::optional<double> SpearmanRankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3) return std::nullopt;
  std::vector<double> ra = AverageRanks(a), rb = AverageRanks(b);
  double mean = (static_cast<double>(a.size()) + 1) / 2;
  double covariance = 0, variance_a = 0, variance_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    covariance += (ra[i] - mean) * (rb[i] - mean);
    variance_a += (ra[i] - mean) * (ra[i] - mean);
    variance_b += (rb[i] - mean) * (rb[i] - mean);
  }
  if (variance_a == 0 || variance_b == 0) return std::nullopt;
  return covariance / std::sqrt(variance_a * variance_b);
}

}  // namespace kopt
