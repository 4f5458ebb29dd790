#include "analysis/time_attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

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

// Splits an additive factor X = Σ parts exactly: part p gets L_T · Δx_p / L(X1, X0).
void AddParts(const std::string& factor, const std::string& unit, const std::string& suffix,
              const std::vector<std::pair<std::string, double>>& before,
              const std::vector<std::pair<std::string, double>>& after, double total_before,
              double total_after, double time_log_mean, std::vector<AttributionTerm>& terms) {
  std::map<std::string, std::pair<double, double>> parts;
  for (const auto& [name, value] : before) parts[name].first = value;
  for (const auto& [name, value] : after) parts[name].second = value;
  double sum_before = 0, sum_after = 0;
  for (const auto& [name, values] : parts) {
    sum_before += values.first;
    sum_after += values.second;
  }
  parts["other"] = {total_before - sum_before, total_after - sum_after};
  const double factor_mean = LogMean(total_after, total_before);
  for (const auto& [name, values] : parts) {
    if (values.first == 0 && values.second == 0) continue;
    AttributionTerm term;
    term.factor = factor;
    term.part = name;
    term.label = name == "other" ? fmt::format("other {}", suffix) : fmt::format("{} {}", name, suffix);
    term.before = values.first;
    term.after = values.second;
    term.unit = unit;
    term.delta_ns = time_log_mean * (values.second - values.first) / factor_mean;
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

bool HasStallCounters(const KernelLaunch& launch) {
  for (const std::string& name : {StallCounter("selected"), std::string(kIssuedSum), std::string(kWarpsSum),
                                  std::string(kActiveCyclesSum)}) {
    if (!launch.Metric(name)) return false;
  }
  return true;
}

std::vector<std::string> MissingTimeModelMetrics(const KernelLaunch& launch) {
  std::vector<std::string> missing;
  for (const char* name : {kDuration, kIssued, kWarps, kActiveCycles}) {
    if (!launch.Metric(name)) missing.push_back(name);
  }
  if (!ElapsedCycles(launch)) missing.push_back(kElapsedCycles);
  if (!Clock(launch)) missing.push_back(kClock);
  if (!launch.Metric(StallMetric("selected"))) missing.push_back(StallMetric("selected"));
  return missing;
}

std::optional<TimeModel> ReadTimeModel(const KernelLaunch& launch, StallSource preferred) {
  if (!MissingTimeModelMetrics(launch).empty()) return std::nullopt;
  TimeModel model;
  model.duration_ns = *launch.Metric(kDuration);
  const double elapsed_cycles = *ElapsedCycles(launch);
  model.clock_hz = *Clock(launch);
  const double schedulers = Schedulers(launch);
  double active_cycles = 0;
  if (preferred == StallSource::kCounters && HasStallCounters(launch) && schedulers > 0) {
    // Every factor from a sum: ρ = warps / Σ stalled, free of the ratios' rounding.
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
      if (!value || *value <= 0) continue;
      model.stall_cycles.emplace_back(reason, *value / issued);
      model.cycles_per_issue += *value / issued;
    }
  } else {
    model.instructions_per_scheduler = *launch.Metric(kIssued);
    model.active_warps = *launch.Metric(kWarps);
    active_cycles = *launch.Metric(kActiveCycles);
    for (const std::string& reason : StallReasonNames()) {
      auto value = launch.Metric(StallMetric(reason));
      if (!value || *value <= 0) continue;
      model.stall_cycles.emplace_back(reason, *value);
      model.cycles_per_issue += *value;
    }
  }
  if (model.duration_ns <= 0 || model.instructions_per_scheduler <= 0 || model.active_warps <= 0 ||
      active_cycles <= 0 || elapsed_cycles <= 0 || model.clock_hz <= 0 || model.cycles_per_issue <= 0) {
    return std::nullopt;
  }
  model.identity_ratio =
      active_cycles * model.active_warps / (model.instructions_per_scheduler * model.cycles_per_issue);
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

TimeAttribution AttributeTimeChange(const KernelLaunch& before, const KernelLaunch& after,
                                    const RooflineAnalysis& roofline_before,
                                    const RooflineAnalysis& roofline_after) {
  TimeAttribution result;
  result.before_ns = roofline_before.duration_ns;
  result.after_ns = roofline_after.duration_ns;
  result.method =
      "T = I·S/W · ρ · 1/a · o · 1/f per warp scheduler (instructions, warp-cycles per instruction, active "
      "warps, identity residual, active share of elapsed cycles, launch overhead, clock), split by the "
      "log-mean Divisia index (exact; docs/diff.md)";
  for (const auto* launch : {&before, &after}) {
    for (std::string& name : MissingTimeModelMetrics(*launch)) {
      if (std::find(result.missing.begin(), result.missing.end(), name) == result.missing.end())
        result.missing.push_back(std::move(name));
    }
  }
  // Traffic: the levels both profiles measured.
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
      result.traffic.push_back(change);
    }
  }
  // The counter form only when both launches have it: one form for the pair.
  const StallSource source =
      HasStallCounters(before) && HasStallCounters(after) ? StallSource::kCounters : StallSource::kRatios;
  auto model_before = ReadTimeModel(before, source);
  auto model_after = ReadTimeModel(after, source);
  if (model_before && model_after && model_before->stall_source != model_after->stall_source) {
    model_before = ReadTimeModel(before, StallSource::kRatios);  // a side could not use its counters
    model_after = ReadTimeModel(after, StallSource::kRatios);
  }
  if (!model_before || !model_after) return result;
  result.available = true;
  result.stall_source = model_before->stall_source;
  if (result.stall_source == StallSource::kCounters) {
    result.method +=
        "; I, S, W and the active cycles read from counter sums (smsp__warps_issue_stalled_*.sum)";
  } else {
    result.method += "; S read from ncu's per-issue stall ratios (two decimals)";
  }
  result.before_ns = model_before->duration_ns;
  result.after_ns = model_after->duration_ns;
  result.delta_ns = result.after_ns - result.before_ns;
  const double time_mean = LogMean(result.after_ns, result.before_ns);
  // factor, label, unit, before, after, exponent (+1: T grows with it; −1: T shrinks).
  struct Factor {
    const char* factor;
    const char* label;
    const char* unit;
    double before, after;
    int exponent;
  };
  const TimeModel& b = *model_before;
  const TimeModel& a = *model_after;
  const Factor factors[] = {
      {"instructions", "instructions issued per scheduler", "inst", b.instructions_per_scheduler,
       a.instructions_per_scheduler, 1},
      {"stalls", "warp-cycles per issued instruction (stalls)", "cycle/inst", b.cycles_per_issue,
       a.cycles_per_issue, 1},
      {"occupancy", "active warps per scheduler", "warp", b.active_warps, a.active_warps, -1},
      {"waves", "schedulers' active share of elapsed cycles (waves, tail)", "fraction", b.active_share,
       a.active_share, -1},
      {"launch", "time outside the SMs' elapsed cycles (launch, front end)", "ratio", b.overhead_ratio,
       a.overhead_ratio, 1},
      {"clock", "SM clock", "Hz", b.clock_hz, a.clock_hz, -1},
      {"residual", "model residual (active cycles not explained by issue + stalls)", "ratio",
       b.identity_ratio, a.identity_ratio, 1},
  };
  for (const Factor& factor : factors) {
    AttributionTerm term;
    term.factor = factor.factor;
    term.label = factor.label;
    term.unit = factor.unit;
    term.before = factor.before;
    term.after = factor.after;
    term.delta_ns = time_mean * factor.exponent * std::log(factor.after / factor.before);
    result.terms.push_back(term);
    if (term.factor == "residual") result.residual_ns = term.delta_ns;
    if (term.factor == "instructions" && !b.pipe_instructions.empty() && !a.pipe_instructions.empty()) {
      AddParts("instructions", "inst", "pipe instructions", b.pipe_instructions, a.pipe_instructions,
               b.instructions_per_scheduler, a.instructions_per_scheduler, time_mean, result.terms);
    }
    if (term.factor == "stalls") {
      AddParts("stalls", "cycle/inst", "stall cycles per instruction", b.stall_cycles, a.stall_cycles,
               b.cycles_per_issue, a.cycles_per_issue, time_mean, result.terms);
    }
  }
  result.residual_fraction =
      result.delta_ns != 0 ? std::fabs(result.residual_ns) / std::fabs(result.delta_ns) : 0;
  return result;
}

}  // namespace kopt
