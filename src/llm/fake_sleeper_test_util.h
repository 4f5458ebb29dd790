// FakeSleeper: a Sleeper that records the requested sleeps and advances a
// virtual clock instead of sleeping (tests of retries and Retry-After).
//
// Thread safety: Sleep, Now and Sleeps may be called from several threads.
#pragma once

#include <mutex>
#include <vector>

#include "llm/retrying_chat.h"

namespace kopt::llm::testing {

class FakeSleeper : public Sleeper {
 public:
  explicit FakeSleeper(double now_unix_seconds = 1'700'000'000) : now_(now_unix_seconds) {}
  void Sleep(double seconds) override {
    std::lock_guard lock(mutex_);
    sleeps_.push_back(seconds);
    now_ += seconds;
  }
  double Now() override {
    std::lock_guard lock(mutex_);
    return now_;
  }
  std::vector<double> Sleeps() const {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

 private:
  mutable std::mutex mutex_;
  double now_;
  std::vector<double> sleeps_;
};

}  // namespace kopt::llm::testing
