// Helpers shared by the micro-profiling tools (analysis/tools/*.cc): evidence,
// thresholds and inputs as the declarations spell them, metric reads with
// fallbacks, the locations a finding points at, and the kernel's own SASS
// code (without the subroutines it calls).
//
// Helpers of one family's model live beside it: analysis/latency_model.h
// (occupancy and launch tools), analysis/pipe_model.h (compute tools).
//
// Thread safety: pure functions over values.
#pragma once

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/tool.h"
#include "profile/sass_operands.h"

namespace kopt {

constexpr double kSectorBytes = 32;
// At most this many instruction locations in a compute finding.
constexpr size_t kMaxInstructionLocations = 8;

inline double Clamp01(double value) {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}
inline double SafeRatio(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : 0;
}
double Percent(double fraction);        // fraction × 100
std::string FormatCount(double value);  // "1234"

Evidence MakeEvidence(std::string metric, double value, std::string unit, std::string comparison,
                      double threshold);
RequiredInput NcuMetric(std::string name, bool optional = false);
ThresholdDefinition MakeThreshold(std::string name, double value, std::string unit, std::string description);
// The one key of "smallest estimated gain reported", `min_gain`; each tool chooses its default.
ThresholdDefinition MinGainThreshold(double default_value, std::string description);
// `min_gain` at 2% (the lower bound of "minor"): the memory tools' default.
ThresholdDefinition MemoryMinGainThreshold();
Finding NewFinding(std::string title, double confidence);

double MetricOr(const ToolContext& context, std::string_view name, double fallback);
// The share of elapsed time the SMs had resident warps; stall shares only
// describe those cycles. 1 when the cycle counters are missing.
double SmActiveFraction(const ToolContext& context);
// ncu's memory speed-of-light percentage, or stage 1's busiest level.
double MemoryThroughputPercent(const ToolContext& context);

// ---------------------------------------------------------------- locations

bool HasClass(std::initializer_list<InstructionClass> classes, InstructionClass instruction_class);

// Excess-traffic column of a source-page row for ranking (0 when absent).
using RowWeight = std::function<double(const SourcePageRow&)>;

// Locations from ncu's source page: the instructions of `classes` (all when
// empty), ranked by `weight` (excess sectors or wavefronts) and then by stall
// samples, a load's including the dependency stalls of the instructions that
// wait for its result (profile/dependency_stalls.h); at most 3. Source lines
// from `sass` (a listing with line info) when given.
std::vector<Location> SourcePageLocations(const SourcePage& page,
                                          std::initializer_list<InstructionClass> classes,
                                          const RowWeight& weight, const SassFunction* sass = nullptr);
// Locations from the SASS listing (no stall shares): the first (at most 3)
// executing instructions of `classes`.
std::vector<Location> SassLocations(const SassFunction& function,
                                    std::initializer_list<InstructionClass> classes);
// The source page's locations when it has any, else the listing's.
std::vector<Location> LocationsFor(const ToolContext& context,
                                   std::initializer_list<InstructionClass> classes,
                                   const RowWeight& weight = nullptr);

// Static count of the listing's executing instructions of `classes` (0 without SASS).
int StaticCount(const ToolContext& context, std::initializer_list<InstructionClass> classes);
// The most common access width (bits) in a width map, 0 when empty.
int DominantWidth(const std::map<int, int>& widths);

// The memory tools' gains are comparable across tools: each is a fraction of
// kernel time, the largest of
//  - a traffic term: the share of a memory level's traffic the fix removes ×
//    how busy that level is (its throughput against peak), per level (L2,
//    DRAM, the shared-memory pipe), as ncu's MemoryCacheAccessPattern and
//    SharedMemoryConflicts rules weigh theirs;
//  - a latency term: the share of warp stall cycles the removed work causes ×
//    the share of elapsed time the SMs had warps (stall shares only describe
//    active cycles), as ncu's CPIStall rule weighs stalls.
// One term of a gain estimate: its name, its inputs in words, and its value.
struct GainTerm {
  std::string description;
  double value = 0;
};
// The largest term, with every term written into `method`.
double LargestTerm(const std::vector<GainTerm>& terms, std::string& method);
// Traffic terms: the removed share of L2 and DRAM traffic × how busy each is
// (each throughput metric present is added as evidence).
void AddTrafficTerms(const ToolContext& context, double removed_share, const std::string& what,
                     std::vector<GainTerm>& terms, Finding& finding);
// Latency term: the share of stall cycles of `reasons` × `attributed` × SM-active time.
void AddLatencyTerm(const ToolContext& context, const std::vector<std::string>& reasons, double attributed,
                    const std::string& what, std::vector<GainTerm>& terms, Finding& finding);

// -------------------------------------------------------- the kernel's code

using InstructionList = std::vector<const SassInstruction*>;

// The kernel's own code: its executing instructions before the first
// subroutine a CALL enters.
unsigned long long MainBodyEnd(const SassFunction& function);
InstructionList MainBody(const SassFunction& function);
// The subroutine starting at `start`, up to and including its first RET.
InstructionList Subroutine(const SassFunction& function, unsigned long long start);

template <typename Predicate>
InstructionList Select(const InstructionList& instructions, Predicate predicate) {
  InstructionList selected;
  for (const SassInstruction* instruction : instructions) {
    if (predicate(*instruction)) selected.push_back(instruction);
  }
  return selected;
}

template <typename Predicate>
bool AnyOf(const InstructionList& instructions, Predicate predicate) {
  return std::any_of(instructions.begin(), instructions.end(),
                     [&](const SassInstruction* instruction) { return predicate(*instruction); });
}

// The source page's share of stall samples at `offset` (0 without the page).
double StallShareAt(const ToolContext& context, unsigned long long offset);
// The offending instructions as locations: the most-stalled first when the
// source page is present, else in program order; at most kMaxInstructionLocations.
std::vector<Location> LocationsOf(const ToolContext& context, const InstructionList& instructions);
double TotalStallShare(const std::vector<Location>& locations);
// Evidence row of the stall samples at the finding's locations, when the source page is present.
void AddStallShareEvidence(const ToolContext& context, Finding& finding);

}  // namespace kopt
