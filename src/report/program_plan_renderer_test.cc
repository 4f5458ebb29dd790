#include "report/program_plan_renderer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/program_plan_test_util.h"

namespace kopt {
namespace {

ProgramPlan RenderedPlan() {
  static const Diagnosis program = plan_test::Program();
  return BuildProgramPlan({&program}, PlanOptions{});
}

// A checked narrative as the plan narrative writes it: one claim left unsupported, and markup to escape.
Narrative PlanNarrativeSample() {
  Narrative narrative;
  narrative.text =
      "## Where the time goes\n`gemm` holds 80% of the time <script>x</script>.\n"
      "## What to fix first\n1. Fix `uncoalesced_loads` first: 2.5× [unsupported] faster.";
  NumericClaim supported;
  supported.text = "80%";
  supported.supported = true;
  NumericClaim unsupported;
  unsupported.text = "2.5×";
  narrative.claims = {supported, unsupported};
  narrative.model = "fake-model-1";
  narrative.templates = {{"plan/system", 1, std::string(64, 'a')}, {"plan/user", 1, std::string(64, 'b')}};
  return narrative;
}

constexpr const char* kPlanNarrativeHeading = "Narrative (LLM; every number checked against the plan)";

TEST(ProgramPlanRendererTest, NoNarrativeWithoutLlm) {
  ProgramPlan plan = RenderedPlan();
  EXPECT_EQ(RenderProgramPlan(plan, ReportFormat::kTerminal).find("Narrative"), std::string::npos);
  nlohmann::json json = nlohmann::json::parse(RenderProgramPlan(plan, ReportFormat::kJson));
  EXPECT_EQ(json["schema"], "kopt.plan/1.1");
  ASSERT_TRUE(json.contains("narrative"));
  EXPECT_TRUE(json["narrative"].is_null());
}

TEST(ProgramPlanRendererTest, NarrativeFollowsThePlanInEveryTextFormat) {
  ProgramPlan plan = RenderedPlan();
  plan.narrative = PlanNarrativeSample();
  for (ReportFormat format : {ReportFormat::kTerminal, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    std::string text = RenderProgramPlan(plan, format);
    size_t heading = text.find(kPlanNarrativeHeading);
    ASSERT_NE(heading, std::string::npos) << ReportFormatName(format);
    EXPECT_GT(heading, text.find("Root causes shared across kernels")) << "after the deterministic plan";
    EXPECT_NE(text.find("Where the time goes", heading), std::string::npos);
    EXPECT_NE(text.find("unsupported", text.find("2.5", heading)), std::string::npos)
        << ReportFormatName(format);
    EXPECT_NE(text.find("2 numbers checked against the evidence: 1 supported, 1 unsupported"),
              std::string::npos)
        << text.substr(heading);
    EXPECT_NE(text.find("fake-model-1", heading), std::string::npos);
  }
  std::string html = RenderProgramPlan(plan, ReportFormat::kHtml);
  EXPECT_EQ(html.find("<script>x"), std::string::npos) << "the LLM's text is escaped";
  EXPECT_NE(html.find("&lt;script&gt;x"), std::string::npos);
}

TEST(ProgramPlanRendererTest, MissingNarrativeSaysWhy) {
  ProgramPlan plan = RenderedPlan();
  plan.narrative = Narrative{};
  plan.narrative->missing_reason = "no LLM narrative: connection refused";
  std::string text = RenderProgramPlan(plan, ReportFormat::kTerminal);
  EXPECT_NE(text.find("No narrative: no LLM narrative: connection refused"), std::string::npos) << text;
}

TEST(ProgramPlanRendererTest, JsonCarriesExplainsNarrativeObject) {
  ProgramPlan plan = RenderedPlan();
  plan.narrative = PlanNarrativeSample();
  nlohmann::json json = nlohmann::json::parse(RenderProgramPlan(plan, ReportFormat::kJson));
  const nlohmann::json& narrative = json["narrative"];
  EXPECT_EQ(narrative["text"], plan.narrative->text);
  EXPECT_EQ(narrative["model"], "fake-model-1");
  EXPECT_EQ(narrative["unsupported_claims"]["value"], 1.0);
  ASSERT_EQ(narrative["claims"].size(), 2u);
  EXPECT_EQ(narrative["claims"][1]["text"], "2.5×");
  EXPECT_FALSE(narrative["claims"][1]["supported"].get<bool>());
  EXPECT_EQ(narrative["prompt_templates"][0]["id"], "plan/system");
}

}  // namespace
}  // namespace kopt
