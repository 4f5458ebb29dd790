#include "analysis/time_attribution.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

// A launch whose factors are given: duration from the identity times `residual`.
KernelLaunch ModelLaunch(double issued, double long_scoreboard, double warps, double active_share,
                         double clock, double residual = 1, double overhead = 1, double lsu = 0) {
  const double selected = 1;
  const double stalls = selected + long_scoreboard;
  const double active = issued * stalls / warps * residual;
  const double elapsed = active / active_share;
  const double duration_ns = elapsed / clock * 1e9 * overhead;
  std::vector<std::pair<std::string, double>> metrics = {
      {"gpu__time_duration.sum", duration_ns},
      {"smsp__inst_issued.avg", issued},
      {"smsp__inst_issued.sum", issued * 528},
      {"smsp__warps_active.avg.per_cycle_active", warps},
      {"smsp__cycles_active.avg", active},
      {"sm__cycles_elapsed.avg", elapsed},
      {"sm__cycles_elapsed.avg.per_second", clock},
      {"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", selected},
      {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", long_scoreboard},
  };
  if (lsu > 0) metrics.push_back({"sm__inst_executed_pipe_lsu.sum", lsu * 528});
  return SyntheticLaunch(metrics);
}

// A launch with both forms of the identity's metrics: the counter sums of 528
// schedulers (stall counters that partition the active warp-cycles times
// `partition`: 1 is the hardware identity) and the ratios as ncu exports them,
// rounded to two decimals.
// `stall_pass`: the stall counters' pass ran that much longer than the totals' (its counts,
// and the ratios ncu derives from them, scaled by it; the totals untouched).
KernelLaunch CounterLaunch(double issued_per_scheduler, double selected, double long_scoreboard,
                           double other_stalls, double warps, double active_share, double clock,
                           double partition = 1, bool with_counters = true, double stall_pass = 1) {
  const double schedulers = 528;
  const double round2 = 100;
  auto rounded = [&](double x) { return std::round(x * round2) / round2; };
  const double issued = issued_per_scheduler * schedulers;
  const double stalled = (selected + long_scoreboard + other_stalls) * issued;  // warp-cycles
  const double warps_sum = stalled * partition;
  const double cycles = warps_sum / warps;  // active cycles summed over schedulers
  const double elapsed = cycles / schedulers / active_share;
  std::vector<std::pair<std::string, double>> metrics = {
      {"gpu__time_duration.sum", elapsed / clock * 1e9},
      {"smsp__inst_issued.avg", rounded(issued_per_scheduler)},
      {"smsp__inst_issued.sum", issued},
      {"smsp__warps_active.avg.per_cycle_active", rounded(warps)},
      {"smsp__cycles_active.avg", rounded(cycles / schedulers)},
      {"sm__cycles_elapsed.avg", rounded(elapsed)},
      {"sm__cycles_elapsed.avg.per_second", clock},
      {"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", rounded(selected * stall_pass)},
      {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
       rounded(long_scoreboard * stall_pass)},
      {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", rounded(other_stalls * stall_pass)},
  };
  if (with_counters) {
    metrics.push_back({"smsp__warps_active.sum", warps_sum});
    metrics.push_back({"smsp__cycles_active.sum", cycles});
    metrics.push_back({"smsp__warps_issue_stalled_selected.sum", selected * issued * stall_pass});
    metrics.push_back(
        {"smsp__warps_issue_stalled_long_scoreboard.sum", long_scoreboard * issued * stall_pass});
    metrics.push_back({"smsp__warps_issue_stalled_wait.sum", other_stalls * issued * stall_pass});
  }
  return SyntheticLaunch(metrics);
}

double Sum(const TimeAttribution& attribution, bool parts) {
  double sum = 0;
  for (const AttributionTerm& term : attribution.terms)
    if (term.part.empty() != parts) sum += term.delta_ns;
  return sum;
}

const AttributionTerm* Term(const TimeAttribution& attribution, const std::string& factor,
                            const std::string& part = "") {
  for (const AttributionTerm& term : attribution.terms)
    if (term.factor == factor && term.part == part) return &term;
  return nullptr;
}

TEST(LogMeanTest, IsTheLogarithmicMean) {
  EXPECT_DOUBLE_EQ(LogMean(5, 5), 5);
  EXPECT_NEAR(LogMean(2, 1), 1 / std::log(2.0), 1e-12);
  EXPECT_EQ(LogMean(0, 1), 0);
}

TEST(TimeAttributionTest, FactorsSumToTheMeasuredChangeExactly) {
  KernelLaunch before = ModelLaunch(1000, 40, 8, 0.9, 1.7e9, 1.02, 1.05, 300);
  KernelLaunch after = ModelLaunch(600, 20, 12, 0.95, 1.9e9, 0.99, 1.01, 150);
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  ASSERT_TRUE(attribution.available);
  EXPECT_NEAR(Sum(attribution, false), attribution.delta_ns, 1e-9 * std::fabs(attribution.delta_ns));
  EXPECT_LT(attribution.delta_ns, 0);
  // Each factor's parts sum to the factor.
  double instruction_parts = 0, stall_parts = 0;
  for (const AttributionTerm& term : attribution.terms) {
    if (term.part.empty()) continue;
    (term.factor == "instructions" ? instruction_parts : stall_parts) += term.delta_ns;
  }
  EXPECT_NEAR(instruction_parts, Term(attribution, "instructions")->delta_ns, 1e-6);
  EXPECT_NEAR(stall_parts, Term(attribution, "stalls")->delta_ns, 1e-6);
  // Fewer instructions, fewer stalls, more warps, a higher clock: each saved time.
  for (const char* factor : {"instructions", "stalls", "occupancy", "waves", "launch", "clock"}) {
    EXPECT_LT(Term(attribution, factor)->delta_ns, 0) << factor;
  }
  EXPECT_NE(Term(attribution, "instructions", "lsu"), nullptr);
  EXPECT_NE(Term(attribution, "stalls", "long_scoreboard"), nullptr);
}

TEST(TimeAttributionTest, OneFactorMovingGetsAllOfTheChange) {
  KernelLaunch before = ModelLaunch(1000, 40, 8, 0.9, 1.7e9);
  KernelLaunch after = ModelLaunch(1000, 40, 4, 0.9, 1.7e9);  // half the warps: twice the time
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  ASSERT_TRUE(attribution.available);
  EXPECT_NEAR(attribution.after_ns, 2 * attribution.before_ns, 1e-6 * attribution.before_ns);
  EXPECT_NEAR(Term(attribution, "occupancy")->delta_ns, attribution.delta_ns, 1e-6 * attribution.delta_ns);
  EXPECT_NEAR(attribution.residual_ns, 0, 1e-9);
  EXPECT_NEAR(attribution.residual_fraction, 0, 1e-12);
}

TEST(TimeAttributionTest, ActiveCyclesTheStallCountsMissAreSplitByTheirShares) {
  KernelLaunch before = ModelLaunch(1000, 40, 8, 0.9, 1.7e9, 1.0);
  KernelLaunch after = ModelLaunch(1000, 40, 8, 0.9, 1.7e9, 1.1);  // 10 % more active cycles than the stalls
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  ASSERT_TRUE(attribution.available);
  // The totals say each instruction took 10 % more warp-cycles: the stalls factor, by the shares.
  EXPECT_NEAR(Term(attribution, "stalls")->delta_ns, attribution.delta_ns, 1e-9 * attribution.before_ns);
  EXPECT_NEAR(Term(attribution, "stalls", "long_scoreboard")->delta_ns, attribution.delta_ns * 40 / 41,
              1e-9 * attribution.before_ns);
  EXPECT_NEAR(attribution.residual_fraction, 0, 1e-9);
  // The mismatch is the noise figure, not a term.
  EXPECT_NEAR(attribution.rho_after, 1.1, 1e-9);
  EXPECT_NEAR(attribution.pass_mismatch_ns, std::fabs(attribution.delta_ns), 1e-6 * attribution.before_ns);
  EXPECT_EQ(Term(attribution, "residual"), nullptr);
}

TEST(TimeAttributionTest, MissingMetricsAreNamed) {
  KernelLaunch before = ModelLaunch(1000, 40, 8, 0.9, 1.7e9);
  KernelLaunch after = SyntheticLaunch({{"gpu__time_duration.sum", 5000}});
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  EXPECT_FALSE(attribution.available);
  EXPECT_TRUE(attribution.terms.empty());
  EXPECT_NE(std::find(attribution.missing.begin(), attribution.missing.end(), "smsp__inst_issued.avg"),
            attribution.missing.end());
}

TEST(TimeAttributionTest, TrafficAtPeakAndAchievedRates) {
  RooflineAnalysis before, after;
  before.memory.push_back({"dram", 2e9, 1e12, 4e12, 25, "spec"});
  after.memory.push_back({"dram", 1e9, 2e12, 4e12, 50, "spec"});
  TimeAttribution attribution = AttributeTimeChange(KernelLaunch{}, KernelLaunch{}, before, after);
  ASSERT_EQ(attribution.traffic.size(), 1u);
  EXPECT_NEAR(attribution.traffic[0].floor_delta_ns, -1e9 / 4e12 * 1e9, 1e-6);
  EXPECT_NEAR(attribution.traffic[0].at_achieved_ns, -1e9 / 2e12 * 1e9, 1e-6);
}

// Stall values whose two-decimal rounding leaves ρ off 1 in the ratio form.
constexpr double kSelected = 1.0, kLongScoreboard = 42.333, kWait = 3.594;

TEST(TimeAttributionTest, CounterSumsMakeTheIdentityExact) {
  KernelLaunch before = CounterLaunch(1311.684, kSelected, kLongScoreboard, kWait, 11.3149, 0.647, 2.04e9);
  KernelLaunch after =
      CounterLaunch(1290.5, kSelected, kLongScoreboard + 0.004, kWait, 11.3151, 0.6471, 2.04e9);
  ASSERT_TRUE(HasStallCounters(before));
  auto model = ReadTimeModel(before);
  ASSERT_TRUE(model.has_value());
  EXPECT_EQ(model->stall_source, StallSource::kCounters);
  EXPECT_NEAR(model->identity_ratio, 1, 1e-12);
  EXPECT_NEAR(model->cycles_per_issue, kSelected + kLongScoreboard + kWait, 1e-9);
  EXPECT_NEAR(model->instructions_per_scheduler, 1311.684, 0.01);  // schedulers from the rounded avg
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  ASSERT_TRUE(attribution.available);
  EXPECT_EQ(attribution.stall_source, StallSource::kCounters);
  EXPECT_NEAR(attribution.residual_ns, 0, 1e-9 * attribution.before_ns);
  EXPECT_NEAR(Sum(attribution, false), attribution.delta_ns, 1e-9 * attribution.before_ns);
  // The same launches read through the rounded ratios: a residual of the size the rounding leaves.
  auto ratio_before = ReadTimeModel(before, StallSource::kRatios);
  ASSERT_TRUE(ratio_before.has_value());
  EXPECT_EQ(ratio_before->stall_source, StallSource::kRatios);
  EXPECT_GT(std::fabs(ratio_before->identity_ratio - 1), 1e-5);
}

// The failure the share split removes: the stall pass of the after launch ran 5 % longer than the
// pass of the totals. The estimator before it (S = Σ stall / I, ρ a residual term) left
// ln(1.05) / |ln(T1/T0)| ≈ 24 % of this change unplaced and moved the stall terms by it.
TEST(TimeAttributionTest, AStallPassThatRanLongerStillAttributesExactly) {
  KernelLaunch before = CounterLaunch(1000, kSelected, 40, 2, 8, 0.9, 1.7e9);
  KernelLaunch clean = CounterLaunch(900, kSelected, 36, 2, 8, 0.9, 1.7e9);  // 10 % fewer instructions
  KernelLaunch longer = CounterLaunch(900, kSelected, 36, 2, 8, 0.9, 1.7e9, 1, true, /*stall_pass=*/1.05);
  TimeAttribution exact = AttributeTimeChange(before, clean, {}, {});
  TimeAttribution attribution = AttributeTimeChange(before, longer, {}, {});
  ASSERT_TRUE(attribution.available);
  EXPECT_EQ(attribution.stall_source, StallSource::kCounters);
  EXPECT_NEAR(attribution.delta_ns, exact.delta_ns, 1e-9 * attribution.before_ns);
  EXPECT_NEAR(Sum(attribution, false), attribution.delta_ns, 1e-9 * attribution.before_ns);
  EXPECT_LT(attribution.residual_fraction, 1e-9);
  // Every term, factor and stall reason, as if the passes had agreed.
  ASSERT_EQ(attribution.terms.size(), exact.terms.size());
  for (size_t i = 0; i < exact.terms.size(); ++i) {
    EXPECT_EQ(attribution.terms[i].label, exact.terms[i].label);
    EXPECT_NEAR(attribution.terms[i].delta_ns, exact.terms[i].delta_ns, 1e-9 * attribution.before_ns)
        << exact.terms[i].label;
  }
  // The inconsistency is measured and reported: ρ after 1/1.05, worth L(T1, T0)·ln 1.05.
  EXPECT_NEAR(attribution.rho_before, 1, 1e-12);
  EXPECT_NEAR(attribution.rho_after, 1 / 1.05, 1e-12);
  const double time_mean = LogMean(attribution.after_ns, attribution.before_ns);
  EXPECT_NEAR(attribution.pass_mismatch_ns, time_mean * std::log(1.05), 1e-9 * attribution.before_ns);
  EXPECT_GT(attribution.pass_mismatch_ns, 0.2 * std::fabs(attribution.delta_ns));
  // Read through the rounded ratios (the same pass ran long there too), the split closes as well.
  KernelLaunch before_ratios = CounterLaunch(1000, kSelected, 40, 2, 8, 0.9, 1.7e9, 1, false);
  KernelLaunch longer_ratios = CounterLaunch(900, kSelected, 36, 2, 8, 0.9, 1.7e9, 1, false, 1.05);
  TimeAttribution ratios = AttributeTimeChange(before_ratios, longer_ratios, {}, {});
  ASSERT_TRUE(ratios.available);
  EXPECT_EQ(ratios.stall_source, StallSource::kRatios);
  EXPECT_LT(ratios.residual_fraction, 1e-9);
  EXPECT_NEAR(Term(ratios, "stalls")->delta_ns, Term(exact, "stalls")->delta_ns,
              0.01 * std::fabs(exact.delta_ns));
}

TEST(TimeAttributionTest, OneLaunchPerSideTakesItsPassMismatchAsTheNoiseScale) {
  KernelLaunch before = CounterLaunch(1000, kSelected, 40, 2, 8, 0.9, 1.7e9);
  KernelLaunch after = CounterLaunch(900, kSelected, 36, 2, 8, 0.9, 1.7e9, 1, true, 1.05);
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  ASSERT_TRUE(attribution.available);
  EXPECT_EQ(attribution.uncertainty_source, UncertaintySource::kPassMismatch);
  const double time_mean = LogMean(attribution.after_ns, attribution.before_ns);
  const double scale = time_mean * std::log(1.05);  // before: ρ = 1, no spread
  EXPECT_NEAR(Term(attribution, "stalls")->uncertainty_ns, scale, 1e-9 * scale);
  EXPECT_NEAR(Term(attribution, "waves")->uncertainty_ns, scale, 1e-9 * scale);
  EXPECT_NEAR(attribution.change_uncertainty_ns, scale, 1e-9 * scale);
  EXPECT_EQ(Term(attribution, "instructions")->uncertainty_ns, 0);  // counts do not depend on the run
  EXPECT_EQ(Term(attribution, "launch")->uncertainty_ns, 0);        // o = 1: f was derived from T
  // A part: its value's spread over the factor's log mean.
  const AttributionTerm* long_scoreboard = Term(attribution, "stalls", "long_scoreboard");
  ASSERT_NE(long_scoreboard, nullptr);
  const AttributionTerm* stalls = Term(attribution, "stalls");
  EXPECT_NEAR(long_scoreboard->uncertainty_ns,
              time_mean * long_scoreboard->after * std::log(1.05) / LogMean(stalls->after, stalls->before),
              1e-9 * scale);
}

TEST(TimeAttributionTest, RepeatsGiveEachTermTheirSpread) {
  // Three launches per side whose active share (waves) varies; the pair is the first of each.
  std::vector<KernelLaunch> before, after;
  for (double share : {0.90, 0.88, 0.92})
    before.push_back(CounterLaunch(1000, kSelected, 40, 2, 8, share, 1.7e9));
  for (double share : {0.95, 0.94, 0.95})
    after.push_back(CounterLaunch(900, kSelected, 36, 2, 8, share, 1.7e9));
  AttributionRepeats repeats;
  for (const KernelLaunch& launch : before) repeats.before.push_back(&launch);
  for (const KernelLaunch& launch : after) repeats.after.push_back(&launch);
  TimeAttribution attribution = AttributeTimeChange(before[0], after[0], {}, {}, repeats);
  ASSERT_TRUE(attribution.available);
  EXPECT_EQ(attribution.uncertainty_source, UncertaintySource::kRepeats);
  EXPECT_EQ(attribution.launches_before, 3u);
  EXPECT_EQ(attribution.launches_after, 3u);
  auto deviation = [](std::vector<double> values) {  // of the logarithms, n − 1
    double mean = 0, squares = 0;
    for (double& v : values) mean += (v = std::log(v)) / values.size();
    for (double v : values) squares += (v - mean) * (v - mean);
    return std::sqrt(squares / (values.size() - 1));
  };
  const double time_mean = LogMean(attribution.after_ns, attribution.before_ns);
  const double expected =
      time_mean * std::hypot(deviation({0.90, 0.88, 0.92}), deviation({0.95, 0.94, 0.95}));
  // (1e-4: the synthetic launches round the elapsed cycles to two decimals)
  EXPECT_NEAR(Term(attribution, "waves")->uncertainty_ns, expected, 1e-4 * expected);
  // Nothing else varied: the other terms are exact.
  EXPECT_NEAR(Term(attribution, "stalls")->uncertainty_ns, 0, 1e-9 * expected);
  EXPECT_NEAR(Term(attribution, "occupancy")->uncertainty_ns, 0, 1e-9 * expected);
  // The duration varied with the share.
  EXPECT_NEAR(attribution.change_uncertainty_ns, expected, 1e-4 * expected);
  // One side without repeats: that side falls back to its pass mismatch (ρ = 1 here: 0).
  AttributionRepeats one_side{repeats.before, {}};
  TimeAttribution mixed = AttributeTimeChange(before[0], after[0], {}, {}, one_side);
  EXPECT_EQ(mixed.uncertainty_source, UncertaintySource::kPassMismatch);
  EXPECT_NEAR(Term(mixed, "waves")->uncertainty_ns, time_mean * deviation({0.90, 0.88, 0.92}),
              1e-4 * expected);
}

TEST(TimeAttributionTest, APairUsesTheCountersOnlyWhenBothLaunchesHaveThem) {
  KernelLaunch before = CounterLaunch(1000, kSelected, kLongScoreboard, kWait, 8, 0.9, 1.7e9);
  KernelLaunch after =
      CounterLaunch(900, kSelected, kLongScoreboard, kWait, 8, 0.9, 1.7e9, 1, /*with_counters=*/false);
  EXPECT_FALSE(HasStallCounters(after));
  TimeAttribution attribution = AttributeTimeChange(before, after, {}, {});
  ASSERT_TRUE(attribution.available);
  EXPECT_EQ(attribution.stall_source, StallSource::kRatios);
  // S from the rounded totals (W·C_active/I) on both sides: the same kernel's, up to the rounding.
  EXPECT_NEAR(Term(attribution, "stalls")->before, Term(attribution, "stalls")->after,
              1e-3 * Term(attribution, "stalls")->before);
  EXPECT_NEAR(Sum(attribution, false), attribution.delta_ns, 1e-9 * attribution.before_ns);
  EXPECT_NE(attribution.method.find("ratios"), std::string::npos);
}

// A profile collected with the counters alone (no ratio, no per-cycle rollup: the lean "identity"
// list of scripts/h200_diff_capture/passes.sh) is read in the counter form.
TEST(TimeAttributionTest, TheCounterFormNeedsNoRatios) {
  KernelLaunch full = CounterLaunch(1000, kSelected, 40, 2, 8, 0.9, 1.7e9);
  std::vector<std::pair<std::string, double>> lean;
  for (int column = 0; column < full.schema->size(); ++column) {
    const std::string& name = full.schema->Name(column);
    if (name.find("per_issue_active.ratio") != std::string::npos || name.ends_with("per_cycle_active"))
      continue;
    lean.emplace_back(name, full.values[column]);
  }
  KernelLaunch counters_only = SyntheticLaunch(lean);
  EXPECT_TRUE(MissingTimeModelMetrics(counters_only).empty());
  auto model = ReadTimeModel(counters_only);
  ASSERT_TRUE(model.has_value());
  EXPECT_EQ(model->stall_source, StallSource::kCounters);
  EXPECT_FALSE(ReadTimeModel(counters_only, StallSource::kRatios).has_value());
  // Paired with a ratio-only launch, the pair cannot use the counters and says what is missing.
  KernelLaunch ratios_only = CounterLaunch(900, kSelected, 36, 2, 8, 0.9, 1.7e9, 1, false);
  TimeAttribution attribution = AttributeTimeChange(counters_only, ratios_only, {}, {});
  EXPECT_FALSE(attribution.available);
  EXPECT_NE(std::find(attribution.missing.begin(), attribution.missing.end(),
                      "smsp__warps_active.avg.per_cycle_active"),
            attribution.missing.end());
  EXPECT_TRUE(AttributeTimeChange(counters_only, counters_only, {}, {}).available);
}

// On real H200 profiles of two different kernels the terms sum to the change.
TEST(TimeAttributionTest, H200FixturesSumWithASmallResidual) {
  Profile before = LoadFixture("uncoalesced_loads", kRawPageOnly);
  Profile after = LoadFixture("healthy_dram_copy", kRawPageOnly);
  ASSERT_FALSE(before.launches.empty());
  ASSERT_FALSE(after.launches.empty());
  Diagnosis b = Diagnose(before, {});
  Diagnosis a = Diagnose(after, {});
  TimeAttribution attribution = AttributeTimeChange(before.launches[0], after.launches[0],
                                                    b.kernels[0].roofline, a.kernels[0].roofline);
  ASSERT_TRUE(attribution.available) << attribution.missing.size();
  EXPECT_NEAR(Sum(attribution, false), attribution.delta_ns, 1e-6 * std::fabs(attribution.delta_ns));
  EXPECT_LT(attribution.residual_fraction, 0.10);
}

}  // namespace
}  // namespace kopt
