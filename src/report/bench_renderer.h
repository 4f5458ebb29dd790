// The renderer of `kopt bench`'s report (docs/bench.md): a
// MeasurementReport (measure/measure.h) as text.
//
// Formats:
//   term  an aligned table: candidate, status/kind, median time with IQR,
//         relative stdev and samples, speedup, energy per launch, flags;
//         then the reference's drift, the roofline floor and notes. With
//         the task's PyTorch baselines (harness/task_baselines.h), a
//         "vs eager", "vs TF32" and "vs torch.compile" column (baseline time
//         / median) come before the speedup, which is then titled "vs
//         reference", and a line gives the baselines' times and their GPU.
//   md    the same as a Markdown table.
//   json  schema "kopt.bench/1": every number is {"value": v, "unit": u}
//         (s, J, W, ratio, fraction, sample, byte, FLOP), null when unknown;
//         "pytorch_baselines" and each entry's "speedup_against" are null
//         when the task has no baselines.
//
// Thread safety: values and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "core/status.h"
#include "measure/measurement_report.h"

namespace kopt {

inline constexpr const char* kBenchSchema = "kopt.bench/1";

// Writes `report` in `format` ("term", "md", "json"). InvalidInput for other formats.
Status RenderBenchReport(const MeasurementReport& report, const std::string& format, std::ostream& out);

nlohmann::json BenchReportToJson(const MeasurementReport& report);

// "12.3 µs" style text for a time in seconds, "-" for none.
std::string FormatSeconds(double seconds);

}  // namespace kopt
