#include "agents/explanation_agent.h"

#include <gtest/gtest.h>

#include "agents/scripted_chat_client_test_util.h"
#include "analysis/diagnose.h"
#include "core/fake_command_runner_test_util.h"
#include "profile/profile_loader.h"

namespace kopt::agents {
namespace {

Diagnosis DiagnoseUncoalescedLoads() {
  ProfileSources options;
  options.target = std::string(KOPT_FIXTURE_DIR) + "/h200/uncoalesced_loads/raw.csv";
  FakeCommandRunner runner;
  std::vector<std::string> notes;
  Result<Profile> profile = LoadProfile(options, runner, notes);
  EXPECT_TRUE(profile.ok()) << profile.status().message();
  return profile.ok() ? Diagnose(*profile, {}) : Diagnosis{};
}

ExplanationOptions Options() {
  ExplanationOptions options;
  options.prompt_directory = std::string(KOPT_FIXTURE_DIR) + "/../../prompts";
  return options;
}

constexpr const char* kSupported =
    "## What the kernel does\nEach thread loads one `float`.\n## What limits it\nDRAM at 80.3% of its peak "
    "(3.86 TB/s of 4.81 TB/s).\n## Why\nOnly 4 of 32 bytes per sector are used.\n## What to change\n1. Make "
    "`threadIdx.x` walk the contiguous dimension; est. gain 77.1%.";

class ExplanationAgentTest : public ::testing::Test {
 protected:
  Diagnosis diagnosis_ = DiagnoseUncoalescedLoads();
  DigestInputs inputs_{&diagnosis_, {}, "", ""};
  ScriptedChatClient client_;
};

TEST_F(ExplanationAgentTest, SupportedNarrativeNeedsOneCall) {
  client_.Answer(kSupported);
  Narrative narrative = ExplanationAgent(client_, Options()).Explain(inputs_);
  ASSERT_TRUE(narrative.present()) << narrative.missing_reason;
  EXPECT_EQ(narrative.text, kSupported);
  EXPECT_EQ(narrative.UnsupportedCount(), 0u);
  EXPECT_GE(narrative.claims.size(), 6u);
  EXPECT_FALSE(narrative.regenerated);
  EXPECT_EQ(narrative.model, "fake-model-1");
  ASSERT_EQ(narrative.templates.size(), 2u);
  EXPECT_EQ(narrative.templates[0].id, "explain/system");
  EXPECT_EQ(narrative.templates[1].id, "explain/user");
  EXPECT_EQ(narrative.templates[1].hash.size(), 64u);
  ASSERT_EQ(client_.requests.size(), 1u);
  EXPECT_EQ(client_.requests[0].purpose, "explain");
  EXPECT_NE(client_.requests[0].messages[0].content.find("# kopt evidence digest"), std::string::npos);
  EXPECT_NE(client_.requests[0].system_prompt.find("What to change"), std::string::npos);
}

TEST_F(ExplanationAgentTest, UnsupportedNumberIsFixedByTheRegeneration) {
  client_.Answer("DRAM is at 80.3%; fixing it gives a 7.5× speedup.");
  client_.Answer("DRAM is at 80.3%; fixing the loads removes most of the wasted traffic.");
  Narrative narrative = ExplanationAgent(client_, Options()).Explain(inputs_);
  ASSERT_TRUE(narrative.present()) << narrative.missing_reason;
  EXPECT_TRUE(narrative.regenerated);
  EXPECT_EQ(narrative.first_attempt_unsupported, std::vector<std::string>{"7.5×"});
  EXPECT_EQ(narrative.UnsupportedCount(), 0u);
  EXPECT_EQ(narrative.text, "DRAM is at 80.3%; fixing the loads removes most of the wasted traffic.");
  ASSERT_EQ(client_.requests.size(), 2u);
  const llm::ChatRequest& second = client_.requests[1];
  ASSERT_EQ(second.messages.size(), 3u);
  EXPECT_EQ(second.messages[1].role, llm::Role::kAssistant);
  EXPECT_NE(second.messages[2].content.find("- \"7.5×\""), std::string::npos) << second.messages[2].content;
  EXPECT_EQ(narrative.templates.back().id, "explain/regenerate");
  EXPECT_EQ(narrative.input_tokens, 200);
}

TEST_F(ExplanationAgentTest, StillUnsupportedClaimsAreMarked) {
  client_.Answer("A 7.5× speedup and 12 µs saved.");
  client_.Answer("DRAM is at 80.3%, and a 7.5× speedup is possible.");
  Narrative narrative = ExplanationAgent(client_, Options()).Explain(inputs_);
  ASSERT_TRUE(narrative.present());
  EXPECT_TRUE(narrative.regenerated);
  EXPECT_EQ(narrative.text, "DRAM is at 80.3%, and a 7.5× [unsupported] speedup is possible.");
  ASSERT_EQ(narrative.claims.size(), 2u);
  EXPECT_TRUE(narrative.claims[0].supported);
  EXPECT_FALSE(narrative.claims[1].supported);
  EXPECT_EQ(narrative.UnsupportedCount(), 1u);
}

TEST_F(ExplanationAgentTest, FailedRegenerationKeepsTheFirstAnswerMarked) {
  client_.Answer("A 7.5× speedup.");
  client_.Fail(Unavailable("http://127.0.0.1:9/v1/chat/completions: connection refused"));
  Narrative narrative = ExplanationAgent(client_, Options()).Explain(inputs_);
  EXPECT_EQ(narrative.text, "A 7.5× [unsupported] speedup.");
  EXPECT_NE(narrative.regeneration_error.find("connection refused"), std::string::npos);
}

TEST_F(ExplanationAgentTest, LlmErrorsGiveAOneLineReasonAndNoText) {
  client_.Fail(Unavailable("http://127.0.0.1:9/v1/chat/completions: connection refused\nretried 4 times"));
  Narrative failed = ExplanationAgent(client_, Options()).Explain(inputs_);
  EXPECT_FALSE(failed.present());
  EXPECT_EQ(failed.missing_reason,
            "no LLM narrative: http://127.0.0.1:9/v1/chat/completions: connection refused retried 4 times");

  client_.Answer("I can't help with that.", "refusal");
  Narrative refused = ExplanationAgent(client_, Options()).Explain(inputs_);
  EXPECT_FALSE(refused.present());
  EXPECT_NE(refused.missing_reason.find("declined"), std::string::npos);

  client_.Answer("  \n");
  EXPECT_NE(ExplanationAgent(client_, Options()).Explain(inputs_).missing_reason.find("empty answer"),
            std::string::npos);
}

TEST_F(ExplanationAgentTest, MissingTemplatesAreAReasonNotACall) {
  ExplanationOptions options;
  options.prompt_directory = "/nonexistent/prompts";
  Narrative narrative = ExplanationAgent(client_, options).Explain(inputs_);
  EXPECT_FALSE(narrative.present());
  EXPECT_NE(narrative.missing_reason.find("prompt templates"), std::string::npos) << narrative.missing_reason;
  EXPECT_TRUE(client_.requests.empty());
}

}  // namespace
}  // namespace kopt::agents

namespace kopt::agents {
namespace {

// `kopt diff --llm`: the same protocol over a comparison's report, prompts diff/*.
TEST(ExplainDigestTest, ChecksEveryNumberAgainstTheDigestAndRegeneratesOnce) {
  const std::string digest = "time 500 µs → 152 µs (−348 µs); residual 1.2% of the change; DRAM 2.1 TB/s";
  EvidenceSet evidence;
  evidence.AddNumbersIn("diff report", digest);
  ScriptedChatClient client;
  client.Answer("## What changed\nThe time fell from 500 µs to 152 µs, 9.9× faster.");
  client.Answer("## What changed\nThe time fell from 500 µs to 152 µs; DRAM ran at 2.1 TB/s.");
  Narrative narrative = ExplanationAgent(client, Options()).ExplainDigest("diff", digest, evidence);
  ASSERT_TRUE(narrative.present()) << narrative.missing_reason;
  EXPECT_TRUE(narrative.regenerated);
  ASSERT_EQ(narrative.first_attempt_unsupported.size(), 1u);
  EXPECT_EQ(narrative.first_attempt_unsupported[0], "9.9×");
  EXPECT_EQ(narrative.UnsupportedCount(), 0u);
  ASSERT_EQ(client.requests.size(), 2u);
  EXPECT_EQ(client.requests[0].purpose, "diff");
  EXPECT_NE(client.requests[0].messages[0].content.find(digest), std::string::npos);
  EXPECT_EQ(narrative.templates[0].id, "diff/system");
  EXPECT_EQ(narrative.templates[2].id, "diff/regenerate");
}

TEST(ExplainDigestTest, MissingPromptFamilyIsAReason) {
  ScriptedChatClient client;
  Narrative narrative = ExplanationAgent(client, Options()).ExplainDigest("nonexistent", "x", EvidenceSet{});
  EXPECT_FALSE(narrative.present());
  EXPECT_NE(narrative.missing_reason.find("prompt templates"), std::string::npos);
}

}  // namespace
}  // namespace kopt::agents
