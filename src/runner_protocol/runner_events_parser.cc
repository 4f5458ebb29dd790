#include "runner_protocol/runner_events_parser.h"

#include <cmath>
#include <type_traits>

namespace kopt {
namespace {

// A short, printable excerpt of untrusted text for a note.
std::string Printable(std::string_view text, size_t max_chars = 80) {
  std::string excerpt;
  for (char c : text.substr(0, max_chars)) {
    unsigned char byte = static_cast<unsigned char>(c);
    excerpt.push_back(byte >= 0x20 && byte < 0x7f ? c : '?');
  }
  if (text.size() > max_chars) excerpt += "...";
  return excerpt;
}

void NoteMalformed(RunnerEvents& events, size_t line_number, std::string_view what) {
  ++events.malformed_lines;
  if (events.malformed.size() < kMaxMalformedNotes) {
    events.malformed.push_back("line " + std::to_string(line_number) + ": " + Printable(what, 100));
  }
}

bool Plausible(double seconds) {
  return std::isfinite(seconds) && seconds >= 0;
}

// Values the protocol's types accept but no real run produces.
std::string Implausible(const runner::RunnerEvent& event) {
  if (const auto* timing = std::get_if<runner::TimingEvent>(&event)) {
    for (double value :
         {timing->median_s, timing->q1_s, timing->q3_s, timing->mean_s, timing->min_s, timing->max_s,
          timing->relative_stdev, timing->gpu_seconds, timing->device_wide_median_s}) {
      if (!Plausible(value)) return "timing event with a negative or infinite time";
    }
    if (timing->samples <= 0) return "timing event with no samples";
  }
  if (const auto* energy = std::get_if<runner::EnergyEvent>(&event)) {
    if (!Plausible(energy->joules_per_launch) || !Plausible(energy->joules_per_launch_stdev)) {
      return "energy event with a negative or infinite energy";
    }
  }
  return "";
}

// Stores a parsed event in its typed slot.
struct Store {
  RunnerEvents& events;
  void operator()(const runner::DeviceEvent& event) { events.device = event; }
  void operator()(const runner::CheckEvent& event) { events.checks.push_back(event); }
  void operator()(const runner::TimingEvent& event) { events.timing = event; }
  void operator()(const runner::EnergyEvent& event) { events.energy = event; }
  void operator()(const runner::FailureEvent& event) {
    if (!events.failure) events.failure = event;
  }
  void operator()(const runner::DoneEvent& event) { events.done_ok = event.ok; }
  void operator()(const runner::OutputsEvent& event) { events.outputs.push_back(event); }
};

}  // namespace

bool AddRunnerEventLine(std::string_view line, size_t line_number, RunnerEvents& events) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return false;
  if (line.size() > kMaxRunnerLineBytes) {
    NoteMalformed(events, line_number, "longer than " + std::to_string(kMaxRunnerLineBytes) + " bytes");
    return false;
  }
  Result<runner::RunnerEvent> parsed = runner::ParseRunnerEventLine(line);
  if (!parsed.ok()) {
    NoteMalformed(events, line_number, parsed.status().message());
    return false;
  }
  if (std::string problem = Implausible(*parsed); !problem.empty()) {
    NoteMalformed(events, line_number, problem);
    return false;
  }
  std::visit(Store{events}, *parsed);
  // Persist what was sent (it parsed, so it is valid JSON).
  events.events.push_back(nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false));
  return true;
}

RunnerEvents ParseRunnerEvents(std::string_view stdout_text) {
  RunnerEvents events;
  size_t line_number = 0;
  size_t consumed = 0;
  while (!stdout_text.empty()) {
    size_t end = stdout_text.find('\n');
    ++line_number;
    size_t line_end = consumed + (end == std::string_view::npos ? stdout_text.size() : end + 1);
    if (AddRunnerEventLine(stdout_text.substr(0, end), line_number, events)) {
      events.event_end_offsets.push_back(line_end);
    }
    if (end == std::string_view::npos) break;
    stdout_text.remove_prefix(end + 1);
    consumed = line_end;
  }
  return events;
}

}  // namespace kopt

namespace kopt {

std::string CheckEventBinding(const RunnerEvents& events, const std::string& token) {
  if (events.malformed_lines > 0) {
    return std::to_string(events.malformed_lines) +
           " line(s) on the event channel that are not the runner's events" +
           (events.malformed.empty() ? "" : " (" + events.malformed.front() + ")");
  }
  bool done_seen = false;
  for (size_t index = 0; index < events.events.size(); ++index) {
    const nlohmann::json& event = events.events[index];
    auto where = [&] { return "event " + std::to_string(index) + " (" + event.value("event", "?") + ")"; };
    auto sent_token = event.find("token");
    if (sent_token == event.end() || !sent_token->is_string() || sent_token->get<std::string>() != token) {
      return where() + " does not carry this run's token";
    }
    auto seq = event.find("seq");
    if (seq == event.end() || !seq->is_number_unsigned() || seq->get<uint64_t>() != index) {
      return where() + " is out of sequence (expected seq " + std::to_string(index) + ")";
    }
    if (done_seen) return where() + " after the done event";
    std::string name = event.value("event", "");
    if (index == 0 && name != "device" && name != "failure") return where() + " before the device event";
    done_seen = name == "done";
  }
  return "";
}

}  // namespace kopt
