// Fuzz target for the launch timeline parser (libkopt_timeline.so's JSON
// lines) and its summary. Besides "no crash", checks that every parsed
// interval ends at or after its start, that activities are in start order,
// and that the summary's counts and gaps are consistent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "profile/launch_trace.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto trace = kopt::ParseLaunchTrace(text, "fuzz.jsonl");
  if (!trace.ok()) {
    Check(!trace.status().message().empty());
    return 0;
  }
  for (size_t i = 0; i < trace->activities.size(); ++i) {
    const kopt::TraceActivity& activity = trace->activities[i];
    Check(activity.end_ns >= activity.start_ns);
    if (i > 0) Check(trace->activities[i - 1].start_ns <= activity.start_ns);
    if (activity.kind == kopt::TraceActivityKind::kKernel) {
      Check(!activity.name.empty());
      Check(activity.grid.x >= 1 && activity.block.x >= 1);
    }
  }
  for (const kopt::TraceApiCall& call : trace->api_calls) Check(call.end_ns >= call.start_ns);
  kopt::TraceSummary summary = kopt::SummarizeLaunchTrace(*trace);
  long long launches = 0;
  for (const kopt::KernelTraceSummary& kernel : summary.kernels) {
    Check(kernel.launches >= 1 && kernel.gaps <= kernel.launches);
    Check(kernel.total_gap_ns >= 0 && kernel.median_gap_ns >= 0);
    Check(kernel.minimum_duration_ns <= kernel.maximum_duration_ns);
    Check(kernel.configurations >= 1);
    launches += kernel.launches;
  }
  Check(launches == trace->KernelCount());
  Check(summary.gpu_busy_ns >= 0);
  return 0;
}
