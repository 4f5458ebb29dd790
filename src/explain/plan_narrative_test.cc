#include "explain/plan_narrative.h"

#include <gtest/gtest.h>

#include <memory>

#include "agents/number_check.h"
#include "agents/scripted_chat_client_test_util.h"
#include "analysis/program_plan_test_util.h"

namespace kopt {
namespace {

// 1 ms: gemm 800 µs (80%, low_occupancy 10%), softmax 150 µs (uncoalesced_loads 60%,
// low_occupancy 50%), layernorm 50 µs (healthy).
ProgramPlan NarratedPlan() {
  static const Diagnosis program = plan_test::Program();
  return BuildProgramPlan({&program}, PlanOptions{});
}

std::string PlanPromptDirectory() {
  return std::string(KOPT_FIXTURE_DIR) + "/../../prompts";
}

// Every number a narrative may cite about the plan, as NarrateDigest checks it.
agents::EvidenceSet PlanEvidenceOf(const std::string& digest) {
  agents::EvidenceSet evidence;
  evidence.AddNumbersIn("plan report", digest);
  return evidence;
}

TEST(PlanNarrativeTest, DigestCarriesTimeByKernelRankedSavingsAndGroups) {
  std::string digest = PlanDigest(NarratedPlan());
  for (const char* expected : {"Where the time goes", "gemm", "800 µs", "80.0%",  // time by kernel
                               "Findings ranked by whole-program time saved", "uncoalesced_loads", "90 µs",
                               "9.0%",  // the top saving
                               "Root causes shared across kernels", "low_occupancy", "155 µs"}) {
    EXPECT_NE(digest.find(expected), std::string::npos) << expected << " not in\n" << digest;
  }
  agents::EvidenceSet evidence = PlanEvidenceOf(digest);
  std::vector<NumericClaim> claims = agents::CheckNumericClaims(
      "`gemm` holds 80% of the time; `uncoalesced_loads` saves 90 µs, `low_occupancy` 155 µs in all.",
      evidence);
  ASSERT_EQ(claims.size(), 3u);
  for (const NumericClaim& claim : claims) EXPECT_TRUE(claim.supported) << claim.text;
  claims = agents::CheckNumericClaims("fixing both gives 42.5 µs back, a 3.5× program speed-up", evidence);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_FALSE(claims[0].supported);
  EXPECT_FALSE(claims[1].supported);
}

TEST(PlanNarrativeTest, DigestLeavesThePlansOwnNarrativeOut) {
  ProgramPlan plan = NarratedPlan();
  std::string without = PlanDigest(plan);
  plan.narrative = Narrative{};
  plan.narrative->text = "an earlier narrative saying 77 ms";
  EXPECT_EQ(PlanDigest(plan), without);
}

constexpr const char* kPlanFirstAnswer =
    "## Where the time goes\n`gemm` holds 80% of the time.\n"
    "## What to fix first\n1. `uncoalesced_loads` in `softmax` saves 90 µs (9% of the program).\n"
    "## Shared root causes\n- `low_occupancy` spans `gemm` and `softmax` and saves 155 µs; all fixed, 3.5× "
    "faster.";
constexpr const char* kPlanSecondAnswer =
    "## Where the time goes\n`gemm` holds 80% of the time.\n"
    "## What to fix first\n1. `uncoalesced_loads` in `softmax` saves 90 µs.\n"
    "## Shared root causes\n- `low_occupancy` saves 155 µs; the whole program gets 2.5× faster.";

TEST(PlanNarrativeTest, UnsupportedNumberIsRegeneratedOnceThenMarked) {
  auto client = std::make_unique<agents::ScriptedChatClient>();
  agents::ScriptedChatClient& script = *client;
  script.Answer(kPlanFirstAnswer);
  script.Answer(kPlanSecondAnswer);
  LlmSession session = LlmSession::WithClient(std::move(client), PlanPromptDirectory());
  ProgramPlan plan = NarratedPlan();
  Narrative narrative = NarratePlan(session, plan);

  ASSERT_TRUE(narrative.present()) << narrative.missing_reason;
  ASSERT_EQ(script.requests.size(), 2u);
  // The prompt carries the plan: system plan/system, user plan/user with the digest.
  const llm::ChatRequest& first = script.requests[0];
  EXPECT_NE(first.system_prompt.find("where the GPU time of their program"), std::string::npos);
  ASSERT_EQ(first.messages.size(), 1u);
  EXPECT_NE(first.messages.back().content.find(PlanDigest(plan)), std::string::npos);
  EXPECT_NE(script.requests[1].messages.back().content.find("3.5×"), std::string::npos)
      << "the regeneration prompt names the unsupported claim";
  EXPECT_TRUE(narrative.regenerated);
  ASSERT_EQ(narrative.first_attempt_unsupported.size(), 1u);
  EXPECT_EQ(narrative.first_attempt_unsupported[0], "3.5×");
  EXPECT_EQ(narrative.UnsupportedCount(), 1u);
  EXPECT_NE(narrative.text.find("2.5× [unsupported]"), std::string::npos) << narrative.text;
  EXPECT_EQ(narrative.text.find("80% [unsupported]"), std::string::npos);
  ASSERT_GE(narrative.templates.size(), 3u);
  EXPECT_EQ(narrative.templates[0].id, "plan/system");
  EXPECT_EQ(narrative.templates[1].id, "plan/user");
  EXPECT_EQ(narrative.templates[2].id, "plan/regenerate");
}

TEST(PlanNarrativeTest, AllSupportedNeedsOneCall) {
  auto client = std::make_unique<agents::ScriptedChatClient>();
  agents::ScriptedChatClient& script = *client;
  script.Answer("## Where the time goes\n`gemm` holds 80% of the 1 ms.");
  LlmSession session = LlmSession::WithClient(std::move(client), PlanPromptDirectory());
  Narrative narrative = NarratePlan(session, NarratedPlan());
  ASSERT_TRUE(narrative.present()) << narrative.missing_reason;
  EXPECT_EQ(script.requests.size(), 1u);
  EXPECT_FALSE(narrative.regenerated);
  EXPECT_EQ(narrative.UnsupportedCount(), 0u);
  EXPECT_EQ(narrative.claims.size(), 2u);
}

TEST(PlanNarrativeTest, NoClientIsAMissingNarrativeNotAnError) {
  LlmSession session = LlmSession::Unavailable("no LLM narrative: connection refused");
  Narrative narrative = NarratePlan(session, NarratedPlan());
  EXPECT_FALSE(narrative.present());
  EXPECT_EQ(narrative.missing_reason, "no LLM narrative: connection refused");
}

TEST(PlanNarrativeTest, LlmErrorIsAMissingNarrative) {
  auto client = std::make_unique<agents::ScriptedChatClient>();
  client->Fail(Unavailable("HTTP 503 after 3 attempts"));
  LlmSession session = LlmSession::WithClient(std::move(client), PlanPromptDirectory());
  Narrative narrative = NarratePlan(session, NarratedPlan());
  EXPECT_FALSE(narrative.present());
  EXPECT_NE(narrative.missing_reason.find("503"), std::string::npos) << narrative.missing_reason;
}

}  // namespace
}  // namespace kopt
