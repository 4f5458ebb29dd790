#include "llm/retrying_chat.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

namespace kopt::llm {
namespace {

RandomUnit DefaultRandom() {
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  auto mutex = std::make_shared<std::mutex>();
  return [engine, mutex] {
    std::lock_guard lock(*mutex);
    return std::uniform_real_distribution<double>(0.0, 1.0)(*engine);
  };
}

// Holds one slot of a ConcurrencyLimit for its lifetime.
class SlotGuard {
 public:
  explicit SlotGuard(ConcurrencyLimit& limit) : limit_(limit) { limit_.Acquire(); }
  ~SlotGuard() { limit_.Release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  ConcurrencyLimit& limit_;
};

}  // namespace

void RealSleeper::Sleep(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

double RealSleeper::Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ConcurrencyLimit::ConcurrencyLimit(int slots) : free_slots_(std::max(1, slots)) {}

void ConcurrencyLimit::Acquire() {
  std::unique_lock lock(mutex_);
  available_.wait(lock, [this] { return free_slots_ > 0; });
  --free_slots_;
}

void ConcurrencyLimit::Release() {
  {
    std::lock_guard lock(mutex_);
    ++free_slots_;
  }
  available_.notify_one();
}

RetryingChatClient::RetryingChatClient(std::unique_ptr<ProviderChatClient> inner, RetryPolicy policy,
                                       Sleeper* sleeper, LogSink* log_sink, RandomUnit random)
    : inner_(std::move(inner)),
      policy_(policy),
      owned_sleeper_(sleeper ? nullptr : std::make_unique<RealSleeper>()),
      sleeper_(sleeper ? sleeper : owned_sleeper_.get()),
      log_sink_(log_sink),
      random_(random ? std::move(random) : DefaultRandom()),
      limit_(policy.max_concurrency) {}

double RetryingChatClient::BackoffSeconds(const RetryPolicy& policy, int retry_index, double unit_random,
                                          std::optional<double> retry_after_seconds) {
  if (retry_after_seconds) return std::min(*retry_after_seconds, policy.max_backoff_seconds);
  double ceiling = std::min(policy.max_backoff_seconds,
                            policy.initial_backoff_seconds * std::pow(2.0, std::min(retry_index, 60)));
  return std::clamp(unit_random, 0.0, 1.0) * ceiling;
}

Result<ChatResponse> RetryingChatClient::Complete(const ChatRequest& request) {
  if (request.n <= 1 || inner_->SupportsN()) return CompleteOne(request);
  std::vector<ChatResponse> parts;
  ChatRequest single = request;
  single.n = 1;
  for (int i = 0; i < request.n; ++i) {
    KOPT_ASSIGN_OR_RETURN(ChatResponse part, CompleteOne(single));
    parts.push_back(std::move(part));
  }
  return MergeResponses(std::move(parts));
}

Result<ChatResponse> RetryingChatClient::CompleteOne(const ChatRequest& request) {
  double start = sleeper_->Now();
  for (int attempt = 0;; ++attempt) {
    AttemptOutcome outcome = [&] {
      SlotGuard slot(limit_);
      return inner_->Attempt(request);
    }();
    if (outcome.result.ok()) {
      ChatResponse response = std::move(outcome.result).value();
      response.attempts = attempt + 1;
      response.latency_seconds = std::max(0.0, sleeper_->Now() - start);
      return response;
    }
    const Status& error = outcome.result.status();
    if (!outcome.retryable) return error;
    if (attempt >= policy_.max_retries) {
      return Status(error.kind(), fmt::format("{} (after {} attempts)", error.message(), attempt + 1));
    }
    std::optional<double> retry_after = ParseRetryAfter(outcome.retry_after, sleeper_->Now());
    double delay = BackoffSeconds(policy_, attempt, random_(), retry_after);
    if (log_sink_) {
      log_sink_->Log(fmt::format("llm: retry {} of {} in {:.3f} s{} after: {}", attempt + 1,
                                 policy_.max_retries, delay, retry_after ? " (Retry-After)" : "",
                                 error.message()));
    }
    sleeper_->Sleep(delay);
  }
}

}  // namespace kopt::llm
