// The result of `kopt bench` and its renderers (docs/bench.md).
//
// Formats:
//   term  an aligned table: candidate, status/kind, median time with IQR,
//         relative stdev and samples, speedup, energy per launch, flags;
//         then the reference's drift, the roofline floor and notes.
//   md    the same as a Markdown table.
//   json  schema "kopt.bench/1": every number is {"value": v, "unit": u}
//         (s, J, W, ratio, fraction, sample, byte, FLOP), null when unknown.
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "harness/runner_request.h"

namespace kopt {

inline constexpr const char* kBenchSchema = "kopt.bench/1";

// One row: the reference or a candidate.
struct BenchEntry {
  std::string name;  // file stem ("saxpy_vec4"), "reference" for the reference
  std::string path;  // as given
  std::string hash;  // SHA-256 of the source
  std::string role;  // "reference", "reference_end", "candidate"
  // "ok", "failed", "harness_error", "compiled" (--compile-only), "skipped" (the reference failed)
  std::string status;
  std::string kind;  // failure kind when failed ("harness_error" for a harness error), else ""
  std::string message;
  std::string detail;
  std::string compile_status;  // "ok", "compile_error", "missing_entry_point"
  double compile_seconds = 0;
  bool compile_cached = false;
  double measure_seconds = 0;  // wall time of its kopt-runner child (checks, timing, energy)
  std::optional<runner::TimingEvent> timing;
  std::optional<runner::EnergyEvent> energy;
  size_t checks_passed = 0;
  size_t checks_total = 0;
  std::optional<double> speedup;            // reference median / this median
  bool suspect_fast = false;                // faster than the roofline floor
  std::optional<int64_t> resumed_from_run;  // stored result of that run reused (not measured now)
};

struct BenchReport {
  std::string task;
  std::string task_directory;
  std::string architecture;  // "sm_90a"
  std::string gpu;           // device name as the runner reported it ("" when nothing ran)
  std::string workspace;
  int64_t run_id = 0;
  std::string started;  // ISO-8601 UTC
  std::vector<uint64_t> seeds;
  std::string settings_hash;
  nlohmann::json settings = nlohmann::json::object();
  BenchEntry reference;
  std::optional<BenchEntry> reference_end;  // re-timed at the end of the run
  std::optional<double> reference_drift;    // end median / start median - 1 (fraction)
  double task_flops = 0;                    // FLOP per call (0: unknown)
  double task_min_bytes = 0;                // bytes per call
  double floor_seconds = 0;                 // roofline floor (0: unknown)
  std::vector<BenchEntry> candidates;
  std::vector<std::string> notes;
  bool compile_only = false;
};

// Writes `report` in `format` ("term", "md", "json"). InvalidInput for other formats.
Status RenderBenchReport(const BenchReport& report, const std::string& format, std::ostream& out);

nlohmann::json BenchReportToJson(const BenchReport& report);

// "12.3 µs" style text for a time in seconds, "-" for none.
std::string FormatSeconds(double seconds);

}  // namespace kopt
