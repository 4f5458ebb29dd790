// The event half of runner_request.h: RunnerEventToJson and
// ParseRunnerEventLine.
#include <fmt/format.h>

#include "runner_protocol/runner_request.h"

namespace kopt::runner {
namespace {

using nlohmann::json;

}  // namespace

json VerifiedToJson(const std::vector<VerifiedSample>& verified) {
  json list = json::array();
  for (const VerifiedSample& sample : verified) {
    list.push_back({{"sample", sample.sample}, {"set", sample.set}, {"seconds", sample.seconds}});
  }
  return list;
}

namespace {

struct EventToJson {
  json operator()(const DeviceEvent& event) const {
    return {{"event", "device"},
            {"name", event.name},
            {"compute_capability", event.compute_capability},
            {"l2_bytes", event.l2_bytes},
            {"memory_bytes", event.memory_bytes},
            {"sm_clock_max_mhz", event.sm_clock_max_mhz},
            {"nvml", event.nvml}};
  }
  json operator()(const CheckEvent& event) const {
    json outputs = json::array();
    for (const OutputCheck& output : event.outputs) {
      outputs.push_back({{"name", output.name},
                         {"max_abs_error", output.max_abs_error},
                         {"max_rel_error", output.max_rel_error},
                         {"mismatches", output.mismatches},
                         {"nan_count", output.nan_count},
                         {"unwritten", output.unwritten},
                         {"first_mismatch_index", output.first_mismatch_index}});
    }
    json json_event = {
        {"event", "check"}, {"seed", event.seed}, {"passed", event.passed}, {"outputs", outputs}};
    if (event.variant) json_event["variant"] = *event.variant;
    if (!event.phase_seconds.empty()) {
      json phases = json::object();
      for (const auto& [phase, seconds] : event.phase_seconds) phases[phase] = seconds;
      json_event["phase_s"] = phases;
    }
    return json_event;
  }
  json operator()(const TimingEvent& event) const {
    return {{"event", "timing"},
            {"samples", event.samples},
            {"median_s", event.median_s},
            {"q1_s", event.q1_s},
            {"q3_s", event.q3_s},
            {"mean_s", event.mean_s},
            {"min_s", event.min_s},
            {"max_s", event.max_s},
            {"relative_stdev", event.relative_stdev},
            {"gpu_seconds", event.gpu_seconds},
            {"stop_reason", event.stop_reason},
            {"cold", event.cold},
            {"input_sets", event.input_sets},
            {"device_wide_median_s", event.device_wide_median_s},
            {"sm_clock_mean_mhz", event.sm_clock_mean_mhz},
            {"throttled_samples_discarded", event.throttled_samples_discarded},
            {"verified", VerifiedToJson(event.verified)},
            {"sampling_wall_s", event.sampling_wall_s}};
  }
  json operator()(const OutputsEvent& event) const {
    json json_event = {{"event", "outputs"},
                       {"round", event.round},
                       {"index", event.index},
                       {"seed", event.seed},
                       {"tensors", event.tensors}};
    if (!event.phase_seconds.empty()) {
      json phases = json::object();
      for (const auto& [phase, seconds] : event.phase_seconds) phases[phase] = seconds;
      json_event["phase_s"] = phases;
    }
    return json_event;
  }
  json operator()(const EnergyEvent& event) const {
    json json_event = {{"event", "energy"}, {"available", event.available}};
    if (!event.available) {
      json_event["reason"] = event.reason;
      return json_event;
    }
    json_event.update({{"joules_per_launch", event.joules_per_launch},
                       {"joules_per_launch_stdev", event.joules_per_launch_stdev},
                       {"dynamic_joules_per_launch", event.dynamic_joules_per_launch},
                       {"idle_watts", event.idle_watts},
                       {"mean_watts", event.mean_watts},
                       {"power_sample_watts", event.power_sample_watts},
                       {"windows", event.windows},
                       {"launches_per_window", event.launches_per_window}});
    return json_event;
  }
  json operator()(const FailureEvent& event) const {
    json json_event = {
        {"event", "failure"}, {"kind", FailureKindName(event.kind)}, {"message", event.message}};
    if (!event.detail.empty()) json_event["detail"] = event.detail;
    return json_event;
  }
  json operator()(const DoneEvent& event) const { return {{"event", "done"}, {"ok", event.ok}}; }
};

// Reads event fields; a missing or mistyped field is an error naming it.
class EventReader {
 public:
  explicit EventReader(const json& object) : object_(object) {}
  template <typename T>
  Status Read(const char* key, T& target) const {
    auto found = object_.find(key);
    if (found == object_.end()) return InvalidInput(fmt::format("runner event: field \"{}\" missing", key));
    bool matches = false;
    if constexpr (std::is_same_v<T, bool>) {
      matches = found->is_boolean();
    } else if constexpr (std::is_same_v<T, std::string>) {
      matches = found->is_string();
    } else if constexpr (std::is_integral_v<T>) {
      matches = found->is_number_integer();
    } else {
      matches = found->is_number();
    }
    if (!matches) return InvalidInput(fmt::format("runner event: field \"{}\" has the wrong type", key));
    target = found->get<T>();
    return Status::Ok();
  }
  const json& object() const { return object_; }

 private:
  const json& object_;
};

Result<RunnerEvent> DeviceFromJson(const EventReader& reader) {
  DeviceEvent event;
  KOPT_RETURN_IF_ERROR(reader.Read("name", event.name));
  KOPT_RETURN_IF_ERROR(reader.Read("compute_capability", event.compute_capability));
  KOPT_RETURN_IF_ERROR(reader.Read("l2_bytes", event.l2_bytes));
  KOPT_RETURN_IF_ERROR(reader.Read("memory_bytes", event.memory_bytes));
  KOPT_RETURN_IF_ERROR(reader.Read("sm_clock_max_mhz", event.sm_clock_max_mhz));
  KOPT_RETURN_IF_ERROR(reader.Read("nvml", event.nvml));
  return RunnerEvent(event);
}

Result<RunnerEvent> CheckFromJson(const EventReader& reader) {
  CheckEvent event;
  KOPT_RETURN_IF_ERROR(reader.Read("seed", event.seed));
  KOPT_RETURN_IF_ERROR(reader.Read("passed", event.passed));
  if (reader.object().contains("variant")) {
    int variant = 0;
    KOPT_RETURN_IF_ERROR(reader.Read("variant", variant));
    event.variant = variant;
  }
  auto outputs = reader.object().find("outputs");
  if (outputs == reader.object().end() || !outputs->is_array()) {
    return InvalidInput("runner event: field \"outputs\" missing or not a list");
  }
  for (const json& item : *outputs) {
    if (!item.is_object()) return InvalidInput("runner event: outputs[] entry is not an object");
    EventReader output_reader(item);
    OutputCheck output;
    KOPT_RETURN_IF_ERROR(output_reader.Read("name", output.name));
    KOPT_RETURN_IF_ERROR(output_reader.Read("max_abs_error", output.max_abs_error));
    KOPT_RETURN_IF_ERROR(output_reader.Read("max_rel_error", output.max_rel_error));
    KOPT_RETURN_IF_ERROR(output_reader.Read("mismatches", output.mismatches));
    KOPT_RETURN_IF_ERROR(output_reader.Read("nan_count", output.nan_count));
    KOPT_RETURN_IF_ERROR(output_reader.Read("unwritten", output.unwritten));
    if (item.contains("first_mismatch_index")) {
      KOPT_RETURN_IF_ERROR(output_reader.Read("first_mismatch_index", output.first_mismatch_index));
    }
    event.outputs.push_back(std::move(output));
  }
  return RunnerEvent(event);
}

Result<RunnerEvent> TimingFromJson(const EventReader& reader) {
  TimingEvent event;
  KOPT_RETURN_IF_ERROR(reader.Read("samples", event.samples));
  KOPT_RETURN_IF_ERROR(reader.Read("median_s", event.median_s));
  KOPT_RETURN_IF_ERROR(reader.Read("q1_s", event.q1_s));
  KOPT_RETURN_IF_ERROR(reader.Read("q3_s", event.q3_s));
  KOPT_RETURN_IF_ERROR(reader.Read("mean_s", event.mean_s));
  KOPT_RETURN_IF_ERROR(reader.Read("min_s", event.min_s));
  KOPT_RETURN_IF_ERROR(reader.Read("max_s", event.max_s));
  KOPT_RETURN_IF_ERROR(reader.Read("relative_stdev", event.relative_stdev));
  KOPT_RETURN_IF_ERROR(reader.Read("gpu_seconds", event.gpu_seconds));
  KOPT_RETURN_IF_ERROR(reader.Read("stop_reason", event.stop_reason));
  KOPT_RETURN_IF_ERROR(reader.Read("cold", event.cold));
  KOPT_RETURN_IF_ERROR(reader.Read("input_sets", event.input_sets));
  KOPT_RETURN_IF_ERROR(reader.Read("device_wide_median_s", event.device_wide_median_s));
  KOPT_RETURN_IF_ERROR(reader.Read("sm_clock_mean_mhz", event.sm_clock_mean_mhz));
  KOPT_RETURN_IF_ERROR(reader.Read("throttled_samples_discarded", event.throttled_samples_discarded));
  if (reader.object().contains("sampling_wall_s")) {
    KOPT_RETURN_IF_ERROR(reader.Read("sampling_wall_s", event.sampling_wall_s));
  }
  if (auto verified = reader.object().find("verified"); verified != reader.object().end()) {
    if (!verified->is_array()) return InvalidInput("runner event: field \"verified\" is not a list");
    for (const json& item : *verified) {
      if (!item.is_object()) return InvalidInput("runner event: verified[] entry is not an object");
      EventReader sample_reader(item);
      VerifiedSample sample;
      KOPT_RETURN_IF_ERROR(sample_reader.Read("sample", sample.sample));
      KOPT_RETURN_IF_ERROR(sample_reader.Read("set", sample.set));
      KOPT_RETURN_IF_ERROR(sample_reader.Read("seconds", sample.seconds));
      event.verified.push_back(sample);
    }
  }
  return RunnerEvent(event);
}

Result<RunnerEvent> OutputsFromJson(const EventReader& reader) {
  OutputsEvent event;
  KOPT_RETURN_IF_ERROR(reader.Read("round", event.round));
  KOPT_RETURN_IF_ERROR(reader.Read("index", event.index));
  KOPT_RETURN_IF_ERROR(reader.Read("seed", event.seed));
  auto tensors = reader.object().find("tensors");
  if (tensors == reader.object().end() || !tensors->is_array()) {
    return InvalidInput("runner event: field \"tensors\" missing or not a list");
  }
  for (const json& name : *tensors) {
    if (!name.is_string()) return InvalidInput("runner event: tensors[] entry is not a string");
    event.tensors.push_back(name.get<std::string>());
  }
  return RunnerEvent(event);
}

Result<RunnerEvent> EnergyFromJson(const EventReader& reader) {
  EnergyEvent event;
  KOPT_RETURN_IF_ERROR(reader.Read("available", event.available));
  if (!event.available) {
    KOPT_RETURN_IF_ERROR(reader.Read("reason", event.reason));
    return RunnerEvent(event);
  }
  KOPT_RETURN_IF_ERROR(reader.Read("joules_per_launch", event.joules_per_launch));
  KOPT_RETURN_IF_ERROR(reader.Read("joules_per_launch_stdev", event.joules_per_launch_stdev));
  KOPT_RETURN_IF_ERROR(reader.Read("dynamic_joules_per_launch", event.dynamic_joules_per_launch));
  KOPT_RETURN_IF_ERROR(reader.Read("idle_watts", event.idle_watts));
  KOPT_RETURN_IF_ERROR(reader.Read("mean_watts", event.mean_watts));
  KOPT_RETURN_IF_ERROR(reader.Read("power_sample_watts", event.power_sample_watts));
  KOPT_RETURN_IF_ERROR(reader.Read("windows", event.windows));
  KOPT_RETURN_IF_ERROR(reader.Read("launches_per_window", event.launches_per_window));
  return RunnerEvent(event);
}

Result<RunnerEvent> FailureFromJson(const EventReader& reader) {
  FailureEvent event;
  std::string kind;
  KOPT_RETURN_IF_ERROR(reader.Read("kind", kind));
  std::optional<FailureKind> parsed = ParseFailureKind(kind);
  if (!parsed)
    return InvalidInput(fmt::format("runner event: failure kind \"{}\" is not a protocol kind", kind));
  event.kind = *parsed;
  KOPT_RETURN_IF_ERROR(reader.Read("message", event.message));
  if (reader.object().contains("detail")) KOPT_RETURN_IF_ERROR(reader.Read("detail", event.detail));
  return RunnerEvent(event);
}

}  // namespace

json RunnerEventToJson(const RunnerEvent& event) {
  return std::visit(EventToJson{}, event);
}

Result<RunnerEvent> ParseRunnerEventLine(std::string_view line) {
  json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return InvalidInput(fmt::format("runner event: not a JSON object: {}", line.substr(0, 200)));
  }
  EventReader reader(value);
  std::string name;
  KOPT_RETURN_IF_ERROR(reader.Read("event", name));
  if (name == "device") return DeviceFromJson(reader);
  if (name == "check") return CheckFromJson(reader);
  if (name == "timing") return TimingFromJson(reader);
  if (name == "energy") return EnergyFromJson(reader);
  if (name == "outputs") return OutputsFromJson(reader);
  if (name == "failure") return FailureFromJson(reader);
  if (name == "done") {
    DoneEvent event;
    KOPT_RETURN_IF_ERROR(reader.Read("ok", event.ok));
    return RunnerEvent(event);
  }
  return InvalidInput(fmt::format("runner event: unknown event \"{}\"", name));
}

}  // namespace kopt::runner
