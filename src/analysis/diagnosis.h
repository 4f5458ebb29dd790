// The diagnosis of a profile: per kernel launch, stage 1 (roofline and class),
// the warp-stall breakdown, and the findings of the micro-profiling tools.
//
// This is what report/ renders and what JSON serializes (docs/json-schema.md).
// Every number carries its unit in the structure or in its field name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/energy_model.h"
#include "analysis/narrative.h"
#include "analysis/roofline.h"
#include "core/phase_timer.h"
#include "hw/gpu_spec.h"
#include "profile/kernel_launch.h"

namespace kopt {

// One warp-stall reason: ncu's smsp__average_warps_issue_stalled_<name>_per_issue_active.
struct StallReason {
  std::string name;             // "long_scoreboard"
  double cycles_per_issue = 0;  // warps stalled on it per issued instruction
  double share = 0;             // fraction of all stall cycles, 0..1
};

enum class Severity { kInfo, kMinor, kModerate, kMajor, kCritical };
std::string_view SeverityName(Severity severity);

struct Evidence {
  std::string metric;  // metric name or the computation's name
  double value = 0;
  std::string unit;
  std::string comparison;  // ">=", "<", ...
  double threshold = 0;
};

struct Recommendation {
  std::string change;  // the concrete code-level change
  std::string why;
  std::string expected_effect;
};

struct Location {
  std::string source_line;  // "kernel.cu:42" when known (a SASS listing with line info, nvdisasm -g)
  unsigned long long sass_offset = 0;
  std::string sass_text;
  // Fraction of the kernel's stall samples, 0..1: the instruction's own, plus the dependency stalls of the
  // instructions waiting for its result (profile/dependency_stalls.h).
  double stall_share = 0;
  double waiting_share = 0;                    // the part of stall_share that waits for this result, 0..1
  unsigned long long waiting_sass_offset = 0;  // the waiting instruction with the most of it (when > 0)
  std::string waiting_sass_text;
};

// One activity count a fix changes (the energy model's terms,
// hw/energy_coefficients.h), per launch, in EnergyTermUnit(term).
struct EnergyCountChange {
  EnergyTerm term = EnergyTerm::kDramBytes;
  double before = 0;
  double after = 0;
};

// A fix's effect on the energy model's counts of one launch: the counts after
// it and how they were derived (a tool's `energy_change`, analysis/tool.h;
// the rules are in analysis/energy_analysis.h).
struct EnergyChange {
  EnergyCounts after;
  std::string method;
};

// The dynamic energy a finding's fix saves per launch, predicted by the energy
// model with the counts the fix changes (analysis/energy_analysis.h). Time is
// not part of it: a fix that also shortens the kernel saves at least this.
struct EnergySaving {
  double joules = 0;    // per launch, > 0
  double fraction = 0;  // of the launch's predicted dynamic energy, 0..1
  std::string method;   // which counts change and by what rule, the ratios with their sources
  std::vector<EnergyCountChange> changes;
};

struct Finding {
  std::string tool;  // id of the finding: the tool id, or a variant the tool documents
                     // ("low_occupancy_registers" from the low_occupancy tool)
  std::string title;
  Severity severity = Severity::kInfo;
  double estimated_gain = 0;  // fraction of kernel time, 0..1
  std::string gain_method;    // how estimated_gain was computed
  std::vector<Evidence> evidence;
  std::string root_cause;
  std::vector<Recommendation> recommendations;  // in priority order
  std::vector<Location> locations;
  double confidence = 0;                  // 0..1
  std::vector<std::string> merged_tools;  // findings of other tools folded into this one (same root cause)
  // Set when the energy model prices the fix (docs/energy.md "Energy in explain"); absent: not
  // estimated (no coefficient table, or the fix's counts are not in the profile).
  std::optional<EnergySaving> energy_saving;
};

// A tool that could not run for lack of inputs, and what would add them.
struct SkippedTool {
  std::string tool;
  std::vector<std::string> missing;  // metric names, or "SASS listing", "ptxas report", "ncu source page"
  std::string how_to_collect;        // e.g. "ncu --set full" or "pass --sass FILE"
};

// The launches a KernelDiagnosis stands for: every selected launch of one
// kernel with the same grid and block (analysis/launch_timeline.h). The
// diagnosis is of one of them (KernelDiagnosis::launch_id, the median duration).
struct LaunchSpread {
  long long count = 1;
  long long first_launch_id = 0, last_launch_id = 0;
  std::optional<double> minimum_duration_ns, median_duration_ns, maximum_duration_ns;
  std::optional<double> total_duration_ns;  // the sum over the launches that have a duration
};

// The energy section of one kernel: the model's prediction for the diagnosed
// launch (analysis/energy_analysis.h, docs/energy.md).
struct KernelEnergy {
  // Per launch: dynamic joules, average dynamic watts, every term with its
  // count, joules and share, the metrics the profile lacked, the table's source.
  EnergyPrediction prediction;
  std::string gpu_name;  // the coefficient table's GPU
  // The profile has fewer than half of the model's metrics: no prediction
  // (prediction holds only the missing metrics and the source), `notes` says why.
  bool skipped = false;
  std::vector<std::string> notes;  // lower bounds, savings not estimated and why
};

struct KernelDiagnosis {
  long long launch_id = 0;  // the launch diagnosed (the median-duration one of `launches`)
  LaunchSpread launches;
  std::string kernel_name;  // demangled
  std::string function_name;
  LaunchDimensions grid, block;
  std::optional<double> registers_per_thread;
  std::optional<double> shared_memory_per_block_bytes;
  RooflineAnalysis roofline;
  std::vector<StallReason> stalls;         // largest first; empty when not collected
  std::vector<Finding> findings;           // ranked by estimated gain (a "healthy" finding first)
  std::vector<SkippedTool> skipped_tools;  // relevant tools whose inputs were missing
  std::vector<std::string> tools_run;      // relevant tools that had their inputs and ran, in registry order
  std::vector<NcuRuleResult>
      ncu_rules;                   // ncu's own OPT/WRN rule results (details page), largest speedup first
  std::vector<std::string> notes;  // data-quality remarks
  // Absent: no energy coefficient table for the GPU, or `--energy-model none`.
  std::optional<KernelEnergy> energy;
};

// One file the diagnosis was made from, and what it changed (every report lists them).
struct InputUse {
  std::string path;
  std::string role;    // "raw page", "details page", "SASS listing", "ptxas report", "source page", "report"
  std::string origin;  // "given", "found beside the profile", "collected"
  std::vector<std::string> effects;  // "read by the tools accidental_fp64, ...", corrections it made
};

struct Diagnosis {
  std::string source;          // file or command that produced the profile
  std::string device_name;     // as the profile reports it
  std::optional<GpuSpec> gpu;  // the spec row used, if any
  std::vector<KernelDiagnosis> kernels;
  std::vector<InputUse> inputs;  // the profile's files, in reading order
  std::vector<std::string> notes;
  // `kopt explain --llm` and the hypothesis pass (analysis/narrative.h); the
  // renderers show them after the deterministic report.
  std::optional<Narrative> narrative;  // absent: no narrative was asked for
  std::vector<HypothesisOutcome> hypotheses;
  bool hypotheses_run = false;  // the pass ran: an empty list then means "nothing predicted"
  // Live collection only (`kopt explain kernel.cu` or a program): where the wall time went, each
  // phase with its start and duration (the GPU query, nvcc, the timeline run, ncu, the exports, the
  // disassembly, reading, the analysis); empty for a profile read from files.
  std::vector<PhaseTiming> collection_phases;
};

}  // namespace kopt
