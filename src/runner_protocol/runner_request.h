// The kopt-runner protocol as C++ types (docs/harness-protocol.md §3): the
// request the parent writes, and the JSON-lines events the runner prints.
// Both sides use these ToJson/FromJson functions, so the wire format lives in
// one place.
//
// The request's `task` is the resolved task of docs/task-format.md ("The
// resolved task as JSON", TaskSpec::ToJson); RunnerTask is the runner's view
// of it (only the fields the runner needs; others are ignored).
//
// Units: seconds (_s, _seconds), bytes (_bytes), MHz (_mhz), watts, joules;
// errors are in the output's own value units (max_abs_error) or a ratio
// (max_rel_error).
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/status.h"
#include "harness/task_types.h"
#include "runner_protocol/failure_kind.h"

namespace kopt::runner {

// The task model's types (harness/task_types.h), one definition shared with
// TaskSpec; DataType is spelled Dtype on the runner's side.
using Dtype = ::kopt::DataType;
using ::kopt::DefaultTolerance;
using ::kopt::InitKind;
using ::kopt::ScalarType;
using ::kopt::TensorInit;
using ::kopt::TensorRole;
using ::kopt::Tolerance;

// Bytes per element, as size_t for buffer arithmetic.
constexpr size_t DtypeBytes(Dtype dtype) {
  return static_cast<size_t>(DataTypeBytes(dtype));
}

struct TensorDecl {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;  // row-major; [] is one element
  TensorRole role = TensorRole::kInput;
  TensorInit init;
  int64_t ElementCount() const;
  int64_t ByteCount() const { return ElementCount() * static_cast<int64_t>(DtypeBytes(dtype)); }
  bool IsWritten() const { return role != TensorRole::kInput; }       // output or inout
  bool IsInitialised() const { return role != TensorRole::kOutput; }  // input or inout
};

// One scalar argument; integer types use integer_value, floating ones
// float_value.
struct ScalarDecl {
  std::string name;
  ScalarType type = ScalarType::kI32;
  int64_t integer_value = 0;
  double float_value = 0.0;
};

struct RunnerTask {
  std::string name;
  std::string entry;
  std::vector<TensorDecl> tensors;
  std::vector<ScalarDecl> scalars;
  std::map<Dtype, Tolerance> tolerances;  // all dtypes the task's tensors use
  // The resolved task's fields the runner does not read (docs/task-format.md, "The resolved task as
  // JSON"), carried so that a request names the whole task it ran: written when present, read back
  // when of their type (otherwise absent, never an error).
  std::optional<std::string> description;
  std::optional<double> min_bytes;
  std::optional<int64_t> check_seeds;
  std::optional<double> flops;
  // The tolerance for `dtype`: the task's, else the default of task-format.md.
  Tolerance ToleranceFor(Dtype dtype) const;
};

// Another size for a correctness round: new scalar values and the shapes
// they give (every scalar and every tensor listed, as the parent resolved them).
struct CheckVariant {
  std::vector<ScalarDecl> scalars;                     // same names/types as the task's
  std::map<std::string, std::vector<int64_t>> shapes;  // tensor name -> shape
};

// The task at a variant's size: the variant's scalars and shapes replace the
// task's (names the variant lacks keep the task's value).
RunnerTask ApplyVariant(const RunnerTask& task, const CheckVariant& variant);

struct TimingRequest {
  double warmup_seconds = 0.1;
  int min_samples = 10;
  int max_samples = 1000;
  double max_relative_stdev = 0.005;
  double min_gpu_seconds = 0.05;
  double timeout_seconds = 5.0;
  bool cold = false;
  bool rotate_input_sets = true;
  // Timed samples whose outputs are sent to the parent for comparison
  // (chosen at random after each sample has run; at least one: the last
  // sample when no other was chosen). 0 only for an old-protocol request.
  int verified_samples = 2;
};

struct EnergyRequest {
  double window_seconds = 1.0;
  double idle_seconds = 1.0;
};

inline constexpr std::string_view kRunnerRequestSchema = "kopt.runner.request/1";

// Which library a child loads (docs/harness-protocol.md §3, "The trust
// boundary"): a candidate child loads only candidate_library, a reference
// child only reference_library. Neither judges outputs: both send them to the
// parent, which compares.
enum class RunnerRole { kCandidate, kReference };
std::string_view RunnerRoleName(RunnerRole role);  // "candidate", "reference"

// How a runner's output frames reach the parent (RunnerRequest::output_channel): the one
// output-channel enum from the command line to the runner. `--output-channel` sets it
// (MeasureSettings::OutputChannel is this type), the session and RunnerClient choose the child's
// from it, the request carries it and kopt-runner's OutputChannel (src/runner/output_channel.h)
// writes through it. On the wire it is two booleans (RunnerRequest::output_channel says which); below
// the protocol, core's CommandSpec has the mechanisms (channel_memory_fd, channel_pull).
enum class OutputChannelKind { kPipe, kMemory, kPull };
std::string_view OutputChannelKindName(OutputChannelKind kind);  // "pipe", "memory", "pull"

struct RunnerRequest {
  RunnerRole role = RunnerRole::kCandidate;
  RunnerTask task;
  std::string candidate_library;
  std::string reference_library;
  std::vector<uint64_t> seeds;
  std::vector<CheckVariant> check_variants;
  bool check = true;
  std::optional<TimingRequest> timing;
  std::optional<EnergyRequest> energy;
  int device = 0;
  std::optional<double> cpu_seconds;  // RLIMIT_CPU the runner sets on itself; absent: unchanged
  // Base seed of the timed input sets: set k is drawn on the device from
  // TimingSetSeed(timing_seed, k) (its own values per set).
  uint64_t timing_seed = 0;
  // Seed of the round after timing (fresh inputs in the timed buffers).
  uint64_t fresh_seed = 0;
  // The descriptor the runner writes output frames to (runner_protocol/output_frames.h);
  // -1: outputs are not sent (the parent then cannot judge the child).
  int output_fd = -1;
  // How output frames reach the parent (docs/harness-protocol.md §3, "Output
  // frames"); on the wire as the booleans output_memory and output_pull
  // (memory wins when both are true).
  //  kPipe: output_fd is a pipe, frames are written to it in order.
  //  kMemory: output_fd is shared memory the parent seals after the child
  //   ended (core/channel_memory.h): frames are written back to back from
  //   offset 0, each frame's payload before its head, so a frame whose magic
  //   is there is complete; the frames end where 8 zero bytes stand instead
  //   of a magic.
  //  kPull: output_fd is one end of a stream socket and the channel is pulled
  //   (core/channel_pull.h): records name where each payload piece lies in
  //   the runner's memory, the parent copies it from there and acks.
  OutputChannelKind output_channel = OutputChannelKind::kPipe;
};

// The seed of timed input set `set` (0-based) of a run.
uint64_t TimingSetSeed(uint64_t timing_seed, int64_t set);

nlohmann::json RunnerTaskToJson(const RunnerTask& task);
nlohmann::json RunnerRequestToJson(const RunnerRequest& request);

// Parses a request; InvalidInput naming the field path ("task.tensors[1].dtype")
// and the expected form. `source` (e.g. the file name) prefixes messages.
Result<RunnerRequest> RunnerRequestFromJson(const nlohmann::json& json, const std::string& source);
Result<RunnerRequest> ParseRunnerRequest(std::string_view text, const std::string& source);
Result<RunnerTask> RunnerTaskFromJson(const nlohmann::json& json, const std::string& source);

// ---- events (one JSON object per line on the runner's stdout) ----

struct DeviceEvent {
  std::string name;
  std::string compute_capability;  // "9.0"
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  double sm_clock_max_mhz = 0.0;
  bool nvml = false;
};

// The comparison of one output tensor in one round.
struct OutputCheck {
  std::string name;
  double max_abs_error = 0.0;         // in the output's value units
  double max_rel_error = 0.0;         // ratio |got-expected|/|expected| over elements with expected != 0
  int64_t mismatches = 0;             // elements outside the tolerance (unwritten and NaN included)
  int64_t nan_count = 0;              // NaN in the candidate's output where the reference has none
  int64_t unwritten = 0;              // elements still holding the poison
  int64_t first_mismatch_index = -1;  // flat element index, -1 when none
};

struct CheckEvent {
  uint64_t seed = 0;
  std::optional<int> variant;  // index into check_variants; absent at the main size
  bool passed = false;
  std::vector<OutputCheck> outputs;
  // Where the round's wall time went, in seconds per step ("generate",
  // "candidate", ...; a step that ran twice is summed); informational: the
  // event's `phase_s` object, not parsed back.
  std::vector<std::pair<std::string, double>> phase_seconds;
};

// A timed sample whose outputs went to the parent (frame round "timed",
// index = its position in TimingEvent::verified).
struct VerifiedSample {
  int64_t sample = 0;  // 0-based index among the samples taken (kept or not)
  int64_t set = 0;     // the input set it ran on
  double seconds = 0;  // its event time
};

struct TimingEvent {
  int64_t samples = 0;
  double median_s = 0, q1_s = 0, q3_s = 0, mean_s = 0, min_s = 0, max_s = 0;
  double relative_stdev = 0;  // ratio
  double gpu_seconds = 0;
  std::string stop_reason;  // noise | max_samples | timeout
  bool cold = false;
  int64_t input_sets = 1;
  double device_wide_median_s = 0;
  double sm_clock_mean_mhz = 0;
  int64_t throttled_samples_discarded = 0;
  std::vector<VerifiedSample> verified;  // optional field `verified`; empty when absent
  double sampling_wall_s = 0;            // optional extra; 0 when absent
};

// A round's (or a timed sample's) outputs were written to the output channel
// as frames (round, index, tensor): `outputs` event.
struct OutputsEvent {
  std::string round;  // "check", "variant", "set", "timed", "fresh" (runner_protocol/output_frames.h)
  int64_t index = 0;
  uint64_t seed = 0;
  std::vector<std::string> tensors;                           // the written tensors sent, in task order
  std::vector<std::pair<std::string, double>> phase_seconds;  // informational `phase_s`, not parsed back
};

struct EnergyEvent {
  bool available = false;
  std::string reason;  // when not available
  double joules_per_launch = 0, joules_per_launch_stdev = 0, dynamic_joules_per_launch = 0;
  double idle_watts = 0, mean_watts = 0, power_sample_watts = 0;
  int64_t windows = 0;
  int64_t launches_per_window = 0;
};

struct FailureEvent {
  FailureKind kind = FailureKind::kLaunchFailure;
  std::string message;
  std::string detail;  // optional; empty when none
};

struct DoneEvent {
  bool ok = false;
};

using RunnerEvent =
    std::variant<DeviceEvent, CheckEvent, TimingEvent, EnergyEvent, FailureEvent, DoneEvent, OutputsEvent>;

// The timing event's `verified` list as JSON.
nlohmann::json VerifiedToJson(const std::vector<VerifiedSample>& verified);

// {"event": "check", ...} with the fields of the protocol.
nlohmann::json RunnerEventToJson(const RunnerEvent& event);
// Parses one line of the runner's stdout; InvalidInput naming the field.
Result<RunnerEvent> ParseRunnerEventLine(std::string_view line);

}  // namespace kopt::runner
