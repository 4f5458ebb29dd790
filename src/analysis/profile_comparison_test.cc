#include "analysis/profile_comparison.h"

#include <gtest/gtest.h>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

KernelLaunch Named(std::string name, long long grid, std::string device = "NVIDIA H200") {
  KernelLaunch launch = SyntheticLaunch({{"gpu__time_duration.sum", 1000.0 * static_cast<double>(grid)}});
  auto schema = std::make_shared<MetricSchema>(*launch.schema);
  int column = schema->Add("device__attribute_display_name", "");
  launch.values.push_back(std::nan(""));
  launch.text_values.push_back({column, std::move(device)});
  launch.schema = schema;
  launch.kernel_name = name + "(float *)";
  launch.grid = {grid, 1, 1};
  return launch;
}

Profile ProfileOf(std::vector<KernelLaunch> launches) {
  Profile profile;
  profile.source = "test";
  profile.launches = std::move(launches);
  return profile;
}

TEST(ProfileComparisonTest, PairsByNameAndConfigurationThenByName) {
  Profile before = ProfileOf({Named("a", 10), Named("b", 20), Named("c", 5)});
  Profile after = ProfileOf({Named("b", 20), Named("a", 12), Named("d", 1)});
  auto comparison = CompareProfiles(before, after, {});
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  // a↔a (by name; the grid changed), b↔b (name and configuration), c↔d (the one left on each side).
  ASSERT_EQ(comparison->pairs.size(), 3u);
  EXPECT_EQ(comparison->pairs[0].match, "same kernel name");
  EXPECT_EQ(comparison->pairs[1].match, "same kernel name and launch configuration");
  EXPECT_EQ(comparison->pairs[2].match, "the one kernel left on each side (different names)");
  EXPECT_NE(comparison->pairs[0].notes.front().find("launch configuration changed"), std::string::npos);
  EXPECT_NE(comparison->pairs[2].notes.front().find("different kernels: c → d"), std::string::npos);
  EXPECT_TRUE(comparison->unmatched_before.empty());
  EXPECT_DOUBLE_EQ(comparison->total_before_ns, 35000);
  EXPECT_DOUBLE_EQ(comparison->total_after_ns, 33000);
}

TEST(ProfileComparisonTest, UnmatchedKernelsAreListedAndPairableByHand) {
  Profile before = ProfileOf({Named("pass1", 10), Named("pass2", 1)});
  Profile after = ProfileOf({Named("single", 8)});
  auto comparison = CompareProfiles(before, after, {});
  ASSERT_TRUE(comparison.ok());
  EXPECT_TRUE(comparison->pairs.empty());
  EXPECT_EQ(comparison->unmatched_before.size(), 2u);
  EXPECT_EQ(comparison->unmatched_after.size(), 1u);
  bool named = false;
  for (const std::string& note : comparison->notes) named = named || note.find("--pair") != std::string::npos;
  EXPECT_TRUE(named);

  ComparisonOptions options;
  options.pairs = {{"pass1", "#0"}};
  auto by_hand = CompareProfiles(before, after, options);
  ASSERT_TRUE(by_hand.ok());
  ASSERT_EQ(by_hand->pairs.size(), 1u);
  EXPECT_EQ(by_hand->pairs[0].match, "by hand (--pair pass1=#0)");
  EXPECT_EQ(by_hand->unmatched_before, std::vector<size_t>{1});

  options.pairs = {{"nothing", "#0"}};
  auto bad = CompareProfiles(before, after, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernels: pass1, pass2"), std::string::npos);
  options.pairs = {{"#5", "#0"}};
  EXPECT_FALSE(CompareProfiles(before, after, options).ok());
}

TEST(ProfileComparisonTest, ParsesPairSpecs) {
  auto spec = ParseKernelPairSpec("reduce_.*=#1");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->before, "reduce_.*");
  EXPECT_EQ(spec->after, "#1");
  EXPECT_FALSE(ParseKernelPairSpec("nothing").ok());
  EXPECT_FALSE(ParseKernelPairSpec("=x").ok());
  EXPECT_FALSE(ParseKernelPairSpec("a=b=c").ok());
}

TEST(ProfileComparisonTest, DifferentGpusAreANote) {
  auto comparison =
      CompareProfiles(ProfileOf({Named("k", 4, "NVIDIA A100-SXM4-80GB")}), ProfileOf({Named("k", 4)}), {});
  ASSERT_TRUE(comparison.ok());
  EXPECT_FALSE(comparison->same_device);
  ASSERT_FALSE(comparison->notes.empty());
  EXPECT_NE(comparison->notes[0].find("different GPUs"), std::string::npos);
  EXPECT_EQ(comparison->pairs.size(), 1u);
}

// The H200 fixture with --set basic against the same kernel with --set full:
// the metric sets differ, the attribution names what is missing, the rest is compared.
TEST(ProfileComparisonTest, FewerSectionsCompareWhatBothHave) {
  Profile basic = LoadFixture("basic_set_uncoalesced_loads", kRawPageOnly);
  Profile full = LoadFixture("uncoalesced_loads", kRawPageOnly);
  auto comparison = CompareProfiles(basic, full, {});
  ASSERT_TRUE(comparison.ok());
  ASSERT_EQ(comparison->pairs.size(), 1u);
  const KernelComparison& pair = comparison->pairs[0];
  EXPECT_GT(pair.metric_sets.only_after.size(), 100u);
  EXPECT_GT(pair.metric_sets.common, 50);
  EXPECT_FALSE(pair.attribution.available);
  bool noted = false;
  for (const std::string& note : pair.notes)
    noted = noted || note.find("different metric sets") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A launch with the time model's ratio-form metrics; `rho` is the identity's mismatch.
KernelLaunch TimedLaunch(double issued, double warps, double rho) {
  const double stalls = 20;  // selected 1 + long_scoreboard 19
  const double active = issued * stalls / warps * rho;
  return SyntheticLaunch({{"gpu__time_duration.sum", active / 1.98e9 * 1e9},
                          {"smsp__inst_issued.avg", issued},
                          {"smsp__warps_active.avg.per_cycle_active", warps},
                          {"smsp__cycles_active.avg", active},
                          {"sm__cycles_elapsed.avg", active},
                          {"sm__cycles_elapsed.avg.per_second", 1.98e9},
                          {"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", 1},
                          {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 19}});
}

bool HasNote(const KernelComparison& pair, const std::string& text) {
  for (const std::string& note : pair.notes)
    if (note.find(text) != std::string::npos) return true;
  return false;
}

TEST(ProfileComparisonTest, AStallPassMismatchAboveATenthOfTheChangeIsANote) {
  KernelDiagnosis before_diagnosis, after_diagnosis;
  KernelLaunch before = TimedLaunch(1000, 8, 1.0);
  // 10 % fewer instructions, and ρ 5 % higher: the terms still sum to the change, and the
  // mismatch (half the change) is a note.
  KernelLaunch after = TimedLaunch(900, 8, 1.05);
  KernelComparison pair = CompareKernels(before, before_diagnosis, after, after_diagnosis, 12);
  ASSERT_TRUE(pair.attribution.available);
  EXPECT_LT(pair.attribution.residual_fraction, 1e-9);
  EXPECT_GT(pair.attribution.pass_mismatch_ns,
            kPassMismatchNoteFraction * std::fabs(pair.attribution.delta_ns));
  EXPECT_TRUE(HasNote(pair, "replay passes"));
  // The same change with ρ unchanged: no note.
  KernelComparison exact =
      CompareKernels(before, before_diagnosis, TimedLaunch(900, 8, 1.0), after_diagnosis, 12);
  ASSERT_TRUE(exact.attribution.available);
  EXPECT_LT(exact.attribution.residual_fraction, 1e-9);
  EXPECT_FALSE(HasNote(exact, "replay passes"));
}

// A profile that holds several launches of a kernel (same name and configuration): one kernel,
// compared on its median launch, every launch read for the uncertainties; none is unmatched.
TEST(ProfileComparisonTest, RepeatsOfAPairedKernelGiveItsUncertaintiesAndAreNotUnmatched) {
  // Three launches of a reference and three of a candidate (different names), paired by hand.
  std::vector<KernelLaunch> before, after;
  for (double issued : {1000.0, 1010.0, 990.0}) {
    before.push_back(TimedLaunch(issued, 8, 1.0));
    before.back().kernel_name = "reference(float *)";
  }
  for (double issued : {900.0, 905.0, 895.0}) {
    after.push_back(TimedLaunch(issued, 8, 1.0));
    after.back().kernel_name = "candidate(float *)";
  }
  ComparisonOptions options;
  options.pairs = {{"reference", "candidate"}};
  auto comparison = CompareProfiles(ProfileOf(before), ProfileOf(after), options);
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  ASSERT_EQ(comparison->pairs.size(), 1u);
  EXPECT_TRUE(comparison->unmatched_before.empty());
  EXPECT_TRUE(comparison->unmatched_after.empty());
  const TimeAttribution& attribution = comparison->pairs[0].attribution;
  ASSERT_TRUE(attribution.available);
  EXPECT_EQ(attribution.uncertainty_source, UncertaintySource::kRepeats);
  EXPECT_EQ(attribution.launches_before, 3u);
  EXPECT_EQ(attribution.launches_after, 3u);
  for (const AttributionTerm& term : attribution.terms) {
    if (term.factor == "instructions" && term.part.empty()) {
      EXPECT_GT(term.uncertainty_ns, 0);
    }
  }
  bool noted = false;
  for (const std::string& note : comparison->pairs[0].notes)
    noted = noted || note.find("3 launches before, 3 after") != std::string::npos;
  EXPECT_TRUE(noted);
  // Compared on the median launches (issued 1000 and 900).
  EXPECT_NEAR(attribution.after_ns / attribution.before_ns, 0.9, 1e-9);
  // Without --pair: one kernel is left on each side, its first launches are paired.
  auto automatic = CompareProfiles(ProfileOf(before), ProfileOf(after), {});
  ASSERT_TRUE(automatic.ok());
  ASSERT_EQ(automatic->pairs.size(), 1u);
  EXPECT_EQ(automatic->pairs[0].match, "the one kernel left on each side (different names)");
  EXPECT_EQ(automatic->pairs[0].attribution.uncertainty_source, UncertaintySource::kRepeats);
  EXPECT_TRUE(automatic->unmatched_before.empty());
}

TEST(ProfileComparisonTest, FindingChanges) {
  KernelDiagnosis before, after;
  Finding a{"uncoalesced_loads", "Uncoalesced loads", Severity::kMajor, 0.4};
  Finding b{"tail_effect", "Tail", Severity::kMinor, 0.05};
  Finding c{"low_occupancy", "Low occupancy", Severity::kModerate, 0.1};
  before.findings = {a, b};
  Finding b_worse = b;
  b_worse.severity = Severity::kModerate;
  after.findings = {b_worse, c};
  std::vector<FindingChange> changes = CompareFindings(before, after);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].kind, FindingChangeKind::kResolved);
  EXPECT_EQ(changes[0].tool, "uncoalesced_loads");
  EXPECT_EQ(changes[1].kind, FindingChangeKind::kNew);
  EXPECT_EQ(changes[2].kind, FindingChangeKind::kWorse);
}

}  // namespace
}  // namespace kopt
