#include "suite/suite_renderer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "suite/suite_test_util.h"

namespace kopt::suite {
namespace {

SuiteReport Report() {
  ProblemJournal journal;
  journal.attempts = 1;
  WorkStatus ended;
  ended.state = WorkState::kSucceeded;
  journal.ended = ended;
  nlohmann::json document = {{"schema", "kopt.baselines"},
                             {"schema_version", 1},
                             {"baselines", {{{"name", "eager"}, {"time_s", 3e-3}}}}};
  Result<std::optional<TaskBaselines>> baselines =
      std::optional<TaskBaselines>(*ParseTaskBaselines(document.dump(), "baselines.json"));
  const Result<std::optional<TaskBaselines>> no_baselines = std::optional<TaskBaselines>();
  SuiteReport report;
  report.name = "s";
  report.directory = "/ws/suites/s";
  RunState fast = MakeRunState(1, 4e-3, {1e-3});
  RunState wrong = MakeRunState(1, 4e-3, {0});
  report.problems.push_back(MakeProblemResult({"fast", "/t/fast", "level1"}, &journal, &fast, baselines));
  report.problems.push_back(MakeProblemResult({"wrong", "/t/wrong", "level2"}, &journal, &wrong, baselines));
  report.problems.push_back(
      MakeProblemResult({"later", "/t/later", "level2"}, nullptr, nullptr, no_baselines));
  report.groups = SummarizeGroups(report.problems);
  return report;
}

TEST(SuiteRendererTest, JsonIsVersionedWithUnitsAndNullsForWhatWasNotMeasured) {
  nlohmann::json document = nlohmann::json::parse(*RenderSuiteReport(Report(), ReportFormat::kJson));
  EXPECT_EQ(document["schema"], "kopt.suite.report");
  EXPECT_EQ(document["schema_version"], kSuiteReportSchemaVersion);
  EXPECT_EQ(document["baseline_columns"][0], "eager");
  const nlohmann::json& fast = document["problems"][0];
  EXPECT_DOUBLE_EQ(fast["baselines"]["eager"]["speedup"].get<double>(), 3.0);
  EXPECT_TRUE(fast["baselines"]["torch_compile"]["time_s"].is_null());
  EXPECT_EQ(fast["baselines"]["torch_compile"]["note"], "not measured");
  EXPECT_EQ(document["problems"][2]["outcome"], "pending");
  const nlohmann::json& all = document["groups"].back();
  EXPECT_EQ(all["group"], "all");
  EXPECT_DOUBLE_EQ(all["against"]["eager"]["fast_p_fraction"]["1"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(all["coverage_fraction"].get<double>(), 2.0 / 3);
}

TEST(SuiteRendererTest, TextFormatsShowTheColumnsEagerFirstAndHtmlPlotsTheDistribution) {
  std::string markdown = *RenderSuiteReport(Report(), ReportFormat::kMarkdown);
  EXPECT_LT(markdown.find("vs eager"), markdown.find("vs TF32"));
  EXPECT_LT(markdown.find("vs torch.compile"), markdown.find("vs reference"));
  EXPECT_NE(markdown.find("| 3.00× |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("not measured"), std::string::npos);
  std::string html = *RenderSuiteReport(Report(), ReportFormat::kHtml);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(RenderSuiteReport(Report(), ReportFormat::kFeedback).status().kind(), ErrorKind::kInvalidInput);
  std::string line = FormatSuiteProgressLine(Report());
  EXPECT_EQ(line,
            "suite s: 2/3 done (0 failed), 0 running, 1 pending · best 3.00× vs eager (fast) · 240 tokens "
            "0.02 USD 3.0 GPU-s");
}

}  // namespace
}  // namespace kopt::suite
