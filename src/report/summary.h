// What every report says, decided once for all formats: display names of
// precisions and memory levels, the verdict line that puts the real
// bottleneck first, the top stall reasons, and the order of kernels by time.
//
// Strings returned here are plain (not escaped); each renderer escapes them
// for its format.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.h"
#include "profile/kernel_launch.h"

namespace kopt {

// "fp32" → "FP32", "tensor_fp16" → "FP16 tensor", anything else upper-cased.
std::string PrecisionLabel(std::string_view precision);

// "dram" → "DRAM", "l2" → "L2", "l1" → "L1"; anything else upper-cased.
std::string MemoryLevelLabel(std::string_view level);

// The class with the memory level that binds when memory-bound: "memory-bound (L1)",
// "compute-bound". Badges and tables show it, so a memory-bound kernel plotted right
// of the DRAM ridge names the level that binds it.
std::string BottleneckLabel(const RooflineAnalysis& roofline);

// The speed of light as reports print it: "80.1%", or "not measured" when no percent behind it was
// measured (RooflineAnalysis::speed_of_light_known), never a "0%" that reads as a measurement.
std::string SpeedOfLightText(const RooflineAnalysis& roofline);

// "OP" for integer precisions (tensor_int8), else "FLOP".
std::string_view OperationUnit(std::string_view precision);

// A launch's dimensions as "1024×1×1".
std::string DimensionsText(const LaunchDimensions& dimensions);

// "ncu launch ID 3 · grid 1024×1×1 · block 256×1×1 · 32 registers/thread · 4 kB shared memory/block";
// registers and shared memory are left out when unknown. For a group of
// repeated launches it starts with LaunchSpreadText instead of "launch 3".
std::string IdentityLine(const KernelDiagnosis& kernel);

// A group of repeated launches: "1000 launches (IDs 0–999), duration min 1.9 µs · median 2.1 µs · max
// 2.4 µs; diagnosed on launch 499 (the median)"; "launch 3" for one launch.
std::string LaunchSpreadText(const KernelDiagnosis& kernel);

// The duration cell of the kernel tables: "2.1 µs", or for a group "2.1 µs × 1000" (the median).
std::string DurationCellText(const KernelDiagnosis& kernel);

// The GPU time the kernel stands for: its launches' total duration for a
// group, else the diagnosed launch's duration (ns). The tables' "share of
// time" and their order use it.
double KernelTimeNs(const KernelDiagnosis& kernel);

// The name to head a kernel's section with: ShortKernelName of the function
// name, else the demangled name, else "kernel". The full signature is the
// kernel's kernel_name (shown with --verbose, and as the HTML title).
std::string KernelTitle(const KernelDiagnosis& kernel);

// ShortKernelName (the short name headings show) is in profile/kernel_launch.h.

// True when a heading shows the full signature under the short name: it
// differs from the heading and is short (120 characters), or `verbose`.
bool ShowFullSignature(const KernelDiagnosis& kernel, bool verbose);

// The class's reason without a leading "<Class>: " the analysis may start it
// with ("Memory-bound: DRAM is at ..." → "DRAM is at ..."), since every report
// shows the class next to it.
std::string ReasonText(const RooflineAnalysis& roofline);

// The most important finding (findings are ranked by gain), or nullptr.
const Finding* PrimaryFinding(const KernelDiagnosis& kernel);

// What to say in place of the top finding when there is none: either no tool
// found a problem, or metrics were missing (then the tools could not look).
std::string NoFindingText(const KernelDiagnosis& kernel);

// "12.5% of kernel time" (the gain as a share of the kernel's duration).
std::string GainText(const Finding& finding);

// True for the "healthy" verdict (the kernel is near its ceiling): its gain is
// the next-order gain, not a problem's.
bool IsHealthyVerdict(const Finding& finding);

// "est. gain" for a problem, "next-order gain" for the healthy verdict.
std::string_view GainLabel(const Finding& finding);

// The verdict for a healthy kernel: "healthy — at 94% of its FP32 ceiling;
// next-order gain ≤ 6%". The ceiling is the busiest memory level for a
// memory-bound kernel, the dominant precision for a compute-bound one (with
// that level's or precision's percent of peak), else speed of light. The gain
// is the finding's, rounded up.
std::string HealthyVerdictText(const KernelDiagnosis& kernel, const Finding& finding);

// "also explains: a, b" for a finding with merged tools; empty otherwise.
std::string MergedToolsText(const Finding& finding);

// For a location whose result other instructions wait for (Location::waiting_share > 0):
// "89.5% stalled at 0x00f0 FFMA R7, R2, R9, 1 waiting for its result" (that part of its stall
// share); empty otherwise. Its SASS text is trimmed, not escaped.
std::string WaitingText(const Location& location);

// Skipped tools grouped by how to collect their inputs, in order of first
// appearance: the tools, and the union of their missing inputs (sorted, unique).
struct SkippedToolGroup {
  std::string how_to_collect;
  std::vector<std::string> tools;
  std::vector<std::string> missing;
};
std::vector<SkippedToolGroup> GroupSkippedTools(const std::vector<SkippedTool>& skipped);

// Joins `items` with ", ", listing at most `limit` (0: all) and then "and N more".
std::string JoinList(const std::vector<std::string>& items, size_t limit = 0);

// "≥ 60%" style comparison text of one evidence row: comparison and threshold
// formatted in the evidence's unit; empty when there is no comparison.
std::string ThresholdText(const Evidence& evidence);

// Up to `count` stall reasons, largest share first (all when count is 0).
std::vector<StallReason> TopStalls(const std::vector<StallReason>& stalls, size_t count);

// One line about the roofline floor: "floor 46.1 µs: the kernel takes 1.25× the least time its
// work needs at the ceilings"; empty when no floor is known.
std::string FloorText(const RooflineAnalysis& roofline);

// "0.167 FLOP/B", "none (no floating-point work)" when the kernel did none,
// "unknown (…)" when the profile has no FLOP counts at all.
std::string IntensityText(const RooflineAnalysis& roofline);

// Indices of the kernels, most GPU time first (KernelTimeNs; stable for equal times).
std::vector<size_t> KernelsByDuration(const Diagnosis& diagnosis);

// The sum of all kernels' KernelTimeNs (ns).
double TotalDurationNs(const Diagnosis& diagnosis);

// One line per input of the diagnosis: "raw.csv (raw page, given): the metrics of 1 launch(es); …".
std::vector<std::string> InputLines(const Diagnosis& diagnosis);

// ncu's own rule results of a kernel (details page), one line each: "UncoalescedGlobalAccess (OPT, est.
// speedup 77.3%): <the description's first sentence>"; at most `limit` (0: all).
std::vector<std::string> NcuRuleLines(const KernelDiagnosis& kernel, size_t limit = 0);

// The heading sentence of the inputs list.
inline constexpr std::string_view kInputsIntro =
    "Inputs: the files this report was made from, and what each changed";

// The heading sentence of the skipped-tools list.
inline constexpr std::string_view kSkippedToolsIntro =
    "Tools that could not run for lack of inputs, grouped by what collection would add them";

// The metric collection advice shown next to missing metrics.
inline constexpr std::string_view kMissingMetricsAdvice =
    "Collect them with ncu --set full (or the sections kopt requests) to make the diagnosis complete";

}  // namespace kopt
