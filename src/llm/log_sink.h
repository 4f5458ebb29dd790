// LogSink: where the llm layer writes its verbose lines (one per HTTP
// attempt, retry, cache hit, replayed answer). Every line passes through the
// SecretRedactor before it reaches a sink.
//
// Thread safety: Log may be called from several threads at once; an
// implementation serialises its own output.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::llm {

class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Log(std::string_view line) = 0;
};

// Keeps every line (tests).
class MemoryLogSink : public LogSink {
 public:
  void Log(std::string_view line) override {
    std::lock_guard lock(mutex_);
    lines_.emplace_back(line);
  }
  std::vector<std::string> Lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace kopt::llm
