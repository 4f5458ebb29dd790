#include "analysis/time_attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "analysis/stalls.h"

namespace kopt {
namespace {

constexpr const char* kDuration = "gpu__time_duration.sum";
constexpr const char* kIssued = "smsp__inst_issued.avg";
constexpr const char* kIssuedSum = "smsp__inst_issued.sum";
constexpr const char* kWarps = "smsp__warps_active.avg.per_cycle_active";
constexpr const char* kWarpsSum = "smsp__warps_active.sum";
constexpr const char* kActiveCycles = "smsp__cycles_active.avg";
constexpr const char* kActiveCyclesSum = "smsp__cycles_active.sum";
constexpr const char* kElapsedCycles = "sm__cycles_elapsed.avg";
constexpr const char* kClock = "sm__cycles_elapsed.avg.per_second";

// The pipes whose executed-instruction counts split the instruction factor
// (sm__inst_executed_pipe_<pipe>.sum); each instruction executes in one of them.
const std::vector<std::string>& Pipes() {
  static const std::vector<std::string> kPipes = {"adu",
                                                  "alu",
                                                  "cbu",
                                                  "fma",
                                                  "fp64",
                                                  "lsu",
                                                  "tex",
                                                  "uniform",
                                                  "xu",
                                                  "tensor_op_hmma",
                                                  "tensor_op_gmma",
                                                  "tensor_op_imma",
                                                  "tensor_op_dmma"};
  return kPipes;
}

// Schedulers of the launch: from the inst_issued sum/avg pair, else 4 per SM; 0 when unknown.
double Schedulers(const KernelLaunch& launch) {
  auto sum = launch.Metric(kIssuedSum);
  auto avg = launch.Metric(kIssued);
  if (sum && avg && *avg > 0) return *sum / *avg;
  if (auto sms = launch.Metric("launch__sm_count")) return 4 * *sms;
  return 0;
}

// Elapsed SM cycles: sm__cycles_elapsed.avg, else smsp__cycles_elapsed.avg,
// else smsp__cycles_elapsed.sum per scheduler (section sets without the SM rollup).
std::optional<double> ElapsedCycles(const KernelLaunch& launch) {
  if (auto value = launch.Metric(kElapsedCycles)) return value;
  if (auto value = launch.Metric("smsp__cycles_elapsed.avg")) return value;
  auto sum = launch.Metric("smsp__cycles_elapsed.sum");
  double schedulers = Schedulers(launch);
  if (sum && schedulers > 0) return *sum / schedulers;
  return std::nullopt;
}

std::optional<double> Clock(const KernelLaunch& launch) {
  if (auto value = launch.Metric(kClock)) return value;
  return launch.Metric("smsp__cycles_elapsed.avg.per_second");
}

std::string StallMetric(const std::string& reason) {
  return fmt::format("smsp__average_warps_issue_stalled_{}_per_issue_active.ratio", reason);
}

std::string StallCounter(const std::string& reason) {
  return fmt::format("smsp__warps_issue_stalled_{}.sum", reason);
}

// The launch-to-launch noise of one side's factors: σ of ln X per factor
// ("duration" too), and the standard deviation of each part's value.
struct SideNoise {
  std::map<std::string, double> factor;
  std::map<std::pair<std::string, std::string>, double> part;  // (factor, part) → sd, the part's unit
  size_t launches = 1;
  bool from_repeats = false;
};

std::vector<std::pair<std::string, double>> FactorValues(const TimeModel& model) {
  return {{"instructions", model.instructions_per_scheduler},
          {"stalls", model.cycles_per_issue},
          {"occupancy", model.active_warps},
          {"waves", model.active_share},
          {"launch", model.overhead_ratio},
          {"clock", model.clock_hz},
          {"duration", model.duration_ns}};
}

// The parts of an additive factor with "other" (the total less the named parts) added.
std::map<std::string, double> PartsWithOther(const std::vector<std::pair<std::string, double>>& parts,
                                             double total) {
  std::map<std::string, double> result;
  double sum = 0;
  for (const auto& [name, value] : parts) {
    result[name] = value;
    sum += value;
  }
  result["other"] = total - sum;
  return result;
}

double SampleDeviation(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

SideNoise NoiseOfSide(const TimeModel& model, const std::vector<const KernelLaunch*>& repeats,
                      StallSource source) {
  std::vector<TimeModel> models;
  for (const KernelLaunch* launch : repeats) {
    if (!launch) continue;
    auto repeat = ReadTimeModel(*launch, source);
    if (repeat && repeat->stall_source == source) models.push_back(*repeat);
  }
  SideNoise noise;
  if (models.size() >= 2) {
    noise.from_repeats = true;
    noise.launches = models.size();
    for (size_t k = 0; k < FactorValues(model).size(); ++k) {
      std::vector<double> logs;
      for (const TimeModel& repeat : models) logs.push_back(std::log(FactorValues(repeat)[k].second));
      noise.factor[FactorValues(model)[k].first] = SampleDeviation(logs);
    }
    std::map<std::pair<std::string, std::string>, std::vector<double>> parts;
    for (size_t m = 0; m < models.size(); ++m) {
      for (const auto& [factor, values, total] :
           {std::tuple{"stalls", &models[m].stall_cycles, models[m].cycles_per_issue},
            std::tuple{"instructions", &models[m].pipe_instructions, models[m].instructions_per_scheduler}}) {
        for (const auto& [name, value] : PartsWithOther(*values, total)) {
          auto& column = parts[{factor, name}];
          column.resize(m, 0.0);  // a part absent from earlier launches was 0 there
          column.push_back(value);
        }
      }
    }
    for (auto& [key, column] : parts) {
      column.resize(models.size(), 0.0);
      noise.part[key] = SampleDeviation(column);
    }
    return noise;
  }
  // One launch: the difference between two of its replays' warp-cycles as the
  // scale of every run-dependent factor; instruction counts do not depend on the run.
  // o is 1 to rounding when ncu derived the clock from the duration (f = C_elapsed / T): then
  // it is an identity, not a measurement, and has no run to vary with either.
  const double scale = std::fabs(std::log(model.identity_ratio));
  const bool overhead_is_identity = std::fabs(std::log(model.overhead_ratio)) < 1e-4;
  for (const auto& [name, value] : FactorValues(model)) {
    noise.factor[name] = name == "instructions" || (name == "launch" && overhead_is_identity) ? 0 : scale;
  }
  for (const auto& [name, value] : PartsWithOther(model.stall_cycles, model.cycles_per_issue))
    noise.part[{"stalls", name}] = std::fabs(value) * scale;
  return noise;
}

double PartDeviation(const SideNoise& noise, const std::string& factor, const std::string& part) {
  auto it = noise.part.find({factor, part});
  return it == noise.part.end() ? 0 : it->second;
}

// Splits an additive factor X = Σ parts exactly: part p gets L_T · Δx_p / L(X1, X0),
// with uncertainty L_T · sqrt(sd0² + sd1²) / L(X1, X0).
void AddParts(const std::string& factor, const std::string& unit, const std::string& suffix,
              const std::vector<std::pair<std::string, double>>& before,
              const std::vector<std::pair<std::string, double>>& after, double total_before,
              double total_after, double time_log_mean, const SideNoise& noise_before,
              const SideNoise& noise_after, std::vector<AttributionTerm>& terms) {
  std::map<std::string, std::pair<double, double>> parts;
  for (const auto& [name, value] : PartsWithOther(before, total_before)) parts[name].first = value;
  for (const auto& [name, value] : PartsWithOther(after, total_after)) parts[name].second = value;
  const double factor_mean = LogMean(total_after, total_before);
  // "other" of a factor split completely (the stalls' shares) is rounding only.
  const double negligible = 1e-9 * std::max(total_before, total_after);
  for (const auto& [name, values] : parts) {
    if (std::fabs(values.first) <= (name == "other" ? negligible : 0) &&
        std::fabs(values.second) <= (name == "other" ? negligible : 0))
      continue;
    AttributionTerm term;
    term.factor = factor;
    term.part = name;
    term.label = name == "other" ? fmt::format("other {}", suffix) : fmt::format("{} {}", name, suffix);
    term.before = values.first;
    term.after = values.second;
    term.unit = unit;
    term.delta_ns = time_log_mean * (values.second - values.first) / factor_mean;
    term.uncertainty_ns =
        time_log_mean *
        std::hypot(PartDeviation(noise_before, factor, name), PartDeviation(noise_after, factor, name)) /
        factor_mean;
    terms.push_back(term);
  }
}

}  // namespace

double LogMean(double x, double y) {
  if (x <= 0 || y <= 0) return 0;
  if (std::fabs(x - y) <= 1e-12 * std::max(x, y)) return x;
  return (x - y) / (std::log(x) - std::log(y));
}

const char* StallSourceName(StallSource source) {
  return source == StallSource::kCounters ? "counters" : "ratios";
}

const char* UncertaintySourceName(UncertaintySource source) {
  return source == UncertaintySource::kRepeats ? "repeats" : "pass mismatch";
}

bool HasStallCounters(const KernelLaunch& launch) {
  for (const std::string& name : {StallCounter("selected"), std::string(kIssuedSum), std::string(kWarpsSum),
                                  std::string(kActiveCyclesSum)}) {
    if (!launch.Metric(name)) return false;
  }
  return true;
}

namespace {

// The ratio form's metrics `launch` lacks.
std::vector<std::string> MissingRatioMetrics(const KernelLaunch& launch) {
  std::vector<std::string> missing;
  for (const char* name : {kDuration, kIssued, kWarps, kActiveCycles}) {
    if (!launch.Metric(name)) missing.push_back(name);
  }
  if (!ElapsedCycles(launch)) missing.push_back(kElapsedCycles);
  if (!Clock(launch)) missing.push_back(kClock);
  if (!launch.Metric(StallMetric("selected"))) missing.push_back(StallMetric("selected"));
  return missing;
}

}  // namespace

std::vector<std::string> MissingTimeModelMetrics(const KernelLaunch& launch) {
  if (HasStallCounters(launch) && Schedulers(launch) > 0) {  // the counter form needs no ratio
    std::vector<std::string> missing;
    if (!launch.Metric(kDuration)) missing.push_back(kDuration);
    if (!ElapsedCycles(launch)) missing.push_back(kElapsedCycles);
    if (!Clock(launch)) missing.push_back(kClock);
    return missing;
  }
  return MissingRatioMetrics(launch);
}

std::optional<TimeModel> ReadTimeModel(const KernelLaunch& launch, StallSource preferred) {
  if (!MissingTimeModelMetrics(launch).empty()) return std::nullopt;
  TimeModel model;
  model.duration_ns = *launch.Metric(kDuration);
  const double elapsed_cycles = *ElapsedCycles(launch);
  model.clock_hz = *Clock(launch);
  const double schedulers = Schedulers(launch);
  double active_cycles = 0;
  // The stall counts as read: per reason, warp-cycles per issued instruction.
  std::vector<std::pair<std::string, double>> counts;
  if (preferred == StallSource::kCounters && HasStallCounters(launch) && schedulers > 0) {
    // Every factor from a sum, free of the ratios' rounding.
    model.stall_source = StallSource::kCounters;
    const double issued = *launch.Metric(kIssuedSum);
    const double warps = *launch.Metric(kWarpsSum);
    const double cycles = *launch.Metric(kActiveCyclesSum);
    if (issued <= 0 || cycles <= 0) return std::nullopt;
    model.instructions_per_scheduler = issued / schedulers;
    model.active_warps = warps / cycles;
    active_cycles = cycles / schedulers;
    for (const std::string& reason : StallReasonNames()) {
      auto value = launch.Metric(StallCounter(reason));
      if (value && *value > 0) counts.emplace_back(reason, *value / issued);
    }
  } else {
    if (!MissingRatioMetrics(launch).empty()) return std::nullopt;
    model.instructions_per_scheduler = *launch.Metric(kIssued);
    model.active_warps = *launch.Metric(kWarps);
    active_cycles = *launch.Metric(kActiveCycles);
    for (const std::string& reason : StallReasonNames()) {
      auto value = launch.Metric(StallMetric(reason));
      if (value && *value > 0) counts.emplace_back(reason, *value);
    }
  }
  for (const auto& [reason, value] : counts) model.stall_sum_per_issue += value;
  if (model.duration_ns <= 0 || model.instructions_per_scheduler <= 0 || model.active_warps <= 0 ||
      active_cycles <= 0 || elapsed_cycles <= 0 || model.clock_hz <= 0 || model.stall_sum_per_issue <= 0) {
    return std::nullopt;
  }
  // S from the totals; the stall counts give its composition only.
  model.cycles_per_issue = active_cycles * model.active_warps / model.instructions_per_scheduler;
  model.identity_ratio = model.cycles_per_issue / model.stall_sum_per_issue;
  for (const auto& [reason, value] : counts)
    model.stall_cycles.emplace_back(reason, model.cycles_per_issue * value / model.stall_sum_per_issue);
  model.active_share = active_cycles / elapsed_cycles;
  model.overhead_ratio = model.duration_ns * 1e-9 * model.clock_hz / elapsed_cycles;
  if (schedulers > 0) {
    for (const std::string& pipe : Pipes()) {
      if (auto count = launch.Metric(fmt::format("sm__inst_executed_pipe_{}.sum", pipe))) {
        model.pipe_instructions.emplace_back(pipe, *count / schedulers);
      }
    }
  }
  return model;
}

namespace {

void AddMissing(std::vector<std::string> names, std::vector<std::string>& missing) {
  for (std::string& name : names) {
    if (std::find(missing.begin(), missing.end(), name) == missing.end()) missing.push_back(std::move(name));
  }
}

// Traffic: the levels both profiles measured.
std::vector<TrafficChange> TrafficChanges(const RooflineAnalysis& roofline_before,
                                          const RooflineAnalysis& roofline_after) {
  std::vector<TrafficChange> changes;
  for (const MemoryTraffic& level_after : roofline_after.memory) {
    for (const MemoryTraffic& level_before : roofline_before.memory) {
      if (level_before.level != level_after.level) continue;
      TrafficChange change;
      change.level = level_after.level;
      change.bytes_before = level_before.bytes;
      change.bytes_after = level_after.bytes;
      change.achieved_before = level_before.achieved_bytes_per_second;
      change.achieved_after = level_after.achieved_bytes_per_second;
      change.peak_bytes_per_second = level_after.peak_bytes_per_second;
      const double delta_bytes = change.bytes_after - change.bytes_before;
      if (change.peak_bytes_per_second > 0)
        change.floor_delta_ns = delta_bytes / change.peak_bytes_per_second * 1e9;
      if (change.achieved_after > 0) change.at_achieved_ns = delta_bytes / change.achieved_after * 1e9;
      changes.push_back(change);
    }
  }
  return changes;
}

// Both sides' time models in one stall form: the counter form only when both launches have it.
// Empty when a side lacks its form's metrics (then named in `missing`).
std::optional<std::pair<TimeModel, TimeModel>> ReadBothTimeModels(const KernelLaunch& before,
                                                                  const KernelLaunch& after,
                                                                  std::vector<std::string>& missing) {
  const StallSource source =
      HasStallCounters(before) && HasStallCounters(after) ? StallSource::kCounters : StallSource::kRatios;
  auto model_before = ReadTimeModel(before, source);
  auto model_after = ReadTimeModel(after, source);
  if (model_before && model_after && model_before->stall_source != model_after->stall_source) {
    model_before = ReadTimeModel(before, StallSource::kRatios);  // a side could not use its counters
    model_after = ReadTimeModel(after, StallSource::kRatios);
  }
  if (model_before && model_after) return std::make_pair(*model_before, *model_after);
  if (source == StallSource::kRatios) {  // a side read in the ratio form it lacks
    for (const auto* launch : {&before, &after}) AddMissing(MissingRatioMetrics(*launch), missing);
  }
  return std::nullopt;
}

// The six factors' terms (with the pipes' and stall reasons' parts) of a change whose log-mean time is
// `time_mean`; returns the factors' sum.
double AddFactorTerms(const TimeModel& b, const TimeModel& a, double time_mean, const SideNoise& noise_before,
                      const SideNoise& noise_after, std::vector<AttributionTerm>& terms) {
  // factor, label, unit, before, after, exponent (+1: T grows with it; −1: T shrinks).
  struct Factor {
    const char* factor;
    const char* label;
    const char* unit;
    double before, after;
    int exponent;
  };
  const Factor factors[] = {
      {"instructions", "instructions issued per scheduler", "inst", b.instructions_per_scheduler,
       a.instructions_per_scheduler, 1},
      {"stalls", "warp-cycles per instruction (stalls)", "cycle/inst", b.cycles_per_issue, a.cycles_per_issue,
       1},
      {"occupancy", "active warps per scheduler", "warp", b.active_warps, a.active_warps, -1},
      {"waves", "active share of elapsed cycles (waves, tail)", "fraction", b.active_share, a.active_share,
       -1},
      {"launch", "time outside the SM cycles (launch, front end)", "ratio", b.overhead_ratio,
       a.overhead_ratio, 1},
      {"clock", "SM clock", "Hz", b.clock_hz, a.clock_hz, -1},
  };
  double factor_sum = 0;
  for (const Factor& factor : factors) {
    AttributionTerm term;
    term.factor = factor.factor;
    term.label = factor.label;
    term.unit = factor.unit;
    term.before = factor.before;
    term.after = factor.after;
    term.delta_ns = time_mean * factor.exponent * std::log(factor.after / factor.before);
    term.uncertainty_ns =
        time_mean * std::hypot(noise_before.factor.at(factor.factor), noise_after.factor.at(factor.factor));
    factor_sum += term.delta_ns;
    terms.push_back(term);
    if (term.factor == "instructions" && !b.pipe_instructions.empty() && !a.pipe_instructions.empty()) {
      AddParts("instructions", "inst", "pipe instructions", b.pipe_instructions, a.pipe_instructions,
               b.instructions_per_scheduler, a.instructions_per_scheduler, time_mean, noise_before,
               noise_after, terms);
    }
    if (term.factor == "stalls") {
      AddParts("stalls", "cycle/inst", "stall cycles/inst", b.stall_cycles, a.stall_cycles,
               b.cycles_per_issue, a.cycles_per_issue, time_mean, noise_before, noise_after, terms);
    }
  }
  return factor_sum;
}

}  // namespace

TimeAttribution AttributeTimeChange(const KernelLaunch& before, const KernelLaunch& after,
                                    const RooflineAnalysis& roofline_before,
                                    const RooflineAnalysis& roofline_after,
                                    const AttributionRepeats& repeats) {
  TimeAttribution result;
  result.before_ns = roofline_before.duration_ns;
  result.after_ns = roofline_after.duration_ns;
  result.method =
      "T = I·S/W · 1/a · o · 1/f per warp scheduler (instructions, active warp-cycles per instruction, "
      "active warps, active share of elapsed cycles, launch overhead, clock), split by the log-mean Divisia "
      "index (exact; docs/diff.md); S from the active-warp total, split into stall reasons by their shares "
      "of the stall counts";
  for (const auto* launch : {&before, &after}) AddMissing(MissingTimeModelMetrics(*launch), result.missing);
  result.traffic = TrafficChanges(roofline_before, roofline_after);
  std::optional<std::pair<TimeModel, TimeModel>> models = ReadBothTimeModels(before, after, result.missing);
  if (!models) return result;
  const TimeModel& b = models->first;
  const TimeModel& a = models->second;
  result.available = true;
  result.stall_source = b.stall_source;
  if (result.stall_source == StallSource::kCounters) {
    result.method += "; I, S, W, the active cycles and the shares read from counter sums";
  } else {
    result.method += "; the shares read from ncu's per-issue stall ratios (two decimals)";
  }
  result.before_ns = b.duration_ns;
  result.after_ns = a.duration_ns;
  result.delta_ns = result.after_ns - result.before_ns;
  const double time_mean = LogMean(result.after_ns, result.before_ns);
  const SideNoise noise_before = NoiseOfSide(b, repeats.before, result.stall_source);
  const SideNoise noise_after = NoiseOfSide(a, repeats.after, result.stall_source);
  result.uncertainty_source = noise_before.from_repeats && noise_after.from_repeats
                                  ? UncertaintySource::kRepeats
                                  : UncertaintySource::kPassMismatch;
  result.launches_before = noise_before.launches;
  result.launches_after = noise_after.launches;
  result.change_uncertainty_ns =
      time_mean * std::hypot(noise_before.factor.at("duration"), noise_after.factor.at("duration"));
  result.rho_before = b.identity_ratio;
  result.rho_after = a.identity_ratio;
  result.pass_mismatch_ns = time_mean * std::fabs(std::log(a.identity_ratio / b.identity_ratio));
  double factor_sum = AddFactorTerms(b, a, time_mean, noise_before, noise_after, result.terms);
  result.residual_ns = result.delta_ns - factor_sum;
  result.residual_fraction =
      result.delta_ns != 0 ? std::fabs(result.residual_ns) / std::fabs(result.delta_ns) : 0;
  return result;
}

}  // namespace kopt
