#include "report/baseline_speedups.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/quantity_format.h"

namespace kopt {
namespace {

using nlohmann::json;

json QuantityOrNull(std::optional<double> value, const char* unit) {
  if (!value) return nullptr;
  return {{"value", *value}, {"unit", unit}};
}

std::string TimeText(double seconds) {
  return FormatDuration(seconds * 1e9, QuantityStyle::kFixed);
}

}  // namespace

std::optional<double> SpeedupAgainst(const TaskBaseline& baseline, std::optional<double> time_s) {
  if (!baseline.time_s || !time_s || !(*time_s > 0) || !std::isfinite(*time_s)) return std::nullopt;
  return *baseline.time_s / *time_s;
}

json SpeedupsAgainstJson(const std::optional<TaskBaselines>& baselines, std::optional<double> time_s) {
  if (!baselines) return nullptr;
  json speedups = json::object();
  for (PytorchBaseline kind : kPytorchBaselines) {
    speedups[std::string(PytorchBaselineName(kind))] =
        QuantityOrNull(SpeedupAgainst(baselines->Get(kind), time_s), "ratio");
  }
  return speedups;
}

json PytorchBaselinesJson(const std::optional<TaskBaselines>& baselines) {
  if (!baselines) return nullptr;
  json entries = json::array();
  for (PytorchBaseline kind : kPytorchBaselines) {
    const TaskBaseline& baseline = baselines->Get(kind);
    std::optional<double> peak;
    if (baseline.peak_memory_bytes) peak = static_cast<double>(*baseline.peak_memory_bytes);
    entries.push_back({{"name", std::string(PytorchBaselineName(kind))},
                       {"time", QuantityOrNull(baseline.time_s, "s")},
                       {"peak_memory", QuantityOrNull(peak, "byte")},
                       {"note", baseline.note}});
  }
  return {{"path", baselines->path}, {"gpu", baselines->gpu}, {"baselines", entries}};
}

std::vector<std::string> PytorchBaselineLines(const TaskBaselines& baselines, const std::string& run_gpu) {
  std::vector<std::string> parts;
  for (PytorchBaseline kind : kPytorchBaselines) {
    const TaskBaseline& baseline = baselines.Get(kind);
    parts.push_back(std::string(PytorchBaselineTitle(kind)) + " " +
                    (baseline.time_s ? TimeText(*baseline.time_s) : "not measured (" + baseline.note + ")"));
  }
  std::vector<std::string> lines = {fmt::format("PyTorch baselines ({}{}): {}", baselines.path,
                                                baselines.gpu.empty() ? "" : ", measured on " + baselines.gpu,
                                                fmt::join(parts, ", "))};
  if (!baselines.gpu.empty() && !run_gpu.empty() && baselines.gpu != run_gpu) {
    lines.push_back("note: the PyTorch baselines were measured on " + baselines.gpu + ", this run on " +
                    run_gpu +
                    ": the \"vs\" ratios compare two GPUs; re-measure them here "
                    "(bench/kernelbench_baselines.py --task-baselines)");
  }
  return lines;
}

std::string SpeedupsAgainstText(const TaskBaselines& baselines, std::optional<double> time_s) {
  std::vector<std::string> parts;
  for (PytorchBaseline kind : kPytorchBaselines) {
    std::optional<double> speedup = SpeedupAgainst(baselines.Get(kind), time_s);
    std::string title(PytorchBaselineTitle(kind));
    parts.push_back(speedup ? fmt::format("{:.2f}x vs {}", *speedup, title) : title + " not measured");
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace kopt
