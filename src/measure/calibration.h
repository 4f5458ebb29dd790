// `kopt calibrate`'s engine: builds and runs the microbenchmarks of
// calibrate_bench.cu on the local GPU and turns what they print into a
// CeilingsTable (hw/ceilings_table.h).
//
// Steps: (1) a GPU must be present (query_gpus: the CUDA driver; Unavailable
// otherwise, saying that calibration needs a GPU); (2) the embedded source is
// written to the work directory and built with nvcc -O3 -arch=native; (3) the
// program runs (CUDA-event timing: copy, read, FFMA and cudaMemcpy points);
// (4) unless disabled, its copy kernels run once each under ncu
// (gpu__time_duration, DRAM bytes), giving the ncu-timed copy points that
// explain's DRAM curve prefers (profiles are ncu-timed). A missing ncu is a
// note, not an error.
//
// Output format of the program (parsed by ParseCalibrateBenchOutput):
//   kopt-calibrate-bench,1
//   device,<name>,<sm count>,<cc>,<sm clock kHz>,<memory clock kHz>,<bus width bits>,<l2 bytes>
//   point,<op>,<work>,<unit>,<blocks per SM>,<threads per block>,<cold|hot>,<median ns>,<min ns>
//
// Thread safety: RunCalibration runs children through the given CommandRunner
// and writes only inside the work directory.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "hw/ceilings_table.h"
#include "hw/gpu_spec.h"

namespace kopt {

// The text of calibrate_bench.cu, embedded at build time.
std::string_view CalibrateBenchSource();

// The table the program's stdout describes (timing "events"); InvalidInput
// naming the line and field for anything else.
Result<CeilingsTable> ParseCalibrateBenchOutput(std::string_view text);

// ncu's raw page (--page raw --csv --print-units base) of the program run with
// --ncu: one calibrate_copy launch per size, in the program's order (1 MiB
// doubling to 1 GiB, 4 blocks/SM, 256 threads). Returns ncu-timed copy points
// (work = dram__bytes_read.sum + dram__bytes_write.sum, duration =
// gpu__time_duration.sum).
Result<std::vector<CeilingPoint>> ParseCalibrateNcuCopies(std::string_view text, std::string_view file_name);

struct CalibrationSettings {
  std::string work_directory;    // where the source and binary go; must exist
  bool quick = false;            // fewer points (calibrate_bench --quick)
  bool ncu_copies = true;        // also time the copy kernels under ncu
  double timeout_seconds = 120;  // per child
};

struct CalibrationEnvironment {
  CommandRunner* runner = nullptr;
  std::function<Result<std::vector<GpuSpec>>()> query_gpus;  // QueryLiveGpus in kopt
  std::function<std::string()> now_utc;                      // "2026-12-01T14:00:00Z"
};

struct CalibrationResult {
  CeilingsTable table;
  std::vector<std::string> notes;  // e.g. "ncu not found: the DRAM curve is event-timed"
  double build_seconds = 0, run_seconds = 0, ncu_seconds = 0;
};

Result<CalibrationResult> RunCalibration(const CalibrationSettings& settings,
                                         const CalibrationEnvironment& env);

}  // namespace kopt
