#include "suite/suite_results.h"

#include <gtest/gtest.h>

#include <cmath>

#include "suite/suite_test_util.h"

namespace kopt::suite {
namespace {

Result<std::optional<TaskBaselines>> Baselines(double eager_s) {
  nlohmann::json document = {
      {"schema", "kopt.baselines"},
      {"schema_version", 1},
      {"baselines", {{{"name", "eager"}, {"time_s", eager_s}}, {{"name", "tf32"}, {"note", "failed"}}}}};
  KOPT_ASSIGN_OR_RETURN(TaskBaselines baselines, ParseTaskBaselines(document.dump(), "baselines.json"));
  return std::optional<TaskBaselines>(baselines);
}

const Result<std::optional<TaskBaselines>> kNoBaselines = std::optional<TaskBaselines>();

ProblemJournal Ended() {
  ProblemJournal journal;
  journal.attempts = 1;
  WorkStatus status;
  status.state = WorkState::kSucceeded;
  journal.ended = status;
  return journal;
}

TEST(SuiteResultsTest, SpeedupsAreAgainstEachBaselineColumnAndAbsentOnesSaySo) {
  ProblemJournal journal = Ended();
  RunState state = MakeRunState(1, 4e-3, {2e-3, 0, 1e-3});
  ProblemResult result = MakeProblemResult({"p", "/t/p", "level1"}, &journal, &state, Baselines(3e-3));
  EXPECT_EQ(result.outcome, ProblemOutcome::kFinished);
  EXPECT_TRUE(result.correct);
  EXPECT_EQ(result.best_node, "n3");
  EXPECT_DOUBLE_EQ(*result.baseline(BaselineKind::kEager).speedup, 3.0);
  EXPECT_DOUBLE_EQ(*result.baseline(BaselineKind::kReference).speedup, 4.0);
  EXPECT_FALSE(result.baseline(BaselineKind::kTf32).time_s.has_value());
  EXPECT_EQ(result.baseline(BaselineKind::kTf32).note, "failed");
  EXPECT_EQ(result.baseline(BaselineKind::kTorchCompile).note, "not measured");
  EXPECT_EQ(result.verdicts.at("verified"), 2);
  EXPECT_EQ(result.verdicts.at("failed_compile"), 1);
  EXPECT_EQ(result.llm_tokens, 120);
  EXPECT_DOUBLE_EQ(result.gpu_seconds, 1.5);
}

TEST(SuiteResultsTest, OnlyTheReferenceIsNotCorrectAndHasNoSpeedup) {
  ProblemJournal journal = Ended();
  RunState state = MakeRunState(1, 4e-3, {0, 0});
  ProblemResult result = MakeProblemResult({"p", "/t/p", "level1"}, &journal, &state, Baselines(3e-3));
  EXPECT_FALSE(result.correct);
  EXPECT_FALSE(result.baseline(BaselineKind::kEager).speedup.has_value());
  EXPECT_EQ(MakeProblemResult({"q", "/t/q", "level1"}, nullptr, nullptr, kNoBaselines).outcome,
            ProblemOutcome::kPending);
}

TEST(SuiteResultsTest, FastPCountsEveryProblemAndGeomeanTheCorrectOnes) {
  ProblemJournal journal = Ended();
  std::vector<ProblemResult> problems;
  // Eager speedups: 0.5, 1.2, 3.0 (level1); level2: one without a correct candidate, one never run.
  for (double best_s : {6e-3, 2.5e-3, 1e-3}) {
    RunState state = MakeRunState(1, 10e-3, {best_s});
    problems.push_back(MakeProblemResult({"p", "/t", "level1"}, &journal, &state, Baselines(3e-3)));
  }
  RunState wrong = MakeRunState(1, 10e-3, {0});
  problems.push_back(MakeProblemResult({"w", "/t", "level2"}, &journal, &wrong, Baselines(3e-3)));
  problems.push_back(MakeProblemResult({"n", "/t", "level2"}, nullptr, nullptr, kNoBaselines));

  std::vector<GroupSummary> groups = SummarizeGroups(problems);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].group, "level1");
  EXPECT_EQ(groups[1].group, "level2");
  EXPECT_EQ(groups[2].group, "all");
  const size_t eager = static_cast<size_t>(BaselineKind::kEager);
  const GroupSummary& all = groups[2];
  EXPECT_EQ(all.problems, 5);
  EXPECT_EQ(all.correct, 3);
  EXPECT_EQ(all.finished, 4);
  EXPECT_DOUBLE_EQ(all.fast[eager][0], 3.0 / 5);  // fast_0: correct
  EXPECT_DOUBLE_EQ(all.fast[eager][1], 2.0 / 5);  // fast_1: 1.2 and 3.0
  EXPECT_DOUBLE_EQ(all.fast[eager][2], 1.0 / 5);  // fast_1.5
  EXPECT_DOUBLE_EQ(all.fast[eager][3], 1.0 / 5);  // fast_2
  EXPECT_NEAR(*all.geomean[eager], std::cbrt(0.5 * 1.2 * 3.0), 1e-12);
  EXPECT_EQ(all.geomean_count[eager], 3);
  EXPECT_FALSE(all.geomean[static_cast<size_t>(BaselineKind::kTorchCompile)].has_value());
  EXPECT_DOUBLE_EQ(groups[1].fast[eager][0], 0.0);
  EXPECT_FALSE(groups[1].geomean[eager].has_value());
}

}  // namespace
}  // namespace kopt::suite
