#include "llm/request_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/local_llm_server_test_util.h"

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ChatRequest SampleRequest() {
  ChatRequest request;
  request.system_prompt = "S";
  request.messages = {{Role::kUser, "Explain."}, {Role::kAssistant, "Sure."}};
  request.purpose = "explain";
  return request;
}

TEST(RequestKeyTest, Sha256OfKnownText) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(RequestKeyTest, CanonicalJsonIsSortedCompactAndUsesTheConfiguredModel) {
  EXPECT_EQ(
      CanonicalRequestJson(SampleRequest(), "m"),
      R"({"max_tokens":2048,"messages":[{"content":"Explain.","role":"user"},)"
      R"({"content":"Sure.","role":"assistant"}],"model":"m","n":1,"stop":[],"system":"S","temperature":0.0})");
}

TEST(RequestKeyTest, PurposeIsNotPartOfTheKeyButEveryFieldIs) {
  ChatRequest a = SampleRequest();
  ChatRequest b = SampleRequest();
  b.purpose = "repair";
  EXPECT_EQ(CanonicalRequestJson(a, "m"), CanonicalRequestJson(b, "m"));
  b.temperature = 0.5;
  EXPECT_NE(CanonicalRequestJson(a, "m"), CanonicalRequestJson(b, "m"));
  ChatRequest c = SampleRequest();
  c.stop_sequences = {"END"};
  EXPECT_NE(CanonicalRequestJson(a, "m"), CanonicalRequestJson(c, "m"));
}

TEST(RequestKeyTest, CacheKeyAddsProviderAndBaseUrlButNeverTheKey) {
  LlmConfig config;
  config.model = "m";
  config.base_url = "http://a";
  config.api_key = "sk-secret-9999";
  std::string first = CanonicalCacheJson(SampleRequest(), config);
  EXPECT_THAT(first, HasSubstr(R"("base_url":"http://a")"));
  EXPECT_THAT(first, HasSubstr(R"("provider":"openai")"));
  EXPECT_THAT(first, Not(HasSubstr("sk-secret-9999")));
  config.base_url = "http://b";
  EXPECT_NE(first, CanonicalCacheJson(SampleRequest(), config));
}

TEST(RequestKeyTest, HandWrittenRequestWithDefaultsHashesLikeTheFullOne) {
  auto parsed = RequestFromJsonText(
      R"({"model":"m","system":"S","messages":[{"role":"user","content":"Explain."},{"role":"assistant","content":"Sure."}]})",
      "t:1");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(CanonicalRequestJson(*parsed, ""), CanonicalRequestJson(SampleRequest(), "m"));
}

TEST(RequestKeyTest, ToolsCallsAndResultsAreInTheKeyAndRoundTrip) {
  ChatRequest tools = testing::ToolConversationRequest();
  std::string canonical = CanonicalRequestJson(tools, "m");
  EXPECT_THAT(canonical,
              HasSubstr(R"("tool_calls":[{"arguments":"{\"query\":\"make_layout\"}","id":"call_1")"));
  EXPECT_THAT(canonical, HasSubstr(R"("is_error":true,"role":"tool","tool_call_id":"call_2")"));
  EXPECT_THAT(canonical, HasSubstr(R"("tools":[{"description":"Search the source tree.","name":"search")"));
  auto parsed = RequestFromJsonText(canonical, "t:1");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(CanonicalRequestJson(*parsed, ""), canonical);
  // Every tool field counts.
  ChatRequest other = tools;
  other.messages[2].content += " ";
  EXPECT_NE(CanonicalRequestJson(other, "m"), canonical);
  other = tools;
  other.messages[1].tool_calls[0].arguments = R"({"query":"make_shape"})";
  EXPECT_NE(CanonicalRequestJson(other, "m"), canonical);
  other = tools;
  other.messages[3].is_error = false;
  EXPECT_NE(CanonicalRequestJson(other, "m"), canonical);
  other = tools;
  other.tools.clear();
  EXPECT_NE(CanonicalRequestJson(other, "m"), canonical);
  // Without tools the canonical form has no tool keys at all (old hashes hold).
  EXPECT_THAT(CanonicalRequestJson(SampleRequest(), "m"), Not(HasSubstr("tool")));
}

TEST(RequestKeyTest, MalformedRequestFieldsAreNamed) {
  auto bad_calls =
      RequestFromJsonText(R"({"messages":[{"role":"assistant","content":"","tool_calls":{}}]})", "t:6");
  ASSERT_FALSE(bad_calls.ok());
  EXPECT_THAT(bad_calls.status().message(), HasSubstr("tool_calls"));
  auto bad_tools = RequestFromJsonText(R"({"tools":[{"name":3}]})", "t:7");
  ASSERT_FALSE(bad_tools.ok());
  EXPECT_THAT(bad_tools.status().message(), HasSubstr("t:7"));
  auto bad_role = RequestFromJsonText(R"({"messages":[{"role":"system","content":"x"}]})", "t:4");
  ASSERT_FALSE(bad_role.ok());
  EXPECT_THAT(bad_role.status().message(), HasSubstr("t:4"));
  auto bad_type = RequestFromJsonText(R"({"max_tokens":"many"})", "t:5");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_THAT(bad_type.status().message(), HasSubstr("request.max_tokens"));
}

}  // namespace
}  // namespace kopt::llm
