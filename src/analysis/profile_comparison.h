// `kopt diff BEFORE AFTER`: two profiles compared kernel by kernel.
//
// Both profiles are diagnosed (analysis/diagnose.h), which groups the launches
// of one kernel with the same launch configuration (GroupLaunches) and
// diagnoses each group once, on its median-duration launch. Kernels (those
// groups) are paired
//  1. by hand first (ComparisonOptions::pairs: "#N" is the N-th selected launch,
//     anything else an ECMAScript regex searched in the demangled name, first
//     match among the kernels not yet paired; the launch's kernel is paired);
//  2. then by function name and launch configuration (grid and block);
//  3. then by function name alone (a note says the launch configuration
//     changed);
//  4. then, when exactly one kernel is left on each side, those two (a note:
//     different kernels, e.g. a reference and its candidate).
// Kernels left over are listed as unmatched. For each pair: the time
// attribution (analysis/time_attribution.h) of the two median launches, with
// every launch of each group as its repeats (the terms' uncertainties), the
// metrics that moved beyond noise (analysis/metric_change.h), the metric sets'
// difference, the findings resolved, new and changed in severity, and the
// roofline points (in the two KernelDiagnosis copies). Different devices,
// metric sets and unmatched kernels are notes: what both profiles have is
// still compared. The totals count every launch.
//
// Thread safety: pure function of its inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/diagnosis.h"
#include "analysis/metric_change.h"
#include "analysis/narrative.h"
#include "analysis/time_attribution.h"
#include "core/status.h"
#include "profile/profile.h"

namespace kopt {

// One hand-made pair: each side "#N" (index among the profile's selected
// launches, from 0) or a regex searched in the demangled kernel name.
struct KernelPairSpec {
  std::string before;
  std::string after;
};

// Parses "BEFORE=AFTER" (the --pair option). InvalidInput naming the expected form.
Result<KernelPairSpec> ParseKernelPairSpec(std::string_view text);

struct ComparisonOptions {
  DiagnoseOptions diagnose;           // used for both profiles
  std::vector<KernelPairSpec> pairs;  // hand-made pairs, applied first
  size_t moved_metric_limit = 12;     // metrics listed per pair (largest moves beyond noise)
};

enum class FindingChangeKind { kResolved, kNew, kWorse, kBetter, kSame };
std::string_view FindingChangeKindName(
    FindingChangeKind kind);  // "resolved", "new", "worse", "better", "same"

struct FindingChange {
  std::string tool;
  std::string title;
  FindingChangeKind kind = FindingChangeKind::kSame;
  Severity before = Severity::kInfo, after = Severity::kInfo;  // meaningful where present
  double gain_before = 0, gain_after = 0;                      // fractions of that side's kernel time
};

struct KernelComparison {
  size_t before_index = 0, after_index = 0;  // into ProfileComparison::before/after.kernels (groups)
  std::string match;                         // how they were paired, in words
  TimeAttribution attribution;
  std::vector<MetricMove> moved;
  std::vector<MetricMove> launch_changes;  // launch configuration metrics that differ, by name
  MetricSetDifference metric_sets;
  std::vector<FindingChange> findings;  // resolved, new, worse, better, then same
  std::vector<std::string> notes;
};

struct ProfileComparison {
  Diagnosis before, after;
  std::vector<KernelComparison> pairs;
  std::vector<size_t> unmatched_before, unmatched_after;  // kernel indices
  double total_before_ns = 0, total_after_ns = 0;         // every selected launch of each profile
  bool same_device = true;
  // No kernel name is on both sides and no pair was made by hand (--pair): the two profiles are of
  // different code, so their totals are no speed-up of one kernel (the reports then claim none).
  bool unrelated_kernels = false;
  std::vector<std::string> notes;
  std::optional<Narrative> narrative;  // `kopt diff --llm`; absent: not asked for
};

// InvalidInput when a hand-made pair names no launch or a launch twice.
Result<ProfileComparison> CompareProfiles(const Profile& before, const Profile& after,
                                          const ComparisonOptions& options);

// The pairs' finding changes of one pair of diagnoses (exposed for tests and
// the versions report).
std::vector<FindingChange> CompareFindings(const KernelDiagnosis& before, const KernelDiagnosis& after);

// A pair whose stall pass disagrees with its totals by more than this share
// of its time change (TimeAttribution::pass_mismatch_ns) gets a note: ncu
// collects the stall counters and the active-warp total in different replay
// passes (docs/diff.md), so the stall reasons' split is that uncertain.
inline constexpr double kPassMismatchNoteFraction = 0.10;

// The comparison of one pair of launches (their diagnoses given).
// `repeats`: the launches that repeat each side's kernel (the terms'
// uncertainties; analysis/time_attribution.h).
KernelComparison CompareKernels(const KernelLaunch& before, const KernelDiagnosis& before_diagnosis,
                                const KernelLaunch& after, const KernelDiagnosis& after_diagnosis,
                                size_t moved_metric_limit, const AttributionRepeats& repeats = {});

}  // namespace kopt
