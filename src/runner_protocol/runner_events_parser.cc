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
  while (!stdout_text.empty()) {
    size_t end = stdout_text.find('\n');
    ++line_number;
    AddRunnerEventLine(stdout_text.substr(0, end), line_number, events);
    if (end == std::string_view::npos) break;
    stdout_text.remove_prefix(end + 1);
  }
  return events;
}

}  // namespace kopt
