// Measured ceilings of one GPU (`kopt calibrate`): what the GPU achieves, by
// size, as opposed to the datasheet peaks of gpu_spec.h. A short kernel cannot
// reach the sustained DRAM bandwidth (launch, ramp-up and drain take a fixed few
// microseconds), so it is judged against the time a tuned copy of the same
// number of bytes takes on the same GPU, measured.
//
// The table is a list of microbenchmark points (src/measure/calibrate_bench.cu:
// float4 copy and read kernels, FFMA chains and cudaMemcpy, at sizes from
// 1 MiB to 1 GiB and grids of 1-8 blocks per SM, L2 cold or hot). From them:
//  - AchievableDram(bytes): the least time any cold copy or read point moving
//    that many DRAM bytes took (at each size the fastest over grids and
//    timings; interpolated linearly in log(bytes) between measured sizes; below
//    the smallest size its duration, above the largest its rate), and the
//    bandwidth that is;
//  - AchievableFp32(flop): the same over the FFMA points, but nothing below the
//    smallest FLOP count measured (there the chains are bound by their own
//    dependent latency, no floor for another kernel's few FLOPs).
// Points timed under ncu (gpu__time_duration, timing "ncu") carry no event
// overhead (about 1 µs), so they set the short end of the DRAM curve; their
// work is the DRAM bytes ncu counted (writes still in L2 at the end are not).
//
// File format (TOML, docs/calibrate.md): format = "kopt.ceilings", version = 1,
// gpu (the device name the driver and ncu report, "NVIDIA H200"), sm_count,
// compute_capability, measured_at (ISO-8601 UTC), tool, and one [[point]] table
// per measurement: op ("copy" | "read" | "fma" | "memcpy"), work (bytes moved, read
// plus written, or FLOP), unit ("byte" | "flop"), blocks_per_sm (0 for memcpy),
// threads_per_block, l2 ("cold" | "hot"), median_ns, min_ns, timing ("events" |
// "ncu"). Units: byte, FLOP, ns, byte/s, FLOP/s.
//
// Thread safety: values and pure functions; the file functions read or write
// only the paths they are given.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

struct CeilingPoint {
  std::string op;         // "copy", "read", "fma", "memcpy"
  double work = 0;        // bytes moved (read + written) or FLOP
  std::string unit;       // "byte" or "flop"
  int blocks_per_sm = 0;  // 0 for memcpy
  int threads_per_block = 0;
  bool cold = true;  // L2 flushed before each launch
  double median_ns = 0;
  double min_ns = 0;
  std::string timing = "events";  // "events" (CUDA events around one launch) or "ncu" (gpu__time_duration)
};

struct CeilingsTable {
  static constexpr int kVersion = 1;
  std::string gpu_name;  // as the driver and ncu report it: "NVIDIA H200"
  int sm_count = 0;
  std::string compute_capability;  // "9.0"
  std::string measured_at;         // ISO-8601 UTC
  std::string tool;                // what measured it
  std::vector<CeilingPoint> points;
  std::string path;  // the file it was read from; not serialized
};

// An achievable ceiling at one size.
struct AchievableCeiling {
  double work = 0;         // the bytes or FLOP asked about
  double duration_ns = 0;  // the least time the measured points allow for that work
  double per_second = 0;   // work / duration
  std::string basis;       // "cold copy/read, 4 blocks/SM, ncu-timed, 12.6 MB .. 16.8 MB"
};

std::optional<AchievableCeiling> AchievableDram(const CeilingsTable& table, double bytes);
std::optional<AchievableCeiling> AchievableFp32(const CeilingsTable& table, double flop);

// TOML text of the table (the format above), and back. ParseCeilingsTable's
// errors name `file_name`, the point and the field.
std::string FormatCeilingsTable(const CeilingsTable& table);
Result<CeilingsTable> ParseCeilingsTable(std::string_view text, std::string_view file_name);

// The directory tables live in when none is named: $KOPT_CEILINGS_DIR, else
// $XDG_DATA_HOME/kopt/ceilings, else $HOME/.local/share/kopt/ceilings; empty
// when none of these is set.
std::string DefaultCeilingsDirectory();
// The file name calibrate gives the table of `gpu_name`: "nvidia-h200.toml".
std::string CeilingsFileName(std::string_view gpu_name);

// The table for `gpu_name` from `path`: a table file (its gpu must match), or a
// directory whose *.toml tables are searched for one whose gpu matches
// (case-insensitively). NotFound when there is none; InvalidInput for a table
// file that does not parse (a directory's unreadable files are skipped and
// named in `notes`).
Result<CeilingsTable> FindCeilingsTable(const std::string& path, std::string_view gpu_name,
                                        std::vector<std::string>& notes);

}  // namespace kopt
