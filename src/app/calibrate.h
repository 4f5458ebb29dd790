// `kopt calibrate`: measures the achievable ceilings of the local GPU (DRAM
// bandwidth and FP32 rate by size and occupancy, measure/calibration.h) and
// writes its ceilings table (hw/ceilings_table.h, docs/calibrate.md), which
// `kopt explain` then uses for profiles of that GPU.
//
// Without a GPU (or with KOPT_NO_GPU_QUERY=1) it fails with a message saying
// that calibration needs one (Unavailable, exit status 2). Writes the table to `output_path`, or to
// DefaultCeilingsDirectory()/CeilingsFileName(gpu) when empty; prints a summary
// (achievable DRAM bandwidth and FP32 rate at a few sizes, where the file went)
// to `out`.
//
// With `energy`, the energy model's calibration (docs/energy.md): the
// summary prints the fit's error and each coefficient with its source.
//
// Thread safety: runs children through the given CommandRunner; writes only the
// table file and the work directory.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

struct CalibrateOptions {
  std::string output_path;     // table file; empty: the default directory, named after the GPU
  std::string work_directory;  // build directory of the microbenchmarks; empty: a temporary one
  bool quick = false;          // fewer points
  bool ncu_copies = true;      // also time the copies under ncu (the curve explain prefers)
  // --energy: fit the energy proxy model instead (measure/energy_calibration.h):
  // the probes plus the references of `energy_tasks`; writes the coefficient
  // table (default: the ceilings directory, EnergyCoefficientsFileName) and the
  // samples beside it (<table>.samples.json).
  bool energy = false;
  std::vector<std::string> energy_tasks;
};

Status RunCalibrate(const CalibrateOptions& options, CommandRunner& runner, std::ostream& out);

}  // namespace kopt
