// Where a kernel's time change came from: the duration of two launches
// (before, after) split into terms that sum to the measured change exactly.
//
// The model (docs/diff.md): per warp scheduler (SMSP), a launch's duration is
// the product of seven factors read from ncu's metrics,
//
//   T = I · S · (1/W) · ρ · (1/a) · o · (1/f)
//
//   I  instructions issued per scheduler            smsp__inst_issued.avg
//   S  warp-cycles per issued instruction: the sum of the stall reasons
//      (selected included) smsp__average_warps_issue_stalled_*_per_issue_active.ratio
//   W  active warps per scheduler (occupancy)        smsp__warps_active.avg.per_cycle_active
//   ρ  the identity's mismatch, C_active·W/(I·S): 1 when every active cycle
//      is an issue or a stall (the residual term)   smsp__cycles_active.avg
//   a  schedulers' active share of the elapsed cycles (waves, tail, imbalance)
//                                                    smsp__cycles_active.avg / sm__cycles_elapsed.avg
//      (else smsp__cycles_elapsed.avg, else smsp__cycles_elapsed.sum per scheduler)
//   o  time outside the SMs' elapsed cycles (launch, front end): T·f / C_elapsed
//   f  SM clock                                      sm__cycles_elapsed.avg.per_second
//                                                    (else smsp__cycles_elapsed.avg.per_second)
//
// Two forms of I, S, W, C_active (StallSource). The ratios above are what
// --set full exports; ncu prints them with two decimals. When the launch has
// the counters behind them, smsp__warps_issue_stalled_<reason>.sum (selected
// included), smsp__inst_issued.sum, smsp__warps_active.sum and
// smsp__cycles_active.sum, every factor is read from a sum instead (N the
// schedulers): I = issued/N, S = Σ stalled/issued, W = warps/cycles,
// C_active = cycles/N, so ρ = warps / Σ stalled: exactly 1 when the stall
// reasons partition the active warp-cycles, whatever the rounding. A pair
// uses the counters only when both launches have them.
//
// The product is T exactly, so the log-mean Divisia index (LMDI) splits
// ΔT = L(T1, T0) · Σ ln(X1/X0) with L(x, y) = (x − y)/(ln x − ln y) into one
// term per factor with no remainder. Additive factors are split further the
// same way (exactly): I by pipe (sm__inst_executed_pipe_<p>.sum when
// collected; the rest is "other"), S by stall reason. The residual ρ is the
// part the model cannot place; its share of |ΔT| is reported.
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
  double instructions_per_scheduler = 0;                          // I, inst
  double cycles_per_issue = 0;                                    // S, warp-cycles per issued instruction
  double active_warps = 0;                                        // W, warps per scheduler
  double identity_ratio = 1;                                      // ρ
  double active_share = 0;                                        // a, fraction of elapsed cycles
  double overhead_ratio = 1;                                      // o
  double clock_hz = 0;                                            // f
  std::vector<std::pair<std::string, double>> pipe_instructions;  // per scheduler, inst; empty: not collected
  std::vector<std::pair<std::string, double>> stall_cycles;       // per reason, warp-cycles per issue
};

// The metrics ReadTimeModel needs that `launch` lacks (empty: it has them all),
// in the ratio form (the counter form is optional: HasStallCounters).
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
  std::string factor;  // "instructions", "stalls", "occupancy", "waves", "launch", "clock", "residual"
  std::string part;    // the pipe or stall reason within the factor; empty for the factor's own total
  std::string label;   // what it says in a report: "long_scoreboard stalls per instruction"
  double before = 0;   // the factor's (or part's) value before, in `unit`
  double after = 0;
  std::string unit;
  double delta_ns = 0;  // time attributed to it (negative: time saved)
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

struct TimeAttribution {
  double before_ns = 0, after_ns = 0, delta_ns = 0;
  bool available = false;            // false: the terms are empty, `missing` says why
  std::vector<std::string> missing;  // metrics either launch lacked
  // The factor totals (part empty), each followed by its parts; the factor
  // totals sum to delta_ns exactly; each factor's parts sum to it.
  std::vector<AttributionTerm> terms;
  double residual_ns = 0;        // the residual term's delta
  double residual_fraction = 0;  // |residual_ns| / |delta_ns| (0 when delta is 0)
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
                                    const RooflineAnalysis& roofline_after);

}  // namespace kopt
