#include "analysis/metric_change.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kopt {
namespace {

bool Has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

MetricNoise NoiseOf(std::string_view metric, std::string_view unit) {
  if (metric.starts_with("launch__") || metric.starts_with("device__")) return {"launch configuration", 0, 0};
  if (metric.starts_with("smsp__pcsamp_")) return {"sampled stall counts", 0.35, 50};
  if (Has(metric, "warps_issue_stalled")) return {"stall reasons", 0.12, 0.05};
  if (Has(metric, "pct_of_peak") || Has(metric, ".pct") || unit == "%") return {"percentages", 0.09, 1};
  if (Has(metric, ".per_second") || Has(metric, "time") || Has(metric, "cycles"))
    return {"time, cycles and rates", 0.06, 0};
  if (Has(metric, "inst_executed") || Has(metric, "inst_issued") || Has(metric, "sass_thread_inst") ||
      Has(metric, "ops_path"))
    return {"instruction and FLOP counts", 0.02, 1};
  if (metric.starts_with("l1tex__")) return {"L1 and shared traffic", 0.01, 32};
  if (metric.starts_with("lts__") || metric.starts_with("dram__") || metric.starts_with("fbpa__"))
    return {"L2 and DRAM traffic", 0.07, 32};
  return {"other", 0.05, 0};
}

namespace {

std::vector<MetricMove> Moves(const KernelLaunch& before, const KernelLaunch& after, size_t limit,
                              bool launch_configuration) {
  std::vector<MetricMove> moves;
  if (!before.schema || !after.schema) return moves;
  const MetricSchema& schema = *before.schema;
  for (int index = 0; index < schema.size(); ++index) {
    const std::string& name = schema.Name(index);
    const double b = before.values[index];
    if (std::isnan(b)) continue;
    auto a_value = after.Metric(name);
    if (!a_value) continue;
    const double a = *a_value;
    if (a == b) continue;
    // Where the launch ran, not what it was: never a change.
    if (name == "launch__stream_id" || name == "launch__context_id" || name == "launch__device_id") continue;
    // The profiler's own bookkeeping (replay passes, saved bytes, temporaries): not the kernel's
    // (MovedMetrics and LaunchConfigurationChanges both leave them out).
    if (name.starts_with("profiler__") || name.starts_with("derived_")) continue;
    MetricNoise noise = NoiseOf(name, schema.Unit(index));
    if ((noise.relative == 0) != launch_configuration) continue;
    const double threshold = std::max(noise.relative * std::max(std::fabs(a), std::fabs(b)), noise.floor);
    const double change = std::fabs(a - b);
    if (change <= threshold) continue;
    MetricMove move;
    move.metric = name;
    move.unit = schema.Unit(index);
    move.before = b;
    move.after = a;
    move.noise = threshold;
    move.noise_units = threshold > 0 ? change / threshold : std::numeric_limits<double>::infinity();
    move.family = noise.family;
    moves.push_back(std::move(move));
  }
  auto relative = [](const MetricMove& m) {
    return std::fabs(m.after - m.before) / std::max(std::fabs(m.after), std::fabs(m.before));
  };
  std::stable_sort(moves.begin(), moves.end(), [&](const MetricMove& x, const MetricMove& y) {
    if (x.noise_units != y.noise_units) return x.noise_units > y.noise_units;
    if (relative(x) != relative(y)) return relative(x) > relative(y);
    return x.metric < y.metric;
  });
  if (limit > 0 && moves.size() > limit) moves.resize(limit);
  return moves;
}

}  // namespace

std::vector<MetricMove> MovedMetrics(const KernelLaunch& before, const KernelLaunch& after, size_t limit) {
  return Moves(before, after, limit, false);
}

std::vector<MetricMove> LaunchConfigurationChanges(const KernelLaunch& before, const KernelLaunch& after) {
  std::vector<MetricMove> moves = Moves(before, after, 0, true);
  std::sort(moves.begin(), moves.end(),
            [](const MetricMove& a, const MetricMove& b) { return a.metric < b.metric; });
  return moves;
}

MetricSetDifference CompareMetricSets(const KernelLaunch& before, const KernelLaunch& after) {
  MetricSetDifference difference;
  auto present = [](const KernelLaunch& launch, int index) { return !std::isnan(launch.values[index]); };
  if (before.schema) {
    for (int i = 0; i < before.schema->size(); ++i) {
      if (!present(before, i)) continue;
      if (after.Metric(before.schema->Name(i)))
        ++difference.common;
      else
        difference.only_before.push_back(before.schema->Name(i));
    }
  }
  if (after.schema) {
    for (int i = 0; i < after.schema->size(); ++i) {
      if (present(after, i) && !before.Metric(after.schema->Name(i)))
        difference.only_after.push_back(after.schema->Name(i));
    }
  }
  std::sort(difference.only_before.begin(), difference.only_before.end());
  std::sort(difference.only_after.begin(), difference.only_after.end());
  return difference;
}

}  // namespace kopt
