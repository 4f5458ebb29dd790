// Where kopt-runner's events go: one JSON object per line on stdout, flushed
// after every line, so the parent keeps what arrived even if the child dies
// later (docs/harness-protocol.md §3).
//
// Thread safety: not thread-safe; the runner emits from its main thread.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/runner_request.h"

namespace kopt::runner {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Writes one event line (`event` must be an object with an "event" field).
  virtual void EmitJson(const nlohmann::json& event) = 0;
  void Emit(const RunnerEvent& event) { EmitJson(RunnerEventToJson(event)); }
};

// Writes to the process's stdout with fwrite + fflush.
class StdoutEventSink : public EventSink {
 public:
  void EmitJson(const nlohmann::json& event) override;
};

}  // namespace kopt::runner
