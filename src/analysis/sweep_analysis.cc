#include "analysis/sweep_analysis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "analysis/metric_change.h"
#include "core/quantity_format.h"
#include "core/text.h"

namespace kopt {
namespace {

// The work of a point: DRAM bytes (the problem's size), else L2 bytes, else
// FLOPs; FLOP counts of reductions vary with the block size, so they only
// decide when no traffic was measured.
double WorkOf(const RooflineAnalysis& roofline) {
  for (const char* level : {"dram", "l2"})
    for (const MemoryTraffic& traffic : roofline.memory)
      if (traffic.level == level && traffic.bytes > 0) return traffic.bytes;
  return roofline.total_flops;
}

// "DRAM", "L2", "L1" for the roofline's level names.
std::string LevelName(const std::string& level) {
  std::string name = level;
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string ValueText(double value) {
  return FormatNumber(value, QuantityStyle::kTrimmed);
}

// The point's limiter: class, the busiest level when memory-bound, the top finding.
std::string LimiterOf(const SweepRow& row) {
  const RooflineAnalysis& roofline = row.point.kernel.roofline;
  std::string label(BottleneckClassName(roofline.bottleneck));
  if (roofline.bottleneck == BottleneckClass::kMemoryBound && !roofline.busiest_memory_level.empty())
    label += " (" + LevelName(roofline.busiest_memory_level) + ")";
  if (row.top >= 0) label += ", " + row.point.kernel.findings[row.top].tool;
  return label;
}

int TopFinding(const KernelDiagnosis& kernel) {
  // The first ranked finding; a "healthy" verdict counts as one.
  return kernel.findings.empty() ? -1 : 0;
}

std::string Describe(const SweepSeries& series, const SweepRegime& regime, const std::string& parameter) {
  const SweepRow& first = series.rows[regime.first];
  const SweepRow& last = series.rows[regime.last];
  std::string range =
      regime.first == regime.last
          ? fmt::format("{} = {}", parameter, ValueText(first.value))
          : fmt::format("{} {} – {}", parameter, ValueText(first.value), ValueText(last.value));
  // The numbers of the regime's points: their ranges.
  double sol_low = 1e300, sol_high = 0, time_low = 1e300, time_high = 0;
  for (size_t i = regime.first; i <= regime.last; ++i) {
    const SweepRow& row = series.rows[i];
    sol_low = std::min(sol_low, row.point.kernel.roofline.speed_of_light_percent);
    sol_high = std::max(sol_high, row.point.kernel.roofline.speed_of_light_percent);
    time_low = std::min(time_low, row.point.duration_ns);
    time_high = std::max(time_high, row.point.duration_ns);
  }
  const RooflineAnalysis& roofline = last.point.kernel.roofline;
  std::string what(BottleneckClassName(roofline.bottleneck));
  if (roofline.bottleneck == BottleneckClass::kMemoryBound && !roofline.busiest_memory_level.empty()) {
    what += fmt::format(" at {} ({} of its bandwidth at {} = {})", LevelName(roofline.busiest_memory_level),
                        FormatPercent(roofline.memory_percent_of_peak, QuantityStyle::kTrimmed), parameter,
                        ValueText(last.value));
  }
  auto span = [](double low, double high, auto format) {
    return low == high ? format(low) : fmt::format("{} – {}", format(low), format(high));
  };
  std::string text = fmt::format(
      "{}: {}; {} speed of light, {}", range, what,
      span(sol_low, sol_high, [](double p) { return FormatPercent(p, QuantityStyle::kTrimmed); }),
      span(time_low, time_high, [](double t) { return FormatDuration(t, QuantityStyle::kTrimmed); }));
  if (last.top >= 0) text += fmt::format("; top finding: {}", last.point.kernel.findings[last.top].title);
  if (last.point.waves_per_sm && *last.point.waves_per_sm < 1)
    text += fmt::format("; under one wave ({} waves per SM)", ValueText(*last.point.waves_per_sm));
  return text;
}

// Rows in parameter order, each with its top finding and limiter; consecutive rows of one limiter
// form a regime; the change points between regimes and at occupancy steps.
void FindRegimes(SweepSeries& series, const std::string& parameter) {
  std::stable_sort(series.rows.begin(), series.rows.end(),
                   [](const SweepRow& a, const SweepRow& b) { return a.value < b.value; });
  for (SweepRow& row : series.rows) {
    row.top = TopFinding(row.point.kernel);
    row.limiter = LimiterOf(row);
  }
  for (size_t i = 0; i < series.rows.size(); ++i) {
    if (i == 0 || series.rows[i].limiter != series.rows[i - 1].limiter) {
      series.regimes.push_back(SweepRegime{i, i, series.rows[i].limiter, ""});
    } else {
      series.regimes.back().last = i;
    }
  }
  for (SweepRegime& regime : series.regimes) regime.description = Describe(series, regime, parameter);
  for (size_t k = 1; k < series.regimes.size(); ++k) {
    const SweepRow& a = series.rows[series.regimes[k - 1].last];
    const SweepRow& b = series.rows[series.regimes[k].first];
    series.change_points.push_back(fmt::format("between {} = {} and {}: {} → {}", parameter,
                                               ValueText(a.value), ValueText(b.value), a.limiter, b.limiter));
  }
  for (size_t i = 1; i < series.rows.size(); ++i) {
    const SweepPointInput& a = series.rows[i - 1].point;
    const SweepPointInput& b = series.rows[i].point;
    if (!a.theoretical_occupancy_percent || !b.theoretical_occupancy_percent) continue;
    const double x = *a.theoretical_occupancy_percent, y = *b.theoretical_occupancy_percent;
    if (std::fabs(y - x) < 0.25 * std::max(x, y)) continue;
    series.change_points.push_back(
        fmt::format("{} = {}: theoretical occupancy {} → {}{}", parameter, ValueText(series.rows[i].value),
                    FormatPercent(x, QuantityStyle::kTrimmed), FormatPercent(y, QuantityStyle::kTrimmed),
                    b.occupancy_limiter.empty() ? "" : fmt::format(" (limited by {})", b.occupancy_limiter)));
  }
}

// Why the fastest row of a same-work series wins: its time, and its gap to the next or a tie.
std::string FastestReason(const SweepSeries& series, size_t best, const std::string& parameter) {
  const SweepRow& winner = series.rows[best];
  std::optional<size_t> runner_up;
  for (size_t i = 0; i < series.rows.size(); ++i) {
    if (i == best) continue;
    if (!runner_up || series.rows[i].point.duration_ns < series.rows[*runner_up].point.duration_ns)
      runner_up = i;
  }
  std::string why = fmt::format("{} = {} is fastest: {}", parameter, ValueText(winner.value),
                                FormatDuration(winner.point.duration_ns, QuantityStyle::kTrimmed));
  if (!runner_up) return why;
  const SweepRow& second = series.rows[*runner_up];
  double gap = 1 - winner.point.duration_ns / second.point.duration_ns;
  // Launch-to-launch noise of a duration (metric_change.h): a smaller gap is a tie, not a winner.
  double noise = NoiseOf("gpu__time_duration.sum", "ns").relative;
  if (gap < noise) {
    return why +
           fmt::format(
               ", tied with {} = {} ({}): {} apart, within the {} a duration varies between runs", parameter,
               ValueText(second.value), FormatDuration(second.point.duration_ns, QuantityStyle::kTrimmed),
               FormatFraction(gap, QuantityStyle::kTrimmed), FormatFraction(noise, QuantityStyle::kTrimmed));
  }
  return why + fmt::format(", {} faster than the next ({} = {}, {})",
                           FormatFraction(gap, QuantityStyle::kTrimmed), parameter, ValueText(second.value),
                           FormatDuration(second.point.duration_ns, QuantityStyle::kTrimmed));
}

// The best row by the series' objective (same work everywhere → time; else speed of light) and why.
void ChooseBest(SweepSeries& series, const std::string& parameter) {
  double work_low = 1e300, work_high = 0;
  for (const SweepRow& row : series.rows) {
    const double work = WorkOf(row.point.kernel.roofline);
    work_low = std::min(work_low, work);
    work_high = std::max(work_high, work);
  }
  const bool same_work = work_high <= 1.25 * work_low;
  series.objective = same_work ? "time" : "speed of light";
  size_t best = 0;
  for (size_t i = 1; i < series.rows.size(); ++i) {
    const SweepPointInput& p = series.rows[i].point;
    const SweepPointInput& q = series.rows[best].point;
    if (same_work ? p.duration_ns < q.duration_ns
                  : p.kernel.roofline.speed_of_light_percent > q.kernel.roofline.speed_of_light_percent)
      best = i;
  }
  series.best = best;
  const SweepRow& winner = series.rows[best];
  const RooflineAnalysis& roofline = winner.point.kernel.roofline;
  std::string why =
      same_work ? FastestReason(series, best, parameter)
                : fmt::format(
                      "{} = {} runs closest to a ceiling: {} speed of light in {} (the work grows with {}, "
                      "so the fastest point is not the best)",
                      parameter, ValueText(winner.value),
                      FormatPercent(roofline.speed_of_light_percent, QuantityStyle::kTrimmed),
                      FormatDuration(winner.point.duration_ns, QuantityStyle::kTrimmed), parameter);
  why += fmt::format("; {}", BottleneckClassName(roofline.bottleneck));
  if (!roofline.busiest_memory_level.empty())
    why += fmt::format(", {} at {} of peak", LevelName(roofline.busiest_memory_level),
                       FormatPercent(roofline.memory_percent_of_peak, QuantityStyle::kTrimmed));
  if (winner.point.achieved_occupancy_percent)
    why += fmt::format(", achieved occupancy {}",
                       FormatPercent(*winner.point.achieved_occupancy_percent, QuantityStyle::kTrimmed));
  series.best_reason = why;
}

void AnalyzeSeries(SweepSeries& series, const std::string& parameter) {
  FindRegimes(series, parameter);
  ChooseBest(series, parameter);
}

}  // namespace

std::map<std::string, double> ParseParameterTokens(std::string_view path) {
  std::map<std::string, double> parameters;
  std::filesystem::path p{std::string(path)};
  std::string text;
  for (const auto& part : p.parent_path()) text += part.string() + "/";
  std::string stem = p.filename().string();
  for (const char* extension : {".csv", ".ncu-rep", ".txt", ".json"}) {
    if (EndsWith(stem, extension)) stem.resize(stem.size() - std::string_view(extension).size());
  }
  text += stem;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of("_, +/", start);
    if (end == std::string::npos) end = text.size();
    std::string_view token(text.data() + start, end - start);
    size_t equals = token.find('=');
    if (equals != std::string_view::npos && equals > 0) {
      std::string name(token.substr(0, equals));
      std::string_view value = token.substr(equals + 1);
      double scale = 1;
      if (!value.empty() &&
          (value.back() == 'k' || value.back() == 'K' || value.back() == 'M' || value.back() == 'G')) {
        scale = value.back() == 'G' ? 1024.0 * 1024 * 1024 : value.back() == 'M' ? 1024.0 * 1024 : 1024.0;
        value.remove_suffix(1);
      }
      if (auto number = ParseNumber(value)) parameters[name] = *number * scale;  // later tokens win
    }
    start = end + 1;
  }
  return parameters;
}

std::optional<double> LaunchParameter(const KernelLaunch& launch, std::string_view name) {
  if (name == "block" || name == "block_size" || name == "threads")
    return static_cast<double>(launch.block.Count());
  if (name == "grid" || name == "grid_size" || name == "blocks")
    return static_cast<double>(launch.grid.Count());
  if (name == "block_x") return static_cast<double>(launch.block.x);
  if (name == "block_y") return static_cast<double>(launch.block.y);
  if (name == "block_z") return static_cast<double>(launch.block.z);
  if (name == "grid_x") return static_cast<double>(launch.grid.x);
  if (name == "grid_y") return static_cast<double>(launch.grid.y);
  if (name == "grid_z") return static_cast<double>(launch.grid.z);
  if (name == "registers") return launch.Metric("launch__registers_per_thread");
  return launch.Metric(name);
}

void FillOccupancy(const KernelLaunch& launch, SweepPointInput& point) {
  point.theoretical_occupancy_percent = launch.Metric("sm__maximum_warps_per_active_cycle_pct");
  point.achieved_occupancy_percent = launch.Metric("sm__warps_active.avg.pct_of_peak_sustained_active");
  point.waves_per_sm = launch.Metric("launch__waves_per_multiprocessor");
  double least = 1e300;
  for (auto [metric, name] : {std::pair{"launch__occupancy_limit_registers", "registers"},
                              {"launch__occupancy_limit_shared_mem", "shared memory"},
                              {"launch__occupancy_limit_warps", "warps"},
                              {"launch__occupancy_limit_blocks", "blocks"},
                              {"launch__occupancy_limit_barriers", "barriers"}}) {
    auto value = launch.Metric(metric);
    if (value && *value < least) {
      least = *value;
      point.occupancy_limiter = name;
    }
  }
}

Result<SweepAnalysis> AnalyzeSweep(std::vector<SweepPointInput> points, const std::string& parameter) {
  SweepAnalysis analysis;
  analysis.parameter = parameter;
  std::vector<std::string> without;
  std::map<std::map<std::string, double>, SweepSeries> by_fixed;
  size_t kept = 0;
  for (SweepPointInput& point : points) {
    auto found = point.parameters.find(parameter);
    if (found == point.parameters.end()) {
      without.push_back(point.label);
      continue;
    }
    SweepRow row;
    row.value = found->second;
    std::map<std::string, double> fixed = point.parameters;
    fixed.erase(parameter);
    row.point = std::move(point);
    SweepSeries& series = by_fixed[fixed];
    series.fixed = fixed;
    series.rows.push_back(std::move(row));
    ++kept;
  }
  if (kept < 2) {
    return InvalidInput(fmt::format(
        "--sweep {}: {} of {} profiles carry a value of {} (expected {}=VALUE in the file names, a "
        "sweep.csv sidecar with a {} column, or a launch parameter such as block or grid)",
        parameter, kept, points.size(), parameter, parameter, parameter));
  }
  if (!without.empty()) {
    analysis.notes.push_back(fmt::format(
        "{} profile{} without a value of {} left out: {}", without.size(), without.size() == 1 ? "" : "s",
        parameter,
        fmt::join(
            without.size() > 5 ? std::vector<std::string>(without.begin(), without.begin() + 5) : without,
            ", ")));
  }
  for (auto& [fixed, series] : by_fixed) {
    AnalyzeSeries(series, parameter);
    analysis.series.push_back(std::move(series));
  }
  // Across series: the fastest point when every series does the same work (time objective).
  // Only when every series does the same work too (the other parameters are not sizes).
  bool all_time = std::all_of(analysis.series.begin(), analysis.series.end(),
                              [](const SweepSeries& s) { return s.objective == "time"; });
  double low = 1e300, high = 0;
  for (const SweepSeries& s : analysis.series) {
    const double work = WorkOf(s.rows[s.best].point.kernel.roofline);
    low = std::min(low, work);
    high = std::max(high, work);
  }
  all_time = all_time && high <= 1.25 * low;
  if (analysis.series.size() > 1 && all_time) {
    size_t best = 0;
    for (size_t k = 1; k < analysis.series.size(); ++k) {
      const auto& s = analysis.series[k];
      const auto& b = analysis.series[best];
      if (s.rows[s.best].point.duration_ns < b.rows[b.best].point.duration_ns) best = k;
    }
    analysis.best_series = best;
    const SweepSeries& s = analysis.series[best];
    std::vector<std::string> fixed;
    for (const auto& [name, value] : s.fixed) fixed.push_back(fmt::format("{} = {}", name, ValueText(value)));
    analysis.best_overall = fmt::format(
        "best overall: {} = {} with {} ({})", parameter, ValueText(s.rows[s.best].value),
        fmt::join(fixed, ", "), FormatDuration(s.rows[s.best].point.duration_ns, QuantityStyle::kTrimmed));
  }
  return analysis;
}

}  // namespace kopt
