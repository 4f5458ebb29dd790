#include "llm/response_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixture_reader.h"
#include "llm/request_key.h"

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CountingClient : public ChatClient {
 public:
  Result<ChatResponse> Complete(const ChatRequest& request) override {
    ++calls;
    ChatResponse response;
    response.choices = {{"answer to " + request.messages.at(0).content, "stop"}};
    response.model = "m";
    response.usage = {5, 6};
    response.attempts = 2;
    response.latency_seconds = 1.5;
    return response;
  }
  int calls = 0;
};

class ResponseCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::path(::testing::TempDir()) /
                 ("kopt_cache_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    config_.model = "m";
    config_.base_url = "http://local";
    config_.api_key = "sk-cache-SECRET-777";
    config_.cache_dir = directory_.string();
    redactor_.AddSecret(config_.api_key);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::filesystem::path directory_;
  LlmConfig config_;
  SecretRedactor redactor_;
};

ChatRequest Ask(const std::string& text) {
  ChatRequest request;
  request.messages = {{Role::kUser, text}};
  return request;
}

TEST_F(ResponseCacheTest, SecondIdenticalRequestIsAHit) {
  auto inner = std::make_unique<CountingClient>();
  CountingClient* counting = inner.get();
  CachingChatClient client(std::move(inner), config_, &redactor_, nullptr);
  auto first = client.Complete(Ask("q"));
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->from_cache);
  auto second = client.Complete(Ask("q"));
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->choices[0].content, "answer to q");
  EXPECT_EQ(second->usage.output_tokens, 6);
  EXPECT_EQ(second->attempts, 0);
  EXPECT_EQ(counting->calls, 1);
  EXPECT_TRUE(client.Complete(Ask("other")).ok());
  EXPECT_EQ(counting->calls, 2);
  std::string file = (directory_ / (Sha256Hex(CanonicalCacheJson(Ask("q"), config_)) + ".json")).string();
  ASSERT_TRUE(std::filesystem::exists(file));
  std::string text = ReadTestFile(file);
  EXPECT_THAT(text, HasSubstr("\"request\":"));
  EXPECT_THAT(text, Not(HasSubstr(config_.api_key)));
}

TEST_F(ResponseCacheTest, CorruptCacheFileIsAMiss) {
  auto inner = std::make_unique<CountingClient>();
  CountingClient* counting = inner.get();
  MemoryLogSink log;
  CachingChatClient client(std::move(inner), config_, &redactor_, &log);
  std::filesystem::create_directories(directory_);
  std::ofstream(directory_ / (Sha256Hex(CanonicalCacheJson(Ask("q"), config_)) + ".json")) << "{not json";
  auto response = client.Complete(Ask("q"));
  ASSERT_TRUE(response.ok());
  EXPECT_FALSE(response->from_cache);
  EXPECT_EQ(counting->calls, 1);
  EXPECT_TRUE(client.Complete(Ask("q"))->from_cache);
}

TEST(ResponseJsonTest, RoundTripAndShorthand) {
  ChatResponse response;
  response.choices = {{"a\n\"b\"", "length"}, {"c", "stop"}};
  response.model = "m";
  response.usage = {3, 4};
  response.cost_usd = 0.25;
  response.cost_known = true;
  response.latency_seconds = 1.25;
  response.attempts = 3;
  std::string text = ResponseToJsonText(response);
  auto parsed = ResponseFromJsonText(text, "w");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(ResponseToJsonText(*parsed), text);
  auto shorthand = ResponseFromJsonText(R"({"content":"hi"})", "w");
  ASSERT_TRUE(shorthand.ok());
  EXPECT_EQ(shorthand->choices[0].content, "hi");
  EXPECT_EQ(shorthand->choices[0].finish_reason, "stop");
  EXPECT_FALSE(ResponseFromJsonText(R"({"choices":[]})", "w").ok());
  ChatResponse tools;
  tools.choices = {{"", "tool_calls", {{"c1", "search", R"({"query":"x"})"}, {"c2", "read", "not json"}}}};
  std::string tools_text = ResponseToJsonText(tools);
  auto tools_parsed = ResponseFromJsonText(tools_text, "w");
  ASSERT_TRUE(tools_parsed.ok()) << tools_parsed.status().message();
  ASSERT_EQ(tools_parsed->choices[0].tool_calls.size(), 2u);
  EXPECT_EQ(tools_parsed->choices[0].tool_calls[1].arguments, "not json");
  EXPECT_EQ(ResponseToJsonText(*tools_parsed), tools_text);
  EXPECT_THAT(text, Not(HasSubstr("tool_calls")));  // absent when there are none
  EXPECT_FALSE(ResponseFromJsonText(R"({"choices":[{"content":"","tool_calls":[1]}]})", "w").ok());
  EXPECT_FALSE(ResponseFromJsonText(R"({"model":1,"content":"x"})", "w").ok());
}

}  // namespace
}  // namespace kopt::llm
