// Micro-profiling tools: expert heuristics encoded as data (KernelPro's
// "semantic feedback operator").
//
// A tool is a declaration (ToolDefinition): what it is (id, title, family, the
// side of the roofline its cause is on, its ncu-rule counterparts), what it
// reads (required and optional inputs: ncu metrics, SASS facts, ptxas facts,
// source-page facts, launch facts), when it runs (the stage-1 classes), its
// named thresholds (with defaults, overridable from a config file), its
// trigger (the condition in words, for `kopt rules`), the finding ids it may
// emit, the tools it subsumes, what its fix removes (the gain bound), which
// tunable parameters its recommendation moves (the builtin tuner's moves, per
// finding id), and `analyze` (the function that checks the trigger and builds
// the Finding).
// Everything other code needs to know about a tool is a field here; nothing
// lists tools by id elsewhere.
//
// Each tool is one file, analysis/tools/<id>.cc, defining its declaration
// function; analysis/tool_registry.cc lists them, one line each, in the fixed
// registry order. Helpers shared by several tools: analysis/tool_support.h.
//
// Contract of `analyze`: deterministic; reads only the context; returns a
// finding only when its trigger holds; every number in the finding comes from
// the context (a metric, a SASS/ptxas fact, or a computation on them) and is
// listed as Evidence with its unit; estimated_gain is a fraction of kernel
// time with `gain_method` saying how it was computed (the orchestrator caps it
// by what the roofline allows and sets severity from it). It reads only the
// thresholds it declares: reading another is a bug, reported in every build
// type (ToolContext::Threshold throws std::logic_error).
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
#include "analysis/launch_timeline.h"
#include "analysis/ncu_rule.h"
#include "analysis/roofline.h"
#include "analysis/tuning_role.h"
#include "core/status.h"
#include "hw/energy_coefficients.h"
#include "hw/gpu_spec.h"
#include "profile/kernel_launch.h"
#include "profile/ncu_source_page.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {

// kEnergyModel: the GPU's energy model coefficients (hw/energy_coefficients.h).
// A tool that requires them runs only when explain has them: energy switched
// off (no table for the GPU, --energy-model none) is not a missing input, so
// such a tool is neither run nor listed as skipped then.
enum class InputSource { kNcuMetric, kSass, kPtxas, kSourcePage, kLaunches, kEnergyModel };
// "ncu", "sass", "ptxas", "source page", "launches", "energy model"
std::string_view InputSourceName(InputSource source);

// The name of the kLaunches input that is the CUPTI launch timeline (Profile::trace) rather than the
// profile's own launches: a tool reading the timeline declares it (optional) under this name.
inline constexpr std::string_view kLaunchTimelineInput = "CUPTI launch timeline (measured gaps)";

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
  const SourcePage* source_page = nullptr;                    // ncu --page source for this kernel
  const LaunchTimeline* timeline = nullptr;                   // every launch of the profile, per function
  const std::map<std::string, double>* thresholds = nullptr;  // this tool's thresholds, overrides applied
  // The GPU's energy model coefficients (hw/energy_coefficients.h); null without a table.
  const EnergyCoefficients* energy_coefficients = nullptr;

  // The threshold's value (override or default); NotFound for a name the tool does not declare.
  Result<double> FindThreshold(std::string_view name) const;
  // The same for tool code: an undeclared name is a bug and throws std::logic_error (in every build).
  double Threshold(std::string_view name) const;
  std::optional<double> Metric(std::string_view name) const { return launch.Metric(name); }
  // The share (0..1) of stall cycles of `reason` ("long_scoreboard"), 0 when absent.
  double StallShare(std::string_view reason) const;
};

// What the fix of a tool's finding removes; decides which roofline floor caps
// its estimated gain (the orchestrator's cap).
enum class GainBound {
  kReducesTraffic,   // fewer bytes moved (coalescing, spills): capped by the compute floor
  kReducesCompute,   // fewer or cheaper instructions (FP64, MUFU, tensor cores): capped by the memory floor
  kHidesLatency,     // more overlap or parallelism (occupancy, waves, barriers): capped by the full floor
  kRemovesLaunches,  // fewer launches (fusion, CUDA Graphs): removes the fixed per-launch cost, which the
                     // kernel's own floor includes (measured floors of tiny kernels are that cost): not
                     // capped
};

// The family a tool belongs to (`kopt rules` shows it).
enum class ToolFamily { kMemory, kOccupancy, kLaunch, kCompute, kHealth };
std::string_view ToolFamilyName(ToolFamily family);  // "memory", "occupancy", "launch", "compute", "health"

// The side of stage 1's roofline the tool's cause is on. A hypothesis that
// only memory-side tools confirm is contradicted by a compute-bound kernel
// whose memory side is idle, and one that only compute-side tools confirm by
// a memory-bound kernel whose compute side is idle (agents/hypotheses.cc).
enum class ToolSide {
  kMemory,   // traffic through L1/L2/DRAM or its latency: coalescing, spills, atomics, too little in flight
  kCompute,  // instructions the SM issues: FP64, MUFU, tensor cores, index arithmetic, divergence
  kSharedMemory,  // the SM's shared-memory pipe (bank conflicts): neither side of stage 1 rules it out
  kLatency,       // parallelism and overlap: occupancy, waves, launches, imbalance, barriers
  kNone,          // the healthy verdict
};
std::string_view ToolSideName(ToolSide side);  // "memory", "compute", "shared memory", "latency", "none"

struct ToolDefinition {
  std::string id;     // "uncoalesced_loads"
  std::string title;  // "Uncoalesced global loads"
  ToolFamily family = ToolFamily::kMemory;
  ToolSide side = ToolSide::kLatency;
  // ncu rules whose advice names this tool's cause (bench/diagnosis_accuracy).
  std::vector<NcuRule> ncu_rules;
  std::vector<RequiredInput> required;
  std::vector<ThresholdDefinition> thresholds;
  // Stage-1 classes of the kernels the tool applies to: stage 1 selects it
  // for those alone (analysis/tool_selection.h, with the usual lists).
  // Required: CheckToolDefinition rejects a tool that declares none.
  std::vector<BottleneckClass> relevant_classes;
  std::string trigger;                   // the condition in words, with threshold names
  std::vector<std::string> finding_ids;  // ids its findings may carry; empty: just `id`
  // Tools whose findings share this tool's root cause: when both fire, theirs
  // are merged into this one's as extra evidence, and one with a time gain of
  // its own (>= 2% once capped) stays listed after this one as a secondary
  // cause, with at most this one's gain (analysis/orchestrator.cc).
  std::vector<std::string> subsumes;
  GainBound gain_bound = GainBound::kHidesLatency;
  // The builtin tuner's moves (docs/tuning.md "Moves"): for each finding id
  // this tool emits, which roles of tunable parameters its recommendation
  // acts on and in which direction. Empty: the remedy is structural (tensor
  // cores, fp64 literals, 64-bit indices) and no knob moves it.
  std::vector<FindingTuningMoves> tuning_moves;
  std::function<std::optional<Finding>(const ToolContext&)> analyze;
  // How the energy model prices this tool's fix (analysis/energy_analysis.h,
  // docs/energy.md): the counts after it, from the launch's counts `before`.
  // nullopt when there is nothing to price, with `why_not` set when the
  // profile lacks what the rule needs (it becomes a note of the energy
  // section). Empty: the fix is not priced in energy.
  std::function<std::optional<EnergyChange>(const ToolContext&, const EnergyCounts& before,
                                            std::string& why_not)>
      energy_change;
};

// The ids the tool's findings may carry: `finding_ids`, or just `id`.
std::vector<std::string> FindingIdsOf(const ToolDefinition& tool);

// A declaration's own consistency: id, title, trigger and analyze present;
// threshold names unique and non-empty; each tuning_moves row names one of
// the tool's finding ids, once, with at least one move and a rationale. InvalidInput naming what is wrong.
Status CheckToolDefinition(const ToolDefinition& tool);

// The registry (analysis/tool_registry.cc): every tool, in a fixed order.
const std::vector<ToolDefinition>& ToolRegistry();
// The registry's consistency: every tool checked, ids and finding ids unique,
// `subsumes` naming registered tools.
Status CheckToolRegistry(const std::vector<ToolDefinition>& tools);
const ToolDefinition* FindTool(std::string_view id);
// The tool whose findings may carry `finding_id` (its id or a documented variant), or nullptr.
const ToolDefinition* FindToolProducing(std::string_view finding_id);

}  // namespace kopt
