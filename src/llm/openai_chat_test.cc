#include "llm/openai_chat.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/local_llm_server_test_util.h"

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;
using testing::LocalLlmServer;
using ::testing::Not;
using testing::OpenAiTextBody;
using testing::OpenAiToolCallBody;
using testing::ScriptedResponse;
using testing::ToolConversationRequest;

constexpr char kKey[] = "sk-test-openai-SECRET-0123";
constexpr char kPath[] = "/v1/chat/completions";

class OpenAiChatTest : public ::testing::Test {
 protected:
  LlmConfig Config(const std::string& base_url) {
    LlmConfig config;
    config.base_url = base_url;
    config.model = "test-model";
    config.api_key = kKey;
    config.read_timeout_seconds = 1;
    config.connect_timeout_seconds = 2;
    return config;
  }
  AttemptOutcome Ask(const std::string& base_url, ChatRequest request = SimpleRequest()) {
    redactor_.AddSecret(kKey);
    OpenAiChatClient client(Config(base_url), {&transport_, &redactor_, nullptr});
    return client.Attempt(request);
  }
  static ChatRequest SimpleRequest() {
    ChatRequest request;
    request.system_prompt = "You are terse.";
    request.messages = {{Role::kUser, "Why is my kernel slow?"}};
    request.max_tokens = 100;
    request.temperature = 0.2;
    request.stop_sequences = {"END"};
    request.n = 2;
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

TEST_F(OpenAiChatTest, ToolsToolCallsAndToolResultsInTheWireFormat) {
  server_.Enqueue(kPath, {200, OpenAiToolCallBody({{"call_9", "read", R"({"path":"a.h","first_line":3})"}})});
  AttemptOutcome outcome = Ask(server_.BaseUrl(), ToolConversationRequest());
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.status().message();
  const ChatChoice& choice = outcome.result->choices.at(0);
  EXPECT_EQ(choice.finish_reason, "tool_calls");
  EXPECT_EQ(choice.content, "");
  ASSERT_EQ(choice.tool_calls.size(), 1u);
  EXPECT_EQ(choice.tool_calls[0].id, "call_9");
  EXPECT_EQ(choice.tool_calls[0].name, "read");
  EXPECT_EQ(choice.tool_calls[0].arguments, R"({"path":"a.h","first_line":3})");

  auto body = nlohmann::json::parse(server_.Requests().at(0).body);
  EXPECT_EQ(body["tools"][0]["type"], "function");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "search");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"]["required"][0], "query");
  const auto& messages = body["messages"];
  ASSERT_EQ(messages.size(), 5u);  // system, user, assistant, two tool results
  EXPECT_EQ(messages[2]["role"], "assistant");
  EXPECT_EQ(messages[2]["content"], "Looking.");
  EXPECT_EQ(messages[2]["tool_calls"][1]["id"], "call_2");
  EXPECT_EQ(messages[2]["tool_calls"][1]["type"], "function");
  EXPECT_EQ(messages[2]["tool_calls"][1]["function"]["arguments"], R"({"query":"../etc"})");
  EXPECT_EQ(messages[3]["role"], "tool");
  EXPECT_EQ(messages[3]["tool_call_id"], "call_1");
  EXPECT_EQ(messages[4]["tool_call_id"], "call_2");
  EXPECT_EQ(messages[4]["content"], "error: outside the tree");
}

TEST(OpenAiResponseTest, ToolCallVariantsSeenInTheWild) {
  // Arguments as an object and no id (some compatible servers); a null tool_calls.
  auto odd = ParseOpenAiResponseBody(
      R"({"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"search","arguments":{"query":"x"}}}]},"finish_reason":"tool_calls"}]})",
      "w");
  ASSERT_TRUE(odd.ok()) << odd.status().message();
  EXPECT_EQ(odd->choices[0].tool_calls.at(0).id, "call_0");
  EXPECT_EQ(odd->choices[0].tool_calls[0].arguments, R"({"query":"x"})");
  auto none = ParseOpenAiResponseBody(
      R"({"choices":[{"message":{"content":"hi","tool_calls":null},"finish_reason":"stop"}]})", "w");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->choices[0].tool_calls.empty());
  EXPECT_FALSE(ParseOpenAiResponseBody(R"({"choices":[{"message":{"tool_calls":[{"id":"a"}]}}]})", "w").ok());
  EXPECT_FALSE(ParseOpenAiResponseBody(R"({"choices":[{"message":{"tool_calls":7}}]})", "w").ok());
}

TEST_F(OpenAiChatTest, SendsTheWireFormatAndParsesTheAnswer) {
  server_.Enqueue(kPath, {200, OpenAiTextBody("It is memory-bound.", "test-model-2024", 42, 7)});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.status().message();
  const ChatResponse& response = *outcome.result;
  ASSERT_EQ(response.choices.size(), 1u);
  EXPECT_EQ(response.choices[0].content, "It is memory-bound.");
  EXPECT_EQ(response.choices[0].finish_reason, "stop");
  EXPECT_EQ(response.model, "test-model-2024");
  EXPECT_EQ(response.usage.input_tokens, 42);
  EXPECT_EQ(response.usage.output_tokens, 7);

  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, kPath);
  EXPECT_EQ(requests[0].headers["authorization"], std::string("Bearer ") + kKey);
  auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], "You are terse.");
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["stop"][0], "END");
  EXPECT_EQ(body["n"], 2);
}

TEST_F(OpenAiChatTest, AcceptsABaseUrlEndingInV1) {
  EXPECT_EQ(OpenAiEndpoint("http://h:1/v1"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(OpenAiEndpoint("http://h:1/v1/"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(OpenAiEndpoint("http://h:1"), "http://h:1/v1/chat/completions");
  server_.Enqueue(kPath, {200, OpenAiTextBody("ok")});
  EXPECT_TRUE(Ask(server_.BaseUrl() + "/v1").result.ok());
}

TEST_F(OpenAiChatTest, RefusalIsASuccessSayingSo) {
  server_.Enqueue(kPath,
                  {200, R"({"choices":[{"message":{"content":null,"refusal":"I can't help."},)"
                        R"("finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.status().message();
  EXPECT_EQ(outcome.result->choices[0].finish_reason, "refusal");
  EXPECT_EQ(outcome.result->choices[0].content, "I can't help.");
}

TEST_F(OpenAiChatTest, EmptyContentIsASuccessWithEmptyText) {
  server_.Enqueue(kPath, {200, OpenAiTextBody("", "test-model", 3, 0, "length")});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ASSERT_TRUE(outcome.result.ok());
  EXPECT_EQ(outcome.result->choices[0].content, "");
  EXPECT_EQ(outcome.result->choices[0].finish_reason, "length");
}

TEST_F(OpenAiChatTest, MalformedJsonQuotesTheBodyStart) {
  server_.Enqueue(kPath, {200, "<html>" + std::string(500, 'x')});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_FALSE(outcome.retryable);
  const std::string& message = outcome.result.status().message();
  EXPECT_THAT(message, HasSubstr("malformed response"));
  EXPECT_THAT(message, HasSubstr("\"<html>xxx"));
  EXPECT_THAT(message, HasSubstr("first 200 of 506 bytes"));
  EXPECT_THAT(message, HasSubstr(server_.BaseUrl() + kPath));
  EXPECT_THAT(message, HasSubstr("model test-model"));
}

TEST_F(OpenAiChatTest, EmptyChoicesIsAnError) {
  server_.Enqueue(kPath, {200, R"({"choices":[],"usage":{}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("no choices"));
}

TEST_F(OpenAiChatTest, UnauthorizedNamesTheKeyVariablesNeverTheKey) {
  // Some servers echo the presented key; the message must still not show it.
  server_.Enqueue(kPath, {401, std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey +
                                   R"(","type":"invalid_request_error","code":"invalid_api_key"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_FALSE(outcome.retryable);
  EXPECT_EQ(outcome.result.status().kind(), ErrorKind::kPermission);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("authentication failed"));
  EXPECT_THAT(outcome.result.status().message(),
              HasSubstr("check the API key (KOPT_LLM_API_KEY / OPENAI_API_KEY)"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr(server_.BaseUrl()));
}

TEST_F(OpenAiChatTest, UnknownModel) {
  server_.Enqueue(
      kPath, {404, R"({"error":{"message":"The model `nope` does not exist","type":"invalid_request_error",)"
                   R"("code":"model_not_found"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_EQ(outcome.result.status().kind(), ErrorKind::kNotFound);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("unknown model or wrong path"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("does not exist"));
}

TEST_F(OpenAiChatTest, ContextLengthExceeded) {
  server_.Enqueue(kPath, {400, R"({"error":{"message":"This model's maximum context length is 8192 tokens.",)"
                               R"("type":"invalid_request_error","code":"context_length_exceeded"}})"});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_FALSE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("context length exceeded"));
}

TEST_F(OpenAiChatTest, RateLimitIsRetryableAndKeepsRetryAfter) {
  server_.Enqueue(kPath, {429, R"({"error":{"message":"slow down"}})", {{"Retry-After", "3"}}});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_TRUE(outcome.retryable);
  EXPECT_EQ(outcome.retry_after, "3");
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("HTTP 429"));
}

TEST_F(OpenAiChatTest, ReadTimeoutIsARetryableNetworkError) {
  server_.Enqueue(kPath, {200, OpenAiTextBody("late"), {}, 3.0});
  AttemptOutcome outcome = Ask(server_.BaseUrl());
  ExpectNoKey(outcome);
  EXPECT_TRUE(outcome.retryable);
  EXPECT_EQ(outcome.result.status().kind(), ErrorKind::kUnavailable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("network error"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr(server_.BaseUrl()));
}

TEST_F(OpenAiChatTest, UnreachableEndpointNamesTheUrl) {
  std::string base = "http://127.0.0.1:" + std::to_string(testing::ClosedLocalPort());
  AttemptOutcome outcome = Ask(base);
  ExpectNoKey(outcome);
  EXPECT_TRUE(outcome.retryable);
  EXPECT_THAT(outcome.result.status().message(), HasSubstr(base + kPath));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("curl error"));
  EXPECT_THAT(outcome.result.status().message(), HasSubstr("model test-model"));
}

TEST(OpenAiResponseParserTest, SeveralChoicesAndMissingUsage) {
  auto response =
      ParseOpenAiResponseBody(R"({"model":"m","choices":[{"message":{"content":"a"},"finish_reason":"stop"},)"
                              R"({"message":{"content":"b"},"finish_reason":"content_filter"}]})",
                              "where");
  ASSERT_TRUE(response.ok());
  ASSERT_EQ(response->choices.size(), 2u);
  EXPECT_EQ(response->choices[1].content, "b");
  EXPECT_EQ(response->choices[1].finish_reason, "content_filter");
  EXPECT_EQ(response->usage.input_tokens, 0);
  EXPECT_FALSE(ParseOpenAiResponseBody(R"({"choices":[1]})", "w").ok());
  EXPECT_FALSE(ParseOpenAiResponseBody(R"([])", "w").ok());
}

}  // namespace
}  // namespace kopt::llm
