// The plan of a whole program, or of a collection of programs (`kopt plan`):
// where the GPU time goes, which findings save the most whole-program time,
// the kernels that share a root cause grouped, and the suggestions ranked
// across kernels. Plain data over diagnoses (analysis/diagnose.h); no LLM
// (the optional narrative is filled by explain/plan_narrative.h).
//
// The model (docs/plan.md). A program's time T is the sum of its kernels'
// launch durations (KernelDiagnosis::launches.total_duration_ns; ncu
// serializes launches, so T is GPU kernel time, not wall time: host gaps and
// copies are not in it). A finding of gain g (fraction of its kernel's time,
// Finding::estimated_gain) on a kernel of total time t saves s = g·t; fixing
// it alone makes the program T/(T − s) times faster (Amdahl). A kernel's
// findings overlap (they share its time), so the most a kernel can save is
// t·(1 − Π(1 − g_i)) over its findings; the program's bound adds those.
// Findings are ranked by s/T (their share of their own program's time); with
// one program that is ranking by time saved. A root-cause group is one
// finding id (Finding::tool) across kernels; its saving in a program is the
// sum over its kernels, and across programs the groups rank by the mean of
// the programs' shares (each program weighs the same).
//
// Cost: linear in the kernels and findings of the diagnoses (each visited a
// constant number of times) plus the sorts of the ranked lists (n log n).
//
// Units: ns for times, fractions 0..1 for shares and gains, × for speedups.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/narrative.h"

namespace kopt {

struct PlanOptions {
  size_t max_findings = 20;  // the ranked list of findings is cut here (0: all)
  size_t max_kernels = 20;   // the "where the time goes" list is cut here (0: all)
};

struct PlanProgram {
  std::string source;       // the profile it was read from
  std::string device_name;  // as the profile reports it
  double total_ns = 0;      // Σ kernel time, ns
  size_t kernel_count = 0;  // kernels (kernel, grid, block groups) with a duration
  long long launch_count = 0;
  double bound_saved_ns = 0;  // the most its findings can save (overlaps within a kernel counted once), ns
  size_t kernels_without_duration = 0;  // left out of every share: their launches had no duration
};

struct PlanKernel {
  size_t program = 0;       // index into ProgramPlan::programs
  std::string kernel_name;  // the function name (KernelDiagnosis::function_name)
  std::string grid, block;  // "(x, y, z)"
  long long launches = 0;
  double total_ns = 0;
  double share = 0;           // of its program's time, 0..1
  std::string bottleneck;     // BottleneckClassName of its roofline
  std::string top_finding;    // the id of its largest saving; empty when healthy
  double bound_saved_ns = 0;  // t·(1 − Π(1 − g_i)), ns
};

struct PlanFinding {
  size_t kernel = 0;  // index into ProgramPlan::kernels
  std::string id;     // Finding::tool
  std::string title;
  Severity severity = Severity::kInfo;
  double confidence = 0;       // 0..1
  double kernel_gain = 0;      // fraction of the kernel's time, 0..1
  double saved_ns = 0;         // kernel_gain × kernel time, ns
  double program_share = 0;    // saved_ns / program time, 0..1
  double program_speedup = 1;  // T / (T − saved), ×
  std::string suggestion;      // its first recommendation's change; empty: none
};

struct RootCauseGroup {
  std::string id;  // the finding id the kernels share
  std::string title;
  std::vector<size_t> kernels;    // indexes into ProgramPlan::kernels, largest saving first
  double saved_ns = 0;            // summed over the kernels (all programs), ns
  double mean_program_share = 0;  // the mean over the programs of the group's share of each program's time
  std::string suggestion;         // the recommendation of its largest saving
};

struct ProgramPlan {
  std::vector<PlanProgram> programs;
  std::vector<PlanKernel> kernels;     // every kernel with a duration, by share of its program, largest first
  std::vector<PlanFinding> findings;   // by program_share, largest first (cut at max_findings)
  std::vector<RootCauseGroup> groups;  // by mean_program_share, largest first
  size_t kernels_listed = 0;           // how many of `kernels` the report lists (max_kernels)
  double total_ns = 0;                 // Σ over the programs, ns
  std::vector<std::string> notes;
  // `kopt plan --llm`: the narrative over the whole plan, every number checked
  // against it (explain/plan_narrative.h); empty without --llm. Never set by
  // BuildProgramPlan.
  std::optional<Narrative> narrative;
};

// `diagnoses` borrowed for the call only; one per program (profile).
ProgramPlan BuildProgramPlan(const std::vector<const Diagnosis*>& diagnoses, const PlanOptions& options);

}  // namespace kopt
