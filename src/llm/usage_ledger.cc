#include "llm/usage_ledger.h"

#include "llm/request_key.h"

namespace kopt::llm {
namespace {

void Add(UsageTotals& totals, const ChatResponse& response) {
  ++totals.calls;
  totals.attempts += response.attempts;
  totals.input_tokens += response.usage.input_tokens;
  totals.output_tokens += response.usage.output_tokens;
  for (const ChatChoice& choice : response.choices) {
    totals.tool_calls += static_cast<int64_t>(choice.tool_calls.size());
  }
  if (response.from_cache) {
    ++totals.cache_hits;
  } else if (response.replayed) {
    ++totals.replayed;
  } else {
    ++totals.network_calls;
    if (response.cost_known) {
      totals.cost_usd += response.cost_usd;
    } else {
      totals.cost_complete = false;
    }
  }
}

}  // namespace

std::optional<double> CostOf(const std::map<std::string, ModelPrice>& prices, const std::string& model,
                             const TokenUsage& usage) {
  auto found = prices.find(model);
  if (found == prices.end()) return std::nullopt;
  return (static_cast<double>(usage.input_tokens) * found->second.input_usd_per_million_tokens +
          static_cast<double>(usage.output_tokens) * found->second.output_usd_per_million_tokens) /
         1e6;
}

void UsageLedger::RecordSuccess(const std::string& purpose, const ChatResponse& response) {
  std::lock_guard lock(mutex_);
  Add(total_, response);
  Add(by_purpose_[purpose], response);
}

void UsageLedger::RecordFailure(const std::string& purpose) {
  std::lock_guard lock(mutex_);
  ++total_.failed_calls;
  ++by_purpose_[purpose].failed_calls;
}

UsageTotals UsageLedger::Total() const {
  std::lock_guard lock(mutex_);
  return total_;
}

std::map<std::string, UsageTotals> UsageLedger::ByPurpose() const {
  std::lock_guard lock(mutex_);
  return by_purpose_;
}

MeteredChatClient::MeteredChatClient(std::unique_ptr<ChatClient> inner,
                                     std::map<std::string, ModelPrice> prices, std::string configured_model,
                                     UsageLedger* ledger)
    : inner_(std::move(inner)),
      prices_(std::move(prices)),
      configured_model_(std::move(configured_model)),
      ledger_(ledger) {}

Result<ChatResponse> MeteredChatClient::Complete(const ChatRequest& request) {
  Result<ChatResponse> result = inner_->Complete(request);
  if (!result.ok()) {
    if (ledger_) ledger_->RecordFailure(request.purpose);
    return result;
  }
  ChatResponse& response = *result;
  if (!response.replayed) {
    // The server's model name when priced (e.g. a dated snapshot), else the requested one.
    std::optional<double> cost = CostOf(prices_, response.model, response.usage);
    if (!cost) cost = CostOf(prices_, EffectiveModel(request, configured_model_), response.usage);
    response.cost_known = cost.has_value();
    response.cost_usd = cost.value_or(0);
  }
  if (ledger_) ledger_->RecordSuccess(request.purpose, response);
  return result;
}

}  // namespace kopt::llm
