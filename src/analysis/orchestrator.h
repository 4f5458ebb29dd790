// Proactive orchestration (KernelPro's stage 2): for one launch, every
// registered tool relevant to its stage-1 class runs, deterministically, in
// registry order; none depends on being asked for. Then:
//  - a tool whose required (non-optional) inputs are missing is reported as
//    skipped, with what collection would add them;
//  - findings sharing a root cause are merged (a tool's `subsumes` list);
//  - each estimated gain is capped by what the roofline allows
//    (1 − floor/duration), and severity follows from the capped gain;
//  - on a kernel judged healthy (the "healthy" verdict stands: no other
//    finding reaches its max_other_gain; on a kernel already at the fixed cost
//    of a launch, none but a launch-removing one) and at or above
//    `healthy_percent` speed of light or measured achievable %, no finding is
//    above "minor";
//  - when no tool fired and there is no healthy verdict, the dominant stall
//    reason (barrier/membar, long_scoreboard; >= 30% of the stall cycles) names
//    its tool in a fallback finding, its gain min(share, 1 − issue rate,
//    throughput headroom), at most "minor";
//  - findings are ranked: a "healthy" verdict first, then by estimated gain.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/tool.h"

namespace kopt {

struct OrchestrationOptions {
  // Threshold overrides: tool id → threshold name → value (from a config file).
  std::map<std::string, std::map<std::string, double>> threshold_overrides;
  // Tools turned off (`enabled = false` in their [tools.<id>] table): not run, and said so in each
  // kernel's notes; their findings appear nowhere, the dominant-stall fallback's included.
  std::set<std::string> disabled_tools;
  double healthy_percent = 90;  // speed of light at or above this: the kernel is near its ceiling
};

// The inputs for one launch, as ToolContext needs them (without thresholds).
struct LaunchInputs {
  const KernelLaunch* launch = nullptr;
  const GpuSpec* gpu = nullptr;
  const SassFunction* sass = nullptr;
  const PtxasFunctionReport* ptxas = nullptr;
  const SourcePage* source_page = nullptr;
  const LaunchTimeline* timeline = nullptr;
  const EnergyCoefficients* energy_coefficients = nullptr;  // the GPU's energy model; null: none
};

// True when `tool` requires the energy model (InputSource::kEnergyModel): without
// coefficients it is not run and not listed as skipped.
bool NeedsEnergyModel(const ToolDefinition& tool);

// Runs the tools over one kernel and fills kernel.findings and kernel.skipped_tools.
void RunTools(const LaunchInputs& inputs, const OrchestrationOptions& options, KernelDiagnosis& kernel);

// Severity for a capped gain (fraction of kernel time).
Severity SeverityForGain(double gain);

// Thresholds for one tool: its defaults with the overrides applied.
std::map<std::string, double> ResolveThresholds(const ToolDefinition& tool,
                                                const OrchestrationOptions& options);

// The finding ids the orchestrator names itself: the healthy verdict's and
// the causes of the dominant-stall fallback. Each must be a finding a
// registered tool produces (checked by tool_registry_test.cc).
std::vector<std::string_view> FindingIdsNamedByTheOrchestrator();

// The required inputs of `tool` missing from `inputs` (metric names or input kinds).
std::vector<std::string> MissingInputs(const ToolDefinition& tool, const LaunchInputs& inputs);

}  // namespace kopt
