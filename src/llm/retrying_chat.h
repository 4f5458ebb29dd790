// RetryingChatClient: retries a ProviderChatClient's failed attempts and
// limits how many HTTP requests are in flight at once.
//
// Retried: HTTP 429, 408, 5xx, 529 and network errors (ProviderChatClient
// says which). Not retried: any other 4xx (bad key, unknown model, context
// too long), malformed responses. Delay before retry k (k = 0, 1, ...):
// full jitter, uniform in [0, min(max_backoff, initial_backoff * 2^k)];
// a Retry-After from the server replaces it (still capped by max_backoff).
// After max_retries retries the last error is returned with "(after N
// attempts)" appended.
//
// n > 1 on a provider without n (Anthropic): n calls, each retried on its
// own, merged into one response.
//
// The concurrency limit counts attempts in flight over all threads using the
// client; a thread sleeping before a retry holds no slot.
//
// Thread safety: Complete may be called from several threads at once. The
// Sleeper and the random source must be thread-safe.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "llm/log_sink.h"
#include "llm/provider_client.h"

namespace kopt::llm {

class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void Sleep(double seconds) = 0;
  // Seconds since the Unix epoch (for Retry-After dates and latency).
  virtual double Now() = 0;
};

// std::this_thread::sleep_for and the system clock.
class RealSleeper : public Sleeper {
 public:
  void Sleep(double seconds) override;
  double Now() override;
};

// A counting semaphore whose size is chosen at run time.
class ConcurrencyLimit {
 public:
  explicit ConcurrencyLimit(int slots);
  void Acquire();
  void Release();

 private:
  std::mutex mutex_;
  std::condition_variable available_;
  int free_slots_;
};

struct RetryPolicy {
  int max_retries = 4;
  double initial_backoff_seconds = 1;
  double max_backoff_seconds = 30;
  int max_concurrency = 4;
};

// Uniform in [0, 1). Default: a mutex-guarded std::mt19937_64.
using RandomUnit = std::function<double()>;

class RetryingChatClient : public ChatClient {
 public:
  // `sleeper` borrowed (null: an owned RealSleeper); `log_sink` borrowed, may
  // be null; `random` empty: the default source.
  RetryingChatClient(std::unique_ptr<ProviderChatClient> inner, RetryPolicy policy, Sleeper* sleeper,
                     LogSink* log_sink = nullptr, RandomUnit random = {});
  Result<ChatResponse> Complete(const ChatRequest& request) override;

  // The jittered delay before retry `retry_index` (0-based), given a unit
  // random number and the server's Retry-After.
  static double BackoffSeconds(const RetryPolicy& policy, int retry_index, double unit_random,
                               std::optional<double> retry_after_seconds);

 private:
  Result<ChatResponse> CompleteOne(const ChatRequest& request);

  std::unique_ptr<ProviderChatClient> inner_;
  RetryPolicy policy_;
  std::unique_ptr<Sleeper> owned_sleeper_;
  Sleeper* sleeper_;
  LogSink* log_sink_;
  RandomUnit random_;
  ConcurrencyLimit limit_;
};

}  // namespace kopt::llm
