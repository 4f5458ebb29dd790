// Micro-profiling tools: expert heuristics encoded as data (KernelPro's
// "semantic feedback operator").
//
// A tool is a declared 5-tuple: name, required inputs (ncu metrics, SASS
// facts, ptxas facts, source-page facts, launch facts), thresholds (named,
// with defaults, overridable from a config file), trigger (its condition,
// written out for `kopt rules`), and analysis (the function that checks the
// trigger and builds the Finding). Every tool is registered in one table
// (tool_registry.cc); one file per tool family (memory_tools.cc, ...).
//
// Contract of `analyze`: deterministic; reads only the context; returns a
// finding only when its trigger holds; every number in the finding comes from
// the context (a metric, a SASS/ptxas fact, or a computation on them) and is
// listed as Evidence with its unit; estimated_gain is a fraction of kernel
// time with `gain_method` saying how it was computed (the orchestrator caps it
// by what the roofline allows and sets severity from it).
//
// Thread safety: tool definitions are immutable; analyze may run concurrently.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/roofline.h"
#include "hw/gpu_spec.h"
#include "profile/kernel_launch.h"
#include "profile/ncu_source_page.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {

enum class InputSource { kNcuMetric, kSass, kPtxas, kSourcePage, kLaunches };
std::string_view InputSourceName(InputSource source);  // "ncu", "sass", "ptxas", "source page", "launches"

struct RequiredInput {
  InputSource source = InputSource::kNcuMetric;
  std::string name;       // metric name, or the fact ("LDL/STL count")
  bool optional = false;  // refines the analysis when present; its absence does not skip the tool
};

struct ThresholdDefinition {
  std::string name;  // "min_excess_sector_ratio"
  double default_value = 0;
  std::string unit;  // "%", "sector/request", "µs", "" ...
  std::string description;
};

// Everything a tool may read about one launch. Pointers may be null when the
// input was not collected; tools must check (and declare it in `required`).
struct ToolContext {
  const KernelLaunch& launch;
  const RooflineAnalysis& roofline;
  const std::vector<StallReason>& stalls;
  const GpuSpec* gpu = nullptr;
  const SassFunction* sass = nullptr;
  const PtxasFunctionReport* ptxas = nullptr;
  const SourcePage* source_page = nullptr;                     // ncu --page source for this kernel
  const std::vector<const KernelLaunch*>* launches = nullptr;  // every launch of the profile, in order
  const std::map<std::string, double>* thresholds = nullptr;   // this tool's thresholds, overrides applied

  // The threshold's value (override or default). Asking for an undeclared name is a bug.
  double Threshold(std::string_view name) const;
  std::optional<double> Metric(std::string_view name) const { return launch.Metric(name); }
  // The share (0..1) of stall cycles of `reason` ("long_scoreboard"), 0 when absent.
  double StallShare(std::string_view reason) const;
};

// What the fix of a tool's finding removes; decides which roofline floor caps
// its estimated gain (the orchestrator's cap).
enum class GainBound {
  kReducesTraffic,  // fewer bytes moved (coalescing, spills): capped by the compute floor
  kReducesCompute,  // fewer or cheaper instructions (FP64, MUFU, tensor cores): capped by the memory floor
  kHidesLatency,    // more overlap or parallelism (occupancy, waves, barriers): capped by the full floor
};

struct ToolDefinition {
  std::string id;      // "uncoalesced_loads"
  std::string title;   // "Uncoalesced global loads"
  std::string family;  // "memory", "occupancy", "compute", "launch", "health"
  std::vector<RequiredInput> required;
  std::vector<ThresholdDefinition> thresholds;
  // Stage-1 classes for which the tool runs; empty: every class.
  std::vector<BottleneckClass> relevant_classes;
  std::string trigger;                   // the condition in words, with threshold names
  std::vector<std::string> finding_ids;  // ids its findings may carry; empty: just `id`
  // Tools whose findings share this tool's root cause: when both fire, theirs
  // are merged into this one's as extra evidence.
  std::vector<std::string> subsumes;
  GainBound gain_bound = GainBound::kHidesLatency;
  std::function<std::optional<Finding>(const ToolContext&)> analyze;
};

// The registry: every tool, in a fixed order.
const std::vector<ToolDefinition>& ToolRegistry();
const ToolDefinition* FindTool(std::string_view id);

// Helpers for tool implementations.
inline double Clamp01(double value) { return value < 0 ? 0 : value > 1 ? 1 : value; }
inline double SafeRatio(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : 0;
}
Evidence MakeEvidence(std::string metric, double value, std::string unit, std::string comparison,
                      double threshold);

}  // namespace kopt
