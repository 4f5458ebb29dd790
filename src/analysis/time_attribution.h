// Where a kernel's time change came from: the duration of two launches
// (before, after) split into terms that sum to the measured change exactly,
// each with an uncertainty.
//
// The model (docs/diff.md): per warp scheduler (SMSP), a launch's duration is
// the product of six factors read from ncu's metrics,
//
//   T = I · S · (1/W) · (1/a) · o · (1/f)
//
//   I  instructions issued per scheduler            smsp__inst_issued.avg (.sum / N)
//   S  active warp-cycles per issued instruction:   W · C_active / I
//      (smsp__warps_active.sum / smsp__inst_issued.sum in the counter form),
//      split into stall reasons (selected included) by their SHARES of the
//      stall counts: S_r = S · stall_r / Σ stall
//   W  active warps per scheduler (occupancy)        smsp__warps_active.avg.per_cycle_active
//                                                    (.sum / smsp__cycles_active.sum)
//   a  schedulers' active share of the elapsed cycles (waves, tail, imbalance)
//                                                    C_active / sm__cycles_elapsed.avg
//      (else smsp__cycles_elapsed.avg, else smsp__cycles_elapsed.sum per scheduler)
//   o  time outside the SMs' elapsed cycles (launch, front end): T·f / C_elapsed
//   f  SM clock                                      sm__cycles_elapsed.avg.per_second
//                                                    (else smsp__cycles_elapsed.avg.per_second)
//
// The totals (I, W·C_active, C_elapsed, T, f) set the size of every factor;
// the stall counters only set S's composition. ncu collects the stall counters
// in other replay passes than smsp__warps_active, and the passes' runs differ,
// so Σ stall is not exactly the active warp-cycles; the earlier estimator (S =
// Σ stall / I, leaving ρ = W·C_active/(I·Σ stall) as an unplaced residual)
// turned that run-to-run variance into an unexplained term. The share split
// keeps it out of the sum, and reports it instead as a measured noise figure:
// ρ before and after (the stall pass's warp-cycles against the totals'), and
// L(T1, T0)·|ln ρ1 − ln ρ0|, the time it amounts to.
//
// Two forms of the counts (StallSource). The ratios are what --set full
// exports (two decimals): S_r from smsp__average_warps_issue_stalled_<r>_
// per_issue_active.ratio, I, W, C_active from their .avg rollups. When the
// launch has the sums (smsp__warps_issue_stalled_<reason>.sum with selected,
// smsp__inst_issued.sum, smsp__warps_active.sum, smsp__cycles_active.sum),
// every factor and share is read from a sum instead. A pair uses the counters
// only when both launches have them.
//
// The product is T exactly, so the log-mean Divisia index (LMDI) splits
// ΔT = L(T1, T0) · Σ ln(X1/X0) with L(x, y) = (x − y)/(ln x − ln y) into one
// term per factor with no remainder. Additive factors are split further the
// same way (exactly): I by pipe (sm__inst_executed_pipe_<p>.sum when
// collected; the rest is "other"), S by stall reason.
//
// Uncertainty of each term (AttributionTerm::uncertainty_ns): the launch-to-
// launch spread of its factor on each side, propagated through the LMDI
// weight: L(T1, T0)·sqrt(σ0² + σ1²), σ the standard deviation of ln X (of
// the part's value, over L(X1, X0), for a part). σ comes from the side's
// repeats (AttributionRepeats: launches of the same kernel and configuration
// in the same profile) when there are two or more; else from the launch
// itself: |ln ρ|, the difference between two of its replay passes' warp-
// cycles, as the scale of a replay's run-to-run variation, applied to every
// factor that depends on the run (S and its parts, W, a, o, f) and not to
// the instruction counts (I and its pipes), nor to o when it is 1 within
// 10⁻⁴ (ncu derived f from T: o is then an identity, not a measurement). One
// launch gives one sample of that difference: the figure is a scale, not a
// confidence interval.
//
// Besides the terms, each memory level's bytes are compared at the level's
// peak rate (the change of its floor) and at its achieved rate.
//
// Units: ns for times, the factors' own units for before/after values.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/roofline.h"
#include "profile/kernel_launch.h"

namespace kopt {

// Where S (and I, W, C_active) come from.
enum class StallSource {
  kRatios,    // smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio (two decimals)
  kCounters,  // smsp__warps_issue_stalled_<reason>.sum and the issued/warps/cycles sums
};

// "ratios" or "counters".
const char* StallSourceName(StallSource source);

// The factors of one launch; absent when a metric is missing.
struct TimeModel {
  StallSource stall_source = StallSource::kRatios;
  double duration_ns = 0;
  double instructions_per_scheduler = 0;  // I, inst
  double cycles_per_issue = 0;            // S = W·C_active/I, active warp-cycles per issued instruction
  double active_warps = 0;                // W, warps per scheduler
  double active_share = 0;                // a, fraction of elapsed cycles
  double overhead_ratio = 1;              // o
  double clock_hz = 0;                    // f
  // The stall counts as read, warp-cycles per issued instruction (Σ over the
  // reasons, selected included): the stall pass's own total.
  double stall_sum_per_issue = 0;
  // ρ = S / stall_sum_per_issue: the totals' active warp-cycles against the
  // stall pass's; 1 when both come from one run (a noise figure, not a factor).
  double identity_ratio = 1;
  std::vector<std::pair<std::string, double>> pipe_instructions;  // per scheduler, inst; empty: not collected
  // Per reason, warp-cycles per issue: S split by the reasons' shares of the
  // stall counts (they sum to cycles_per_issue).
  std::vector<std::pair<std::string, double>> stall_cycles;
};

// The metrics ReadTimeModel needs that `launch` lacks (empty: it has them all):
// the duration, elapsed cycles and clock, and, unless the launch has the
// counter form (HasStallCounters and the schedulers' count, from
// smsp__inst_issued .sum/.avg or launch__sm_count), the ratio form's metrics.
std::vector<std::string> MissingTimeModelMetrics(const KernelLaunch& launch);
// True when `launch` has the counter form's sums (the selected reason's
// counter, the issued, active-warp and active-cycle sums).
bool HasStallCounters(const KernelLaunch& launch);
// nullopt when a metric is missing (MissingTimeModelMetrics names it) or a
// factor is not positive. kCounters reads the counter form when the launch
// has it (HasStallCounters), else the ratio form; model.stall_source says which.
std::optional<TimeModel> ReadTimeModel(const KernelLaunch& launch,
                                       StallSource preferred = StallSource::kCounters);

struct AttributionTerm {
  std::string factor;  // "instructions", "stalls", "occupancy", "waves", "launch", "clock"
  std::string part;    // the pipe or stall reason within the factor; empty for the factor's own total
  std::string label;   // what it says in a report: "long_scoreboard stall cycles/inst"
  double before = 0;   // the factor's (or part's) value before, in `unit`
  double after = 0;
  std::string unit;
  double delta_ns = 0;  // time attributed to it (negative: time saved)
  // The launch-to-launch noise of delta_ns (ns, ≥ 0; the header says how it
  // is estimated): a term with |delta_ns| ≤ 2·uncertainty_ns is not resolved.
  double uncertainty_ns = 0;
};

// A memory level's bytes before and after, and what they would cost.
struct TrafficChange {
  std::string level;  // "dram", "l2", "l1"
  double bytes_before = 0, bytes_after = 0;
  double achieved_before = 0, achieved_after = 0;  // byte/s
  double peak_bytes_per_second = 0;                // after's ceiling (0: unknown)
  double floor_delta_ns = 0;                       // Δbytes at peak rate: the change of this level's floor
  double at_achieved_ns = 0;                       // Δbytes at after's achieved rate
};

// Where a term's uncertainty came from.
enum class UncertaintySource {
  kRepeats,       // two or more launches of the kernel on each side that had them
  kPassMismatch,  // a single launch on some side: |ln ρ| of that launch as the scale
};
// "repeats" or "pass mismatch".
const char* UncertaintySourceName(UncertaintySource source);

// The launches of each side's kernel that repeat it (same kernel and launch
// configuration, the paired launch included), read for the terms'
// uncertainties; fewer than two on a side: that side's noise is estimated
// from its paired launch alone. Non-owning; the pointers outlive the call.
struct AttributionRepeats {
  std::vector<const KernelLaunch*> before;
  std::vector<const KernelLaunch*> after;
};

struct TimeAttribution {
  double before_ns = 0, after_ns = 0, delta_ns = 0;
  bool available = false;            // false: the terms are empty, `missing` says why
  std::vector<std::string> missing;  // metrics either launch lacked
  // The factor totals (part empty), each followed by its parts; the factor
  // totals sum to delta_ns exactly; each factor's parts sum to it.
  std::vector<AttributionTerm> terms;
  // delta_ns − Σ factor terms: 0 up to rounding (the identity is exact).
  double residual_ns = 0;
  double residual_fraction = 0;  // |residual_ns| / |delta_ns| (0 when delta is 0)
  // The noise figures. ρ of each launch (TimeModel::identity_ratio) and the
  // time the stall pass's inconsistency amounts to, L(T1,T0)·|ln ρ1 − ln ρ0|:
  // what the earlier estimator left as its residual.
  double rho_before = 1, rho_after = 1;
  double pass_mismatch_ns = 0;
  // The measured change's own noise (ns): T's spread, estimated as the terms'.
  double change_uncertainty_ns = 0;
  UncertaintySource uncertainty_source = UncertaintySource::kPassMismatch;
  size_t launches_before = 1, launches_after = 1;  // launches behind each side's σ
  std::vector<TrafficChange> traffic;
  std::string method;  // one sentence naming the model
  // The form both launches were read in: kCounters when both have the sums.
  StallSource stall_source = StallSource::kRatios;
};

// The log mean L(x, y) = (x − y)/(ln x − ln y), x for x == y; x, y > 0.
double LogMean(double x, double y);

// The attribution of after − before. The roofline analyses supply the
// traffic comparison (either may lack levels).
TimeAttribution AttributeTimeChange(const KernelLaunch& before, const KernelLaunch& after,
                                    const RooflineAnalysis& roofline_before,
                                    const RooflineAnalysis& roofline_after,
                                    const AttributionRepeats& repeats = {});

}  // namespace kopt
