// Usage and cost: the price of one response (CostOf) and the running totals
// of a whole run (UsageLedger).
//
// Thread safety: UsageLedger may be updated and read from several threads at
// once (one mutex).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "llm/chat.h"
#include "llm/config.h"

namespace kopt::llm {

// USD for `usage` at the price of `model`; nullopt when the model is not in
// `prices` (the table has no built-in entries).
std::optional<double> CostOf(const std::map<std::string, ModelPrice>& prices, const std::string& model,
                             const TokenUsage& usage);

struct UsageTotals {
  int64_t calls = 0;          // ChatClient::Complete calls that succeeded
  int64_t failed_calls = 0;   // calls that ended in an error
  int64_t network_calls = 0;  // answered by the endpoint (neither cache nor transcript)
  int64_t cache_hits = 0;
  int64_t replayed = 0;
  int64_t attempts = 0;  // HTTP attempts, retries included
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t tool_calls = 0;  // tool calls the answers asked for (every choice, replayed and cached included)
  // USD spent: network calls with a known price only (cache hits and
  // replayed answers cost nothing).
  double cost_usd = 0;
  bool cost_complete = true;  // false when some network call's model had no price
};

class UsageLedger {
 public:
  void RecordSuccess(const std::string& purpose, const ChatResponse& response);
  void RecordFailure(const std::string& purpose);
  UsageTotals Total() const;
  std::map<std::string, UsageTotals> ByPurpose() const;  // "" for calls without a purpose

 private:
  mutable std::mutex mutex_;
  UsageTotals total_;
  std::map<std::string, UsageTotals> by_purpose_;
};

// Fills ChatResponse::cost_usd and cost_known from the price table (a
// replayed response keeps its recorded cost, so a replay reproduces the
// recording) and records every call in the ledger. Sits above the cache and
// below the transcript recorder. `ledger` borrowed, may be null.
class MeteredChatClient : public ChatClient {
 public:
  MeteredChatClient(std::unique_ptr<ChatClient> inner, std::map<std::string, ModelPrice> prices,
                    std::string configured_model, UsageLedger* ledger);
  Result<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  std::unique_ptr<ChatClient> inner_;
  std::map<std::string, ModelPrice> prices_;
  std::string configured_model_;
  UsageLedger* ledger_;
};

}  // namespace kopt::llm
