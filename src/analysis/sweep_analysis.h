// Sweeps: many profiles of one kernel, one parameter varied (`kopt explain
// DIR|GLOB|export --sweep NAME`).
//
// Each point is one diagnosed profile (or one launch of a multi-kernel export)
// with its parameter values: "name=value" tokens of its file name
// (ParseParameterTokens), a CSV sidecar, or the launch configuration. Points
// are grouped into series by the values of the other parameters, and each
// series is sorted by the swept value. Per point: time, achieved throughput
// per memory level and of the compute side (percent of peak), occupancy and
// its limiter, waves, class and top finding. Per series:
//  - regimes: maximal runs of consecutive points with the same limiter label
//    (class, busiest memory level, top finding), each described with its
//    range and numbers, and the change points between them (also where the
//    theoretical occupancy moves by a quarter or more);
//  - the best point and why: the least time when every point does the same
//    work (DRAM bytes, else L2 bytes, else FLOPs, within 25 %), else the
//    highest speed of light (the work grows with the parameter, so time alone
//    would pick the smallest).
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/narrative.h"
#include "core/status.h"
#include "profile/kernel_launch.h"

namespace kopt {

// "name=value" tokens of a file name (directories and extension dropped;
// tokens separated by '_', ',', ' ', '+' or '/'); numeric values only, with an
// optional k/M/G (×1024ⁿ) suffix: "n=1048576_block=256.csv" → {n, block}.
std::map<std::string, double> ParseParameterTokens(std::string_view path);

// The value of `name` from a launch's configuration: "block"/"block_size"/
// "threads" (threads per block), "grid"/"grid_size"/"blocks", "block_x",
// "grid_x" (and y, z), "registers", or any metric of the launch.
std::optional<double> LaunchParameter(const KernelLaunch& launch, std::string_view name);

struct SweepPointInput {
  std::string label;                         // file name or "launch N"
  std::map<std::string, double> parameters;  // every known parameter of the point
  KernelDiagnosis kernel;                    // the point's (longest) launch
  double duration_ns = 0;                    // every selected launch of the point
  std::optional<double> theoretical_occupancy_percent;
  std::optional<double> achieved_occupancy_percent;
  std::string
      occupancy_limiter;  // "registers", "shared memory", "warps", "blocks", "barriers"; empty: unknown
  std::optional<double> waves_per_sm;
};

// The occupancy fields of a point from its launch (launch__occupancy_limit_*,
// sm__maximum_warps_per_active_cycle_pct, sm__warps_active.avg.pct_of_peak_sustained_active,
// launch__waves_per_multiprocessor).
void FillOccupancy(const KernelLaunch& launch, SweepPointInput& point);

struct SweepRow {
  SweepPointInput point;
  double value = 0;     // the swept parameter
  std::string limiter;  // the regime label of the point
  int top = -1;         // index into point.kernel.findings of the top finding; -1: none
};

struct SweepRegime {
  size_t first = 0, last = 0;  // rows
  std::string limiter;
  std::string description;  // "n 4096 – 65536: latency-bound, ... "
};

struct SweepSeries {
  std::map<std::string, double> fixed;  // the other parameters' values
  std::vector<SweepRow> rows;           // sorted by value
  std::vector<SweepRegime> regimes;
  std::vector<std::string> change_points;  // sentences
  size_t best = 0;
  std::string objective;  // "time" or "speed of light"
  std::string best_reason;
};

struct SweepAnalysis {
  std::string parameter;
  std::vector<SweepSeries> series;    // ordered by their fixed values
  std::optional<size_t> best_series;  // the series holding the overall best point (time objective only)
  std::string best_overall;           // sentence; empty when series do not compare
  std::vector<std::string> notes;
  std::optional<Narrative> narrative;  // `--llm`; absent: not asked for
};

// InvalidInput naming the points when fewer than two have the parameter.
// Points without it are left out with a note.
Result<SweepAnalysis> AnalyzeSweep(std::vector<SweepPointInput> points, const std::string& parameter);

}  // namespace kopt
