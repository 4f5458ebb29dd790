#include "llm/retrying_chat.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "llm/anthropic_chat.h"
#include "llm/fake_sleeper_test_util.h"
#include "llm/local_llm_server_test_util.h"
#include "llm/openai_chat.h"

namespace kopt::llm {
namespace {

using ::testing::ElementsAre;
using testing::FakeSleeper;
using ::testing::HasSubstr;
using testing::LocalLlmServer;
using testing::OpenAiTextBody;

constexpr char kOpenAiPath[] = "/v1/chat/completions";

LlmConfig ConfigFor(const LocalLlmServer& server, Provider provider = Provider::kOpenAi) {
  LlmConfig config;
  config.provider = provider;
  config.base_url = server.BaseUrl();
  config.model = "test-model";
  config.api_key = "sk-retry-test-key";
  config.read_timeout_seconds = 1;
  return config;
}

ChatRequest Question() {
  ChatRequest request;
  request.messages = {{Role::kUser, "hello"}};
  return request;
}

class RetryingChatTest : public ::testing::Test {
 protected:
  std::unique_ptr<RetryingChatClient> Client(Provider provider = Provider::kOpenAi, int max_retries = 4) {
    LlmConfig config = ConfigFor(server_, provider);
    ProviderEnvironment environment{&transport_, nullptr, nullptr};
    std::unique_ptr<ProviderChatClient> inner;
    if (provider == Provider::kAnthropic) {
      inner = std::make_unique<AnthropicChatClient>(config, environment);
    } else {
      inner = std::make_unique<OpenAiChatClient>(config, environment);
    }
    RetryPolicy policy{max_retries, 1, 30, 4};
    return std::make_unique<RetryingChatClient>(std::move(inner), policy, &sleeper_, &log_,
                                                [] { return 0.5; });
  }

  CurlHttpTransport transport_;
  FakeSleeper sleeper_;
  MemoryLogSink log_;
  LocalLlmServer server_;
};

TEST_F(RetryingChatTest, RateLimitWithRetryAfterSecondsThenSuccess) {
  server_.Enqueue(kOpenAiPath, {429, R"({"error":{"message":"rate limited"}})", {{"Retry-After", "7"}}});
  server_.Enqueue(kOpenAiPath, {200, OpenAiTextBody("ok")});
  auto response = Client()->Complete(Question());
  ASSERT_TRUE(response.ok()) << response.status().message();
  EXPECT_EQ(response->choices[0].content, "ok");
  EXPECT_EQ(response->attempts, 2);
  EXPECT_THAT(sleeper_.Sleeps(), ElementsAre(7.0));
  EXPECT_DOUBLE_EQ(response->latency_seconds, 7.0);
  EXPECT_EQ(server_.Requests().size(), 2u);
  EXPECT_THAT(log_.Lines().back(), HasSubstr("Retry-After"));
}

TEST_F(RetryingChatTest, ServerErrorThenSuccessUsesJitteredBackoff) {
  server_.Enqueue(kOpenAiPath, {500, "oops"});
  server_.Enqueue(kOpenAiPath, {503, "down"});
  server_.Enqueue(kOpenAiPath, {200, OpenAiTextBody("ok")});
  auto response = Client()->Complete(Question());
  ASSERT_TRUE(response.ok()) << response.status().message();
  EXPECT_EQ(response->attempts, 3);
  // random 0.5 times ceilings 1 and 2 seconds.
  EXPECT_THAT(sleeper_.Sleeps(), ElementsAre(0.5, 1.0));
}

TEST_F(RetryingChatTest, AnthropicOverloadedThenSuccess) {
  server_.Enqueue("/v1/messages",
                  {529, R"({"type":"error","error":{"type":"overloaded_error","message":"busy"}})"});
  server_.Enqueue("/v1/messages", {200, testing::AnthropicTextBody("fine")});
  auto response = Client(Provider::kAnthropic)->Complete(Question());
  ASSERT_TRUE(response.ok()) << response.status().message();
  EXPECT_EQ(response->choices[0].content, "fine");
  EXPECT_EQ(response->attempts, 2);
}

TEST_F(RetryingChatTest, NoRetryOnOtherClientErrors) {
  server_.Enqueue(kOpenAiPath, {401, R"({"error":{"message":"bad key"}})"});
  auto response = Client()->Complete(Question());
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(sleeper_.Sleeps().empty());
}

TEST_F(RetryingChatTest, GivesUpAfterMaxRetriesAndSaysSo) {
  for (int i = 0; i < 3; ++i) server_.Enqueue(kOpenAiPath, {502, "bad gateway"});
  auto response = Client(Provider::kOpenAi, 2)->Complete(Question());
  ASSERT_FALSE(response.ok());
  EXPECT_THAT(response.status().message(), HasSubstr("HTTP 502"));
  EXPECT_THAT(response.status().message(), HasSubstr("(after 3 attempts)"));
  EXPECT_EQ(server_.Requests().size(), 3u);
}

TEST_F(RetryingChatTest, ReadTimeoutIsRetried) {
  server_.Enqueue(kOpenAiPath, {200, OpenAiTextBody("late"), {}, 3.0});
  server_.Enqueue(kOpenAiPath, {200, OpenAiTextBody("on time")});
  auto response = Client()->Complete(Question());
  ASSERT_TRUE(response.ok()) << response.status().message();
  EXPECT_EQ(response->choices[0].content, "on time");
  EXPECT_EQ(response->attempts, 2);
}

TEST(RetryBackoffTest, FullJitterCappedAndRetryAfterHonoured) {
  RetryPolicy policy{4, 1, 30, 4};
  EXPECT_DOUBLE_EQ(RetryingChatClient::BackoffSeconds(policy, 0, 0.999, std::nullopt), 0.999);
  EXPECT_DOUBLE_EQ(RetryingChatClient::BackoffSeconds(policy, 3, 1.0, std::nullopt), 8);
  EXPECT_DOUBLE_EQ(RetryingChatClient::BackoffSeconds(policy, 10, 1.0, std::nullopt), 30);
  EXPECT_DOUBLE_EQ(RetryingChatClient::BackoffSeconds(policy, 10, 0.0, std::nullopt), 0);
  EXPECT_DOUBLE_EQ(RetryingChatClient::BackoffSeconds(policy, 0, 0.1, 12.0), 12);
  EXPECT_DOUBLE_EQ(RetryingChatClient::BackoffSeconds(policy, 0, 0.1, 120.0), 30);
}

TEST(RetryAfterTest, SecondsAndHttpDates) {
  EXPECT_EQ(ParseRetryAfter("5", 0), 5.0);
  EXPECT_EQ(ParseRetryAfter("", 0), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("soon", 0), std::nullopt);
  // Sun, 06 Nov 1994 08:49:37 GMT = 784111777.
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", 784111770), 7.0);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", 784111800), 0.0);
}

// A provider that counts attempts in flight.
class CountingProvider : public ProviderChatClient {
 public:
  AttemptOutcome Attempt(const ChatRequest&) override {
    int now = ++in_flight_;
    int seen = max_seen_.load();
    while (now > seen && !max_seen_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --in_flight_;
    AttemptOutcome outcome;
    outcome.result = ChatResponse{{{"x", "stop"}}};
    return outcome;
  }
  bool SupportsN() const override { return true; }
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_seen_{0};
};

TEST(ConcurrencyLimitTest, AtMostMaxConcurrencyAttemptsInFlight) {
  auto provider = std::make_unique<CountingProvider>();
  CountingProvider* counting = provider.get();
  FakeSleeper sleeper;
  RetryingChatClient client(std::move(provider), RetryPolicy{0, 1, 1, 2}, &sleeper);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&] { EXPECT_TRUE(client.Complete(Question()).ok()); });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counting->max_seen_.load(), 2);
}

}  // namespace
}  // namespace kopt::llm
