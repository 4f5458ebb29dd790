#include "llm/anthropic_chat.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/local_llm_server_test_util.h"

namespace kopt::llm {
namespace {

using testing::AnthropicTextBody;
using ::testing::HasSubstr;
using testing::LocalLlmServer;
using ::testing::Not;

constexpr char kKey[] = "sk-ant-test-SECRET-4567";
constexpr char kPath[] = "/v1/messages";

class AnthropicChatTest : public ::testing::Test {
 protected:
  std::unique_ptr<AnthropicChatClient> Client(const std::string& base_url) {
    LlmConfig config;
    config.provider = Provider::kAnthropic;
    config.base_url = base_url;
    config.model = "claude-test";
    config.api_key = kKey;
    config.read_timeout_seconds = 1;
    redactor_.AddSecret(kKey);
    return std::make_unique<AnthropicChatClient>(config,
                                                 ProviderEnvironment{&transport_, &redactor_, nullptr});
  }
  AttemptOutcome Ask(const std::string& base_url) { return Client(base_url)->Attempt(SimpleRequest()); }
  static ChatRequest SimpleRequest() {
    ChatRequest request;
    request.system_prompt = "You are terse.";
    request.messages = {{Role::kUser, "Why?"}, {Role::kAssistant, "Because."}, {Role::kUser, "More?"}};
    request.max_tokens = 64;
    request.temperature = 0.7;
    request.stop_sequences = {"###"};
    return request;
  }
  void ExpectNoKey(const AttemptOutcome& outcome) {
    ASSERT_FALSE(outcome.result.ok());
    EXPECT_THAT(outcome.result.status().message(), Not(HasSubstr(kKey)));
  }

  CurlHttpTransport transport_;
  SecretRedactor redactor_;
  LocalLlmServer server_;
};

TEST_F(AnthropicChatTest, ToolsToolUseAndToolResultBlocks) {
  server_.Enqueue(kPath, {200, testing::AnthropicToolUseBody({{"toolu_1", "read", R"({"path":"a.h"})"}},
                                                             "Let me read.")});
  AttemptOutcome outcome = Client(server_.BaseUrl())->Attempt(testing::ToolConversationRequest());
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.status().message();
  const ChatChoice& choice = outcome.result->choices.at(0);
  EXPECT_EQ(choice.finish_reason, "tool_calls");
  EXPECT_EQ(choice.content, "Let me read.");
  ASSERT_EQ(choice.tool_calls.size(), 1u);
  EXPECT_EQ(choice.tool_calls[0].id, "toolu_1");
  EXPECT_EQ(choice.tool_calls[0].name, "read");
  EXPECT_EQ(choice.tool_calls[0].arguments, R"({"path":"a.h"})");

  auto body = nlohmann::json::parse(server_.Requests().at(0).body);
  EXPECT_EQ(body["tools"][0]["name"], "search");
  EXPECT_EQ(body["tools"][0]["input_schema"]["type"], "object");
  const auto& messages = body["messages"];
  ASSERT_EQ(messages.size(), 3u);  // user, assistant (text + 2 tool_use), user (2 tool_result)
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(messages[1]["content"][0]["type"], "text");
  EXPECT_EQ(messages[1]["content"][1]["type"], "tool_use");
  EXPECT_EQ(messages[1]["content"][1]["id"], "call_1");
  EXPECT_EQ(messages[1]["content"][1]["input"]["query"], "make_layout");
  EXPECT_EQ(messages[2]["role"], "user");
  ASSERT_EQ(messages[2]["content"].size(), 2u);
  EXPECT_EQ(messages[2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(messages[2]["content"][0]["tool_use_id"], "call_1");
  EXPECT_FALSE(messages[2]["content"][0].contains("is_error"));
  EXPECT_EQ(messages[2]["content"][1]["is_error"], true);
}

TEST_F(AnthropicChatTest, SendsTheWireFormatAndParsesTheAnswer) {
  server_.Enqueue(kPath,
                  {200, R"({"model":"claude-test-1","content":[{"type":"text","text":"Memory"},)"
                        R"({"type":"tool_use","id":"x"},{"type":"text","text":"-bound."}],)"
                        R"("stop_reason":"max_tokens","usage":{"input_tokens":12,"output_tokens":64}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.status().message();
  EXPECT_EQ(outcome.result->choices[0].content, "Memory-bound.");
  EXPECT_EQ(outcome.result->choices[0].finish_reason, "length");
  EXPECT_EQ(outcome.result->model, "claude-test-1");
  EXPECT_EQ(outcome.result->usage.input_tokens, 12);
  EXPECT_EQ(outcome.result->usage.output_tokens, 64);

  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers["x-api-key"], kKey);
  EXPECT_EQ(requests[0].headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["system"], "You are terse.");
  EXPECT_EQ(body["messages"].size(), 3u);
  EXPECT_EQ(body["messages"][1]["role"], "assistant");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["stop_sequences"][0], "###");
  EXPECT_FALSE(body.contains("n"));
}

TEST_F(AnthropicChatTest, StopReasonsAreNormalised) {
  for (auto [wire, expected] :
       std::vector<std::pair<std::string, std::string>>{{"end_turn", "stop"},
                                                        {"max_tokens", "length"},
                                                        {"stop_sequence", "stop_sequence"},
                                                        {"refusal", "refusal"},
                                                        {"tool_use", "tool_calls"}}) {
    auto response = ParseAnthropicResponseBody(AnthropicTextBody("x", "m", 1, 1, wire), "w");
    ASSERT_TRUE(response.ok());
    EXPECT_EQ(response->choices[0].finish_reason, expected) << wire;
  }
}

TEST_F(AnthropicChatTest, NIsMadeAsNCalls) {
  server_.Enqueue(kPath, {200, AnthropicTextBody("one", "m", 10, 1)});
  server_.Enqueue(kPath, {200, AnthropicTextBody("two", "m", 10, 2)});
  ChatRequest request = SimpleRequest();
  request.n = 2;
  auto response = Client(server_.BaseUrl())->Complete(request);
  ASSERT_TRUE(response.ok()) << response.status().message();
  ASSERT_EQ(response->choices.size(), 2u);
  EXPECT_EQ(response->choices[0].content, "one");
  EXPECT_EQ(response->choices[1].content, "two");
  EXPECT_EQ(response->usage.input_tokens, 20);
  EXPECT_EQ(response->usage.output_tokens, 3);
  EXPECT_EQ(server_.Requests().size(), 2u);
}

TEST_F(AnthropicChatTest, RefusalAndEmptyContentAreSuccesses) {
  server_.Enqueue(
      kPath, {200, R"({"content":[],"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":0}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ASSERT_TRUE(outcome.result.ok());
  EXPECT_EQ(outcome.result->choices[0].content, "");
  EXPECT_EQ(outcome.result->choices[0].finish_reason, "refusal");
}

TEST_F(AnthropicChatTest, MalformedJson) {
  server_.Enqueue(kPath, {200, R"({"content": "oops)"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("malformed response"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr(R"({\"content\": \"oops)"));
}

TEST_F(AnthropicChatTest, Unauthorized) {
  server_.Enqueue(
      kPath,
      {401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_FALSE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("authentication failed: invalid x-api-key"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("ANTHROPIC_API_KEY"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("model claude-test"));
}

TEST_F(AnthropicChatTest, UnknownModel) {
  server_.Enqueue(kPath,
                  {404, R"({"type":"error","error":{"type":"not_found_error","message":"model: nope"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("unknown model or wrong path: model: nope"));
}

TEST_F(AnthropicChatTest, PromptTooLong) {
  server_.Enqueue(kPath, {400, R"({"type":"error","error":{"type":"invalid_request_error",)"
                               R"("message":"prompt is too long: 210000 tokens > 200000 maximum"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_FALSE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("context length exceeded"));
}

TEST_F(AnthropicChatTest, OverloadedIsRetryable) {
  server_.Enqueue(kPath,
                  {529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_TRUE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("HTTP 529"));
}

TEST_F(AnthropicChatTest, ReadTimeout) {
  server_.Enqueue(kPath, {200, AnthropicTextBody("late"), {}, 3.0});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_TRUE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("network error"));
}

TEST_F(AnthropicChatTest, UnreachableEndpoint) {
  std::string base = "http://127.0.0.1:" + std::to_string(testing::ClosedLocalPort());
  AttemptOutcome outcome = Ask(base);
  ExpectNoKey(outcome);
  EXPECT_TRUE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr(base + kPath));
}

TEST(AnthropicEndpointTest, V1Suffix) {
  EXPECT_EQ(AnthropicEndpoint("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(AnthropicEndpoint("http://proxy/v1"), "http://proxy/v1/messages");
}

}  // namespace
}  // namespace kopt::llm
