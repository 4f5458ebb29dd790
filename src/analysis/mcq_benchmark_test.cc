#include "analysis/mcq_benchmark.h"

#include <gtest/gtest.h>

#include <set>

#include "analysis/metric_glossary.h"

namespace kopt {
namespace {

Diagnosis WithFindings(const std::string& name, const std::vector<std::string>& ids) {
  Diagnosis diagnosis;
  KernelDiagnosis kernel;
  kernel.function_name = name;
  for (const std::string& id : ids) {
    Finding finding;
    finding.tool = id;
    finding.title = id + " title";
    finding.recommendations.push_back({"fix " + id, "", "the " + id + " effect"});
    finding.evidence.push_back({id + "_metric", 1, "", ">=", 0});
    kernel.findings.push_back(finding);
  }
  diagnosis.kernels.push_back(kernel);
  return diagnosis;
}

TEST(McqBenchmarkTest, EveryQuestionHasFourDistinctOptionsAndTheLabelIsRight) {
  std::vector<Diagnosis> diagnoses = {WithFindings("k0", {"uncoalesced_loads", "tail_effect"}),
                                      WithFindings("k1", {"barrier_stalls"}), WithFindings("k2", {"healthy"}),
                                      WithFindings("k3", {"accidental_fp64", "low_occupancy_registers"}),
                                      WithFindings("k4", {"launch_overhead"})};
  std::vector<std::string> labels = {"uncoalesced_loads", "barrier_stalls", "healthy", "accidental_fp64",
                                     "launch_overhead"};
  std::vector<double> times = {100, 10, 50, 300, 5};
  std::vector<LabelledProfile> profiles;
  for (size_t i = 0; i < labels.size(); ++i)
    profiles.push_back({"p" + std::to_string(i), "set", labels[i], times[i], &diagnoses[i]});
  std::vector<McqQuestion> questions = GenerateMcqQuestions(profiles, McqGenerationOptions{});
  std::set<McqKind> kinds;
  for (const McqQuestion& question : questions) {
    kinds.insert(question.kind);
    ASSERT_EQ(question.options.size(), 4u) << question.id;
    EXPECT_EQ(std::set<std::string>(question.options.begin(), question.options.end()).size(), 4u)
        << question.id;
    ASSERT_LT(question.correct, 4u);
    if (question.kind == McqKind::kPrimaryLimiter) {
      const std::string& right = question.options[question.correct];
      EXPECT_EQ(right.substr(0, labels[question.profiles[0]].size()), labels[question.profiles[0]])
          << question.id;
    }
    if (question.kind == McqKind::kFasterVersion) {
      size_t a = question.profiles[0], b = question.profiles[1];
      EXPECT_EQ(question.options[question.correct][0], times[a] > times[b] ? 'A' : 'B') << question.id;
    }
  }
  EXPECT_EQ(kinds.size(), 4u) << "all four kinds generated";
  // The distractors of k0's limiter start with its other finding.
  const McqQuestion& first = questions.front();
  EXPECT_NE(std::find(first.options.begin(), first.options.end(), "tail_effect"), first.options.end());
  // Same seed, same questions; another seed shuffles.
  EXPECT_EQ(GenerateMcqQuestions(profiles, McqGenerationOptions{})[0].options, first.options);
}

TEST(McqBenchmarkTest, MetricMeaningAsksEachCitedCounterOncePerSetWithSameSuffixDistractors) {
  auto with_evidence = [](const std::string& name, const std::vector<std::string>& metrics) {
    Diagnosis diagnosis = WithFindings(name, {"low_occupancy_registers"});
    diagnosis.kernels[0].findings[0].evidence.clear();
    for (const std::string& metric : metrics)
      diagnosis.kernels[0].findings[0].evidence.push_back({metric, 1, "", ">=", 0});
    return diagnosis;
  };
  std::vector<Diagnosis> diagnoses = {
      with_evidence("k0", {"stall share: barrier", "sm__warps_active.avg.pct_of_peak_sustained_active"}),
      with_evidence("k1", {"sm__warps_active.avg.pct_of_peak_sustained_active", "launch__grid_size"}),
      with_evidence("k2", {"not_a_counter.sum"})};
  std::vector<LabelledProfile> profiles;
  for (size_t i = 0; i < diagnoses.size(); ++i)
    profiles.push_back(
        {"p" + std::to_string(i), "set", "low_occupancy_registers", std::nullopt, &diagnoses[i]});
  std::vector<McqQuestion> meaning;
  for (McqQuestion& question : GenerateMcqQuestions(profiles, McqGenerationOptions{}))
    if (question.kind == McqKind::kMetricMeaning) meaning.push_back(question);
  ASSERT_EQ(meaning.size(), 2u) << "k0's counter, then k1's first counter not yet asked; k2 has none";
  EXPECT_NE(meaning[0].stem.find("sm__warps_active.avg.pct_of_peak_sustained_active"), std::string::npos);
  EXPECT_EQ(meaning[0].options[meaning[0].correct],
            DescribeMetric("sm__warps_active.avg.pct_of_peak_sustained_active").value());
  for (const std::string& option : meaning[0].options)  // every distractor under the same roll-up
    EXPECT_NE(option.find("averaged over"), std::string::npos) << option;
  EXPECT_NE(meaning[1].stem.find("launch__grid_size"), std::string::npos);
  for (const std::string& option : meaning[1].options)  // attributes against attributes
    EXPECT_EQ(option.find("over the"), std::string::npos) << option;
  EXPECT_EQ(McqKindName(McqKind::kMetricMeaning), "metric_meaning");
  EXPECT_EQ(McqKindName(McqKind::kEvidenceProblem), "evidence_problem");
}

// Fixture kernels are often named after their bottleneck: no stem may carry the name, and a context
// passes through PseudonymiseKernelName.
TEST(McqBenchmarkTest, StemsNameKernelsByAliasNeverByFunctionName) {
  std::vector<Diagnosis> diagnoses = {WithFindings("uncoalesced_loads", {"uncoalesced_loads", "tail_effect"}),
                                      WithFindings("barrier_stalls", {"barrier_stalls"}),
                                      WithFindings("tail_effect", {"tail_effect"}),
                                      WithFindings("launch_overhead", {"launch_overhead"})};
  std::vector<std::string> labels = {"uncoalesced_loads", "barrier_stalls", "tail_effect", "launch_overhead"};
  std::vector<double> times = {100, 10, 50, 300};
  std::vector<LabelledProfile> profiles;
  for (size_t i = 0; i < labels.size(); ++i)
    profiles.push_back({"p" + std::to_string(i), "set", labels[i], times[i], &diagnoses[i]});
  std::vector<McqQuestion> questions = GenerateMcqQuestions(profiles, McqGenerationOptions{});
  ASSERT_FALSE(questions.empty());
  for (const McqQuestion& question : questions) {
    for (size_t index : question.profiles) {
      EXPECT_EQ(question.stem.find(labels[index] + " "), std::string::npos) << question.stem;
      EXPECT_NE(question.stem.find(KernelAlias(index)), std::string::npos) << question.stem;
    }
  }
  EXPECT_EQ(KernelAlias(0), "kernel_001");
  EXPECT_EQ(
      PseudonymiseKernelName("void barrier_stalls(float*) ran; barrier_stalls_v2 and xbarrier_stalls stay",
                             profiles[1], 1),
      "void kernel_002(float*) ran; barrier_stalls_v2 and xbarrier_stalls stay");
}

TEST(McqBenchmarkTest, WilsonIntervalMatchesTheFormula) {
  Interval interval = WilsonInterval(81, 100);
  EXPECT_NEAR(interval.low, 0.7222, 1e-3);
  EXPECT_NEAR(interval.high, 0.8749, 1e-3);
  EXPECT_DOUBLE_EQ(WilsonInterval(0, 0).high, 1.0);
  EXPECT_GT(WilsonInterval(0, 10).high, 0.0);
}

TEST(McqBenchmarkTest, TheChosenLetterIsTheFirstStandaloneOne) {
  EXPECT_EQ(ParseOptionLetter("B"), std::optional<size_t>(1));
  EXPECT_EQ(ParseOptionLetter("Answer: C, because"), std::optional<size_t>(2));
  EXPECT_EQ(ParseOptionLetter("(D) the tail"), std::optional<size_t>(3));
  EXPECT_EQ(ParseOptionLetter("none of them"), std::nullopt);
}

}  // namespace
}  // namespace kopt
