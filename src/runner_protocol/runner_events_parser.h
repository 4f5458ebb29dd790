// The parent's reader of kopt-runner's stdout (docs/harness-protocol.md §3):
// one JSON object per line, parsed line by line with
// runner::ParseRunnerEventLine (harness/runner_request.h). The child is
// untrusted (it ran arbitrary candidate code), so anything may arrive:
// garbage, truncated lines, wrong types, huge lines, invalid UTF-8, negative
// or infinite times. The reader never throws; a line that is not a
// well-formed event with plausible values is counted in `malformed_lines`,
// described (printable ASCII, bounded) in `malformed`, and otherwise ignored.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner_protocol/runner_request.h"

namespace kopt {

// Everything read from one child's stdout.
struct RunnerEvents {
  std::vector<nlohmann::json> events;  // every well-formed event as sent, in arrival order (to persist)
  std::optional<runner::DeviceEvent> device;
  std::vector<runner::CheckEvent> checks;     // from `check` events (old runners; the parent's own verdicts)
  std::vector<runner::OutputsEvent> outputs;  // rounds whose outputs went to the output channel
  std::optional<runner::TimingEvent> timing;  // the last one
  std::optional<runner::EnergyEvent> energy;
  std::optional<runner::FailureEvent> failure;  // the first one
  std::optional<bool> done_ok;                  // from the `done` event
  std::vector<std::string> malformed;           // "line 3: ...", at most kMaxMalformedNotes
  size_t malformed_lines = 0;                   // all of them, also those not described
  // Per entry of `events`: the stdout offset just past its line (for the
  // parent's arrival times, core/subprocess.h OutputArrival); filled by
  // ParseRunnerEvents only.
  std::vector<size_t> event_end_offsets;
};

inline constexpr size_t kMaxRunnerLineBytes = size_t{1} << 20;
inline constexpr size_t kMaxMalformedNotes = 8;

// Parses the whole stdout text of a child (the last line may lack its newline).
RunnerEvents ParseRunnerEvents(std::string_view stdout_text);

// Parses one line into `events`; `line_number` (1-based) names it in notes.
// Returns true when the line was a well-formed event (blank lines: false,
// and not counted as malformed).
bool AddRunnerEventLine(std::string_view line, size_t line_number, RunnerEvents& events);

// The binding of a child's events to this child (docs/harness-protocol.md
// §3, "Event binding"): every line on the event channel must be a
// well-formed event carrying `token` (the secret the parent gave this child)
// and `seq` 0, 1, 2, ... in order; the first is `device` (or a `failure`
// when the device could not be opened), nothing follows `done`. Returns ""
// when bound, else what broke the binding (the child's events are then not
// the runner's alone: protocol_violation).
std::string CheckEventBinding(const RunnerEvents& events, const std::string& token);

}  // namespace kopt
