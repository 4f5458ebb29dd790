// A program's launch timeline as CUPTI recorded it (libkopt_timeline.so, the
// injection library of src/timeline_injection/): every kernel's GPU start and
// end, memcpy and memset, and the host side of the launch API calls, measured
// without ncu (which serialises launches and hides the gaps between them).
//
// The file is JSON lines, format "kopt-timeline" version 1:
//   line 1  {"format":"kopt-timeline","version":1,"time_unit":"ns","pid":P}
//   then    {"kind":"kernel","name":"<mangled>","start":S,"end":E,"device":D,"context":C,"stream":T,
//            "correlation":N,"grid":[x,y,z],"block":[x,y,z],"registers":R,"shared_static":B,
//            "shared_dynamic":B}
//           {"kind":"memcpy","copy":"HtoD","bytes":B,"start":S,"end":E,"device":D,"context":C,
//            "stream":T,"correlation":N}
//           {"kind":"memset","bytes":B,"start":S,"end":E,"device":D,"context":C,"stream":T,"correlation":N}
//           {"kind":"api","name":"cudaLaunchKernel","start":S,"end":E,"thread":H,"correlation":N}
//   last    {"kind":"end","records":N,"dropped":N}
// Times are CUPTI timestamps in ns (one clock for host and GPU records); a
// record of another kind is skipped (later versions may add kinds); a file
// without the "end" line was cut short (the program crashed or was killed):
// it is read, and LaunchTrace::complete says so. Blank lines are ignored.
//
// Errors name the file, the line and the field: a first line that is not the
// header, a version other than 1, a line that is not a JSON object, a known
// kind missing a field or with a field of the wrong type, an end before its
// start, more than kMaxTraceRecords records.
//
// Thread safety: pure functions; the structs are plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "profile/kernel_launch.h"

namespace kopt {

inline constexpr int kLaunchTraceVersion = 1;
inline constexpr size_t kMaxTraceRecords = size_t{20}
                                           << 20;  // 20 M records: far above any program we profile

enum class TraceActivityKind { kKernel, kMemcpy, kMemset };
std::string_view TraceActivityKindName(TraceActivityKind kind);  // "kernel", "memcpy", "memset"

// One piece of GPU work on the timeline.
struct TraceActivity {
  TraceActivityKind kind = TraceActivityKind::kKernel;
  std::string name;  // kernel: the (mangled) name CUPTI gives; memcpy: the direction ("HtoD"); memset: ""
  uint64_t start_ns = 0, end_ns = 0;
  long long device = 0, context = 0, stream = 0, correlation = 0;
  LaunchDimensions grid, block;                                                // kernels only
  long long registers = 0, shared_static_bytes = 0, shared_dynamic_bytes = 0;  // kernels only
  long long bytes = 0;                                                         // memcpy and memset only
  double DurationNs() const { return static_cast<double>(end_ns - start_ns); }
};

// One host-side launch API call (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch, …).
struct TraceApiCall {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
  long long thread = 0, correlation = 0;
};

struct LaunchTrace {
  int version = kLaunchTraceVersion;
  long long process_id = 0;
  std::vector<TraceActivity> activities;  // in start order (stable for equal starts)
  std::vector<TraceApiCall> api_calls;    // in start order
  bool complete = true;                   // every file had its "end" line
  long long dropped_records = 0;          // records CUPTI reported lost (its buffers were full)
  std::vector<std::string> files;         // the files read, in order

  long long KernelCount() const;
};

// Parses one timeline file's text; `file_name` is used in messages.
Result<LaunchTrace> ParseLaunchTrace(std::string_view text, std::string_view file_name);

// Per kernel function, what the timeline measured.
struct KernelTraceSummary {
  std::string function_name;  // FunctionNameOf(Demangle(name)): as KernelLaunch::FunctionName() spells it
  std::string kernel_name;    // the name as recorded (mangled), of its first launch
  long long launches = 0;
  double total_duration_ns = 0, minimum_duration_ns = 0, maximum_duration_ns = 0;
  // The GPU idle before each launch: its start minus the latest end of all earlier GPU work on its
  // device (0 when it overlaps or follows at once); the device's first activity has none.
  long long gaps = 0;  // launches with a predecessor on their device
  double total_gap_ns = 0, median_gap_ns = 0;
  // The host side: launch API calls matched to these launches by correlation id.
  long long host_calls = 0;
  double total_host_call_ns = 0;
  long long configurations = 0;  // distinct (grid, block) shapes

  double MeanDurationNs() const { return launches > 0 ? total_duration_ns / launches : 0; }
  double MeanGapNs() const { return gaps > 0 ? total_gap_ns / gaps : 0; }
  double MeanHostCallNs() const { return host_calls > 0 ? total_host_call_ns / host_calls : 0; }
};

struct TraceSummary {
  std::vector<KernelTraceSummary> kernels;  // in order of first launch
  long long memcpy_count = 0, memset_count = 0;
  double memcpy_bytes = 0, memcpy_ns = 0;
  double span_ns = 0;      // first GPU start to last GPU end
  double gpu_busy_ns = 0;  // union of all GPU activity intervals, per device, summed

  const KernelTraceSummary* Find(std::string_view function_name) const;  // nullptr when absent
};

// O(n log n) in the number of records.
TraceSummary SummarizeLaunchTrace(const LaunchTrace& trace);

// Appends `other` (another process of the same program) to `trace`: activities
// and calls merged in start order, counts added, completeness and-ed.
void MergeLaunchTrace(LaunchTrace& trace, LaunchTrace other);

// Reads and merges timeline files (one per process of the program); errors
// name the file. InvalidInput when `paths` is empty.
Result<LaunchTrace> ReadLaunchTraceFiles(const std::vector<std::string>& paths);

// The timeline files libkopt_timeline.so wrote into `directory`
// (timeline*.jsonl), sorted by name; empty when there are none.
std::vector<std::string> FindLaunchTraceFiles(const std::string& directory);

}  // namespace kopt
