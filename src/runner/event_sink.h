// Where kopt-runner's events go: one JSON object per line on stdout, flushed
// after every line, so the parent keeps what arrived even if the child dies
// later (docs/harness-protocol.md §3).
//
// Thread safety: not thread-safe; the runner emits from its main thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "runner_protocol/runner_request.h"

namespace kopt::runner {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Writes one event line (`event` must be an object with an "event" field).
  virtual void EmitJson(const nlohmann::json& event) = 0;
  void Emit(const RunnerEvent& event) { EmitJson(RunnerEventToJson(event)); }
};

// Writes to the stream that was the process's stdout when it was made: the
// constructor moves that stream to a private, close-on-exec descriptor and
// points fd 1 at stderr, so whatever a candidate prints (printf, std::cout)
// lands in stderr and cannot be read as an event by accident. Make at most
// one, before loading candidates.
// Every line gets `elapsed_s`: seconds from `started` (the runner's start) to
// the emit, so the parent can tell where a child's time went; `seq`: 0, 1,
// 2, ... in emit order; and `token`: the run token the parent gave this child
// (docs/harness-protocol.md §3 "Event binding"), when one was given. What the
// binding buys: a line a candidate writes to the descriptor without reading
// the token out of this process's memory, or out of order, makes the parent
// reject the child (protocol_violation). What it does not: code in this
// process can read the token and the counter; the verdict rests on the
// parent's own comparisons, not on these lines (the trust boundary).
class StdoutEventSink : public EventSink {
 public:
  explicit StdoutEventSink(std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now(),
                           std::string token = "");
  ~StdoutEventSink() override;
  StdoutEventSink(const StdoutEventSink&) = delete;
  StdoutEventSink& operator=(const StdoutEventSink&) = delete;
  void EmitJson(const nlohmann::json& event) override;

 private:
  std::FILE* events_ = nullptr;  // owned; stdout itself when the move failed
  std::chrono::steady_clock::time_point started_;
  std::string token_;
  uint64_t sequence_ = 0;
};

}  // namespace kopt::runner
