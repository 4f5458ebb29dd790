// Kernel Tuner's JSON cache file (docs/tuning.md "Kernel Tuner cache"), so
// that measured configurations can be exchanged with it and replayed by the
// simulation mode.
//
// The file, as Kernel Tuner writes it (kernel_tuner/util.py: process_cache,
// store_cache): a header object whose last member "cache" is left open,
// then one line per result appended as the tuner runs:
//
//   {
//   "device_name": "NVIDIA H200",
//   "kernel_name": "gelu",
//   "problem_size": [33554432],
//   "tune_params_keys": ["BLOCK_SIZE", "ITEMS"],
//   "tune_params": {"BLOCK_SIZE": [64, 128], "ITEMS": [1, 2]},
//   "objective": "time",
//   "cache": {
//   "64,1": {"BLOCK_SIZE": 64, "ITEMS": 1, "time": 0.0712, "times": [...], ...},
//   "64,2": {...},
//
// closed by "}\n}" (the last comma dropped) when tuning ends. Times are
// milliseconds, as in Kernel Tuner; a configuration that failed carries the
// string "CompilationFailedConfig", "RuntimeFailedConfig" or "InvalidConfig"
// as its "time". kopt adds members Kernel Tuner ignores: "kopt_status" (the
// node status name), "kopt_findings" (the profile's finding ids, top first),
// "kopt_noise" (relative spread of the time); and to the header
// "kopt_reference_time", "kopt_source", "kopt_scalars" (below).
//
// Reading tolerates an unclosed file (a crash mid-tuning), Kernel Tuner's
// way: a missing "}\n}" is added and a trailing comma dropped; a last line
// cut mid-write is dropped.
//
// Thread safety: values; file functions are not synchronized.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "search/evaluation.h"

namespace kopt {

struct KernelTunerCacheHeader {
  std::string device_name;
  std::string kernel_name;
  std::vector<int64_t> problem_size;
  std::vector<std::string> parameter_names;                      // tune_params_keys, in order
  std::map<std::string, std::vector<int64_t>> parameter_values;  // tune_params
  std::string objective = "time";
  // kopt's header members (Kernel Tuner ignores them): the reference's time
  // in the same run ("kopt_reference_time", ms), the tunable source the
  // configurations come from ("kopt_source", a path relative to the
  // repository), and the task's scalars ("kopt_scalars") its restrictions use.
  std::optional<double> reference_time_s;
  std::string source;
  std::map<std::string, double> scalars;
};

struct KernelTunerCacheEntry {
  std::vector<int64_t> configuration;         // values in parameter_names order
  NodeStatus status = NodeStatus::kVerified;  // kVerified, or the failure
  std::optional<double> time_s;               // median, seconds (verified only)
  std::vector<double> times_s;                // the samples, when known
  double noise_fraction = 0;
  double compile_time_s = 0;
  std::vector<std::string> findings;  // finding ids, top first ("" none)
};

struct KernelTunerCache {
  KernelTunerCacheHeader header;
  std::map<std::string, KernelTunerCacheEntry> entries;  // key "v1,v2,...": Kernel Tuner's
  bool was_closed = true;                                // false: the file was left open (a crash)

  // The key Kernel Tuner uses: the values joined by commas.
  static std::string Key(const std::vector<int64_t>& configuration);
  // The verified entry with the smallest time, or nullptr.
  const KernelTunerCacheEntry* Best() const;
};

// The header text, "cache" left open (what a new cache file starts with).
std::string KernelTunerCacheHeaderText(const KernelTunerCacheHeader& header);
// One appended line: "\n\"key\": {...},".
std::string KernelTunerCacheLine(const KernelTunerCacheHeader& header, const KernelTunerCacheEntry& entry);
// The whole file, closed.
std::string KernelTunerCacheText(const KernelTunerCache& cache);

// Parses a cache file's text. InvalidInput naming `file` for anything that
// is not a Kernel Tuner cache: missing header members, an entry whose key
// does not match its parameter members, a time that is neither a number nor
// one of Kernel Tuner's failure strings.
Result<KernelTunerCache> ParseKernelTunerCache(std::string_view text, std::string_view file);

// Appends one entry to the file at `path`, creating it with the header first
// when it does not exist (and reopening a closed file, as Kernel Tuner does).
Status AppendKernelTunerCacheEntry(const std::string& path, const KernelTunerCacheHeader& header,
                                   const KernelTunerCacheEntry& entry);

}  // namespace kopt
