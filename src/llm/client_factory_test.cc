#include "llm/client_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixture_reader.h"
#include "llm/fake_sleeper_test_util.h"
#include "llm/local_llm_server_test_util.h"
#include "llm/response_cache.h"

namespace kopt::llm {
namespace {

using testing::AnthropicTextBody;
using testing::FakeSleeper;
using ::testing::HasSubstr;
using testing::LocalLlmServer;
using ::testing::Not;
using testing::OpenAiTextBody;

constexpr char kKey[] = "sk-factory-SECRET-abcdef";

ChatRequest Ask(const std::string& text, const std::string& purpose = "explain") {
  ChatRequest request;
  request.messages = {{Role::kUser, text}};
  request.purpose = purpose;
  return request;
}

class ClientFactoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::path(::testing::TempDir()) /
                 ("kopt_factory_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  LlmConfig Config(Provider provider = Provider::kOpenAi) {
    LlmConfig config;
    config.provider = provider;
    config.base_url = server_.BaseUrl();
    config.model = "test-model";
    config.api_key = kKey;
    config.read_timeout_seconds = 2;
    config.prices["test-model"] = {1000, 2000};  // USD per million tokens
    return config;
  }
  ClientDependencies Dependencies() { return {nullptr, &log_, &ledger_, &sleeper_}; }

  // Every file under the directory and every log line: the key is nowhere.
  void ExpectKeyNowhere() {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(directory_)) {
      if (entry.is_regular_file())
        EXPECT_THAT(ReadTestFile(entry.path()), Not(HasSubstr(kKey))) << entry.path();
    }
    for (const std::string& line : log_.Lines()) EXPECT_THAT(line, Not(HasSubstr(kKey)));
  }

  std::filesystem::path directory_;
  LocalLlmServer server_;
  MemoryLogSink log_;
  UsageLedger ledger_;
  FakeSleeper sleeper_;
};

TEST_F(ClientFactoryTest, RecordWithCacheThenReplayWithoutNetworkOrKey) {
  LlmConfig config = Config();
  config.mode = LlmMode::kRecord;
  config.transcript_path = (directory_ / "run.jsonl").string();
  config.cache_dir = (directory_ / "cache").string();
  server_.Enqueue("/v1/chat/completions", {429, R"({"error":{"message":"busy"}})", {{"Retry-After", "1"}}});
  server_.Enqueue("/v1/chat/completions", {200, OpenAiTextBody("first", "test-model", 100, 10)});
  server_.Enqueue("/v1/chat/completions", {200, OpenAiTextBody("second", "test-model", 200, 20)});
  std::vector<std::string> recorded;
  {
    auto client = MakeChatClient(config, Dependencies());
    ASSERT_TRUE(client.ok()) << client.status().message();
    for (const char* question : {"one", "two", "one"}) {
      auto response = (*client)->Complete(Ask(question));
      ASSERT_TRUE(response.ok()) << response.status().message();
      recorded.push_back(ResponseToJsonText(*response));
    }
  }
  EXPECT_EQ(server_.Requests().size(), 3u);  // the repeated "one" came from the cache
  EXPECT_THAT(recorded[0], HasSubstr("\"attempts\":2"));
  EXPECT_THAT(recorded[0], HasSubstr("\"cost_known\":true"));
  UsageTotals total = ledger_.Total();
  EXPECT_EQ(total.calls, 3);
  EXPECT_EQ(total.cache_hits, 1);
  EXPECT_EQ(total.network_calls, 2);
  EXPECT_DOUBLE_EQ(total.cost_usd, (100 * 1000 + 10 * 2000 + 200 * 1000 + 20 * 2000) / 1e6);
  ExpectKeyNowhere();

  LlmConfig replay;
  replay.mode = LlmMode::kReplay;
  replay.transcript_path = config.transcript_path;
  replay.model = "test-model";
  replay.base_url = "http://127.0.0.1:" + std::to_string(testing::ClosedLocalPort());
  auto client = MakeChatClient(replay, {});
  ASSERT_TRUE(client.ok()) << client.status().message();
  std::vector<std::string> replayed;
  for (const char* question : {"one", "two", "one"}) {
    auto response = (*client)->Complete(Ask(question));
    ASSERT_TRUE(response.ok()) << response.status().message();
    EXPECT_TRUE(response->replayed);
    replayed.push_back(ResponseToJsonText(*response));
  }
  EXPECT_EQ(replayed, recorded);
  EXPECT_EQ(server_.Requests().size(), 3u);
}

TEST_F(ClientFactoryTest, UnauthorizedKeyNeverAppearsAnywhere) {
  LlmConfig config = Config(Provider::kAnthropic);
  config.mode = LlmMode::kRecord;
  config.transcript_path = (directory_ / "run.jsonl").string();
  config.cache_dir = (directory_ / "cache").string();
  server_.Enqueue("/v1/messages",
                  {401, std::string(R"({"type":"error","error":{"type":"authentication_error",)") +
                            R"("message":"invalid x-api-key )" + kKey + R"("}})"});
  auto client = MakeChatClient(config, Dependencies());
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto response = (*client)->Complete(Ask("hello"));
  ASSERT_FALSE(response.ok());
  EXPECT_THAT(response.status().message(), HasSubstr("authentication failed"));
  EXPECT_THAT(response.status().message(), Not(HasSubstr(kKey)));
  EXPECT_EQ(ledger_.Total().failed_calls, 1);
  EXPECT_FALSE(log_.Lines().empty());
  ExpectKeyNowhere();
}

TEST_F(ClientFactoryTest, AnthropicLiveWithNChoices) {
  server_.Enqueue("/v1/messages", {500, "{}"});
  server_.Enqueue("/v1/messages", {200, AnthropicTextBody("a")});
  server_.Enqueue("/v1/messages", {200, AnthropicTextBody("b")});
  auto client = MakeChatClient(Config(Provider::kAnthropic), Dependencies());
  ASSERT_TRUE(client.ok()) << client.status().message();
  ChatRequest request = Ask("two please");
  request.n = 2;
  auto response = (*client)->Complete(request);
  ASSERT_TRUE(response.ok()) << response.status().message();
  ASSERT_EQ(response->choices.size(), 2u);
  EXPECT_EQ(response->attempts, 3);
  EXPECT_TRUE(response->cost_known);
  EXPECT_DOUBLE_EQ(response->cost_usd, (20 * 1000 + 10 * 2000) / 1e6);
}

TEST_F(ClientFactoryTest, InvalidConfigIsRejectedWithoutTheKey) {
  LlmConfig config = Config();
  config.model = "";
  auto client = MakeChatClient(config, Dependencies());
  ASSERT_FALSE(client.ok());
  EXPECT_THAT(client.status().message(), HasSubstr("no model"));
  LlmConfig replay;
  replay.mode = LlmMode::kReplay;
  replay.transcript_path = (directory_ / "missing.jsonl").string();
  auto missing = MakeChatClient(replay, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("missing.jsonl"));
}

TEST_F(ClientFactoryTest, ReplayMissingRequestIsAClearError) {
  std::ofstream(directory_ / "t.jsonl")
      << R"({"request":{"model":"test-model","messages":[{"role":"user","content":"known"}]},"response":{"content":"yes"}})"
      << "\n";
  LlmConfig replay;
  replay.mode = LlmMode::kReplay;
  replay.model = "test-model";
  replay.transcript_path = (directory_ / "t.jsonl").string();
  auto client = MakeChatClient(replay, {nullptr, nullptr, &ledger_, nullptr});
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto known = (*client)->Complete(Ask("known"));
  ASSERT_TRUE(known.ok()) << known.status().message();
  EXPECT_EQ(known->choices[0].content, "yes");
  auto unknown = (*client)->Complete(Ask("unknown question", "repair"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("t.jsonl"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("purpose \"repair\""));
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown question"));
  EXPECT_EQ(ledger_.Total().replayed, 1);
  EXPECT_EQ(ledger_.Total().failed_calls, 1);
}

}  // namespace
}  // namespace kopt::llm
