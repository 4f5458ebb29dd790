#include "llm/usage_ledger.h"

#include <gtest/gtest.h>

#include <thread>

namespace kopt::llm {
namespace {

class FixedClient : public ChatClient {
 public:
  explicit FixedClient(ChatResponse response) : response_(std::move(response)) {}
  Result<ChatResponse> Complete(const ChatRequest&) override { return response_; }

 private:
  ChatResponse response_;
};

ChatResponse Answer(const std::string& model, int64_t input, int64_t output) {
  ChatResponse response;
  response.choices = {{"x", "stop"}};
  response.model = model;
  response.usage = {input, output};
  return response;
}

TEST(UsageLedgerTest, CostFromThePriceTableOnly) {
  std::map<std::string, ModelPrice> prices{{"m", {2.5, 10}}};
  EXPECT_DOUBLE_EQ(*CostOf(prices, "m", {1'000'000, 500'000}), 2.5 + 5);
  EXPECT_FALSE(CostOf(prices, "other", {1, 1}).has_value());
}

TEST(UsageLedgerTest, MeteringUsesServerModelThenRequestedModel) {
  std::map<std::string, ModelPrice> prices{{"requested", {1, 2}}};
  MeteredChatClient client(std::make_unique<FixedClient>(Answer("dated-snapshot", 1000, 1000)), prices,
                           "requested", nullptr);
  auto response = client.Complete(ChatRequest{});
  ASSERT_TRUE(response.ok());
  EXPECT_TRUE(response->cost_known);
  EXPECT_DOUBLE_EQ(response->cost_usd, 0.003);
  MeteredChatClient unpriced(std::make_unique<FixedClient>(Answer("x", 1, 1)), {}, "y", nullptr);
  EXPECT_FALSE(unpriced.Complete(ChatRequest{})->cost_known);
}

TEST(UsageLedgerTest, TotalsPerPurposeCacheHitsAndReplays) {
  UsageLedger ledger;
  ChatResponse network = Answer("m", 100, 10);
  network.cost_known = true;
  network.cost_usd = 0.5;
  network.attempts = 2;
  ChatResponse cached = Answer("m", 100, 10);
  cached.from_cache = true;
  cached.cost_known = true;
  cached.cost_usd = 0.5;
  ChatResponse unknown = Answer("z", 1, 1);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      ledger.RecordSuccess("explain", network);
      ledger.RecordSuccess("repair", cached);
    });
  }
  for (auto& thread : threads) thread.join();
  ChatResponse tools = Answer("z", 1, 1);
  tools.replayed = true;
  tools.choices = {{"", "tool_calls", {{"a", "search", "{}"}, {"b", "read", "{}"}}}};
  ledger.RecordSuccess("optimize", tools);
  ledger.RecordSuccess("repair", unknown);
  ledger.RecordFailure("repair");
  UsageTotals total = ledger.Total();
  EXPECT_EQ(total.calls, 10);
  EXPECT_EQ(total.tool_calls, 2);
  EXPECT_EQ(total.replayed, 1);
  EXPECT_EQ(total.failed_calls, 1);
  EXPECT_EQ(total.network_calls, 5);
  EXPECT_EQ(total.cache_hits, 4);
  EXPECT_EQ(total.attempts, 4 * 2 + 4 * 1 + 1 + 1);
  EXPECT_EQ(total.input_tokens, 802);
  EXPECT_DOUBLE_EQ(total.cost_usd, 2.0);
  EXPECT_FALSE(total.cost_complete);
  auto by_purpose = ledger.ByPurpose();
  EXPECT_EQ(by_purpose["explain"].calls, 4);
  EXPECT_TRUE(by_purpose["explain"].cost_complete);
  EXPECT_EQ(by_purpose["repair"].cache_hits, 4);
  EXPECT_EQ(by_purpose["repair"].failed_calls, 1);
}

}  // namespace
}  // namespace kopt::llm
