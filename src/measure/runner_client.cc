#include "measure/runner_client.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <random>
#include <utility>

#include "core/interrupt.h"
#include "core/parent_death.h"
#include "core/process_sandbox.h"
#include "measure/bench_verdict.h"
#include "measure/measure_plan.h"
#include "measure/output_prejudge.h"

namespace kopt {

RunnerClient::RunnerClient(CommandRunner& command_runner, std::string runner_program, Workspace& workspace,
                           int64_t run_id, double timeout_seconds)
    : command_runner_(command_runner),
      runner_program_(std::move(runner_program)),
      workspace_(workspace),
      run_id_(run_id),
      timeout_seconds_(timeout_seconds) {
  // prctl(PR_SET_DUMPABLE, 0) fails only on a kernel without prctl: nothing to fall back to.
  (void)MakeProcessNonDumpable();
}

namespace {

constexpr int kOutputChannelFd = 3;

// 128 random bits from the kernel, as hex: this child's run token.
std::string NewRunToken() {
  std::random_device random;
  std::string token;
  for (int word = 0; word < 4; ++word) token += fmt::format("{:08x}", static_cast<uint32_t>(random()));
  return token;
}

// The parent's verdict over the child's claimed one (see Run in the header).
ChildOutcome Judge(const runner::RunnerRequest& request, ChildRun& run, const CommandResult& result,
                   const std::string& token, const Result<OutputFrames>& frames,
                   const OutputFrames* expected_frames, const ChildExpectations& expected,
                   const PrecomputedOutputs* precomputed) {
  std::string binding = CheckEventBinding(run.events, token);
  if (!binding.empty()) return FailedOutcome(FailureKind::kProtocolViolation, binding, "");
  if (!frames.ok()) return FailedOutcome(FailureKind::kProtocolViolation, frames.status().message(), "");
  ParentVerdict verdict = JudgeOutputs(request, run.events, *frames,
                                       expected_frames != nullptr ? *expected_frames : *frames, precomputed);
  run.events.checks = verdict.checks;
  ChildOutcome outcome = ClassifyChildEnd(result, run.events, expected);
  if (IsHarnessVerdict(verdict)) {
    ChildOutcome harness;
    harness.status = ChildOutcome::Status::kHarnessError;
    harness.message = verdict.message;
    return harness;
  }
  if (outcome.status == ChildOutcome::Status::kHarnessError) return outcome;
  // The first failing round in protocol order is the verdict, also when the
  // child failed (or died) later.
  if (verdict.kind) return FailedOutcome(*verdict.kind, verdict.message, outcome.detail);
  if (outcome.status != ChildOutcome::Status::kOk || !run.events.timing) return outcome;
  double window = TimingWindowSeconds(run.events, result.stdout_arrivals);
  std::string claims = CheckTimingClaims(request, *run.events.timing, window, expected.l2_bytes);
  if (!claims.empty()) return FailedOutcome(FailureKind::kTimingInconsistent, claims, outcome.detail);
  if (IsSuspectFast(run.events.timing->median_s, expected.floor_seconds)) {
    if (expected.floor_is_final) {
      return FailedOutcome(
          FailureKind::kSuspectFast,
          fmt::format("timed at {:.4g} s, below the roofline floor of {:.4g} s, again after a "
                      "re-measurement with fresh input values: physically impossible",
                      run.events.timing->median_s, expected.floor_seconds),
          outcome.detail);
    }
    run.below_floor = true;
  }
  return outcome;
}

}  // namespace

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The child's events: a child that was killed or died may have been cut off in the middle of a line,
// so what it finished sending counts, the torn tail not.
RunnerEvents CompleteEvents(const CommandResult& result) {
  std::string_view complete_lines = result.stdout_text;
  if (result.timed_out || result.signaled)
    complete_lines = complete_lines.substr(0, complete_lines.rfind('\n') + 1);
  return ParseRunnerEvents(complete_lines);
}

// The frames the child sent: an error when it broke its channel (`channel_broken`); from channel
// memory, sealed first, else from the bytes the runner received (a torn tail dropped when the child
// ended abnormally).
Result<OutputFrames> ReceiveFrames(CommandResult& result, ChannelMemory& memory, bool use_memory,
                                   const std::string& channel_broken, size_t max_channel_bytes) {
  if (!channel_broken.empty()) return InvalidInput("output channel: " + channel_broken);
  if (!use_memory)
    return OutputFrames::Parse(std::move(result.channel_bytes), result.timed_out || result.signaled);
  // The child has ended; whatever it (or anything it started) can still do
  // to the memory ends here, or the seal fails and the child is rejected.
  KOPT_ASSIGN_OR_RETURN(std::shared_ptr<const SealedBytes> sealed, memory.Seal(max_channel_bytes));
  return OutputFrames::ParseMemory(std::move(sealed));
}

// Keeps the child's stdout and stderr as artifacts beside its request (`path_stem`: runs/<id>/<stem>).
Status WriteChildOutput(Workspace& workspace, const std::string& path_stem, const CommandResult& result) {
  KOPT_RETURN_IF_ERROR(workspace.WriteArtifact(path_stem + ".stdout", result.stdout_text).status());
  return workspace.WriteArtifact(path_stem + ".stderr", result.stderr_text).status();
}

// The child's events, then the parent's checks: stored together with the outcome, in one transaction.
std::vector<StoredEvent> EventRecords(const RunnerEvents& events) {
  std::vector<StoredEvent> records;
  records.reserve(events.events.size() + events.checks.size());
  for (const nlohmann::json& event : events.events)
    records.push_back({event.value("event", "unknown"), event});
  // The parent's comparisons are stored beside the child's events (resume reads them back).
  for (const runner::CheckEvent& check : events.checks)
    records.push_back({"check", runner::RunnerEventToJson(check)});
  return records;
}

}  // namespace

runner::OutputChannelKind RunnerClient::ChannelFor(const ChannelMemory& memory) const {
  if (memory.descriptor() >= 0) return runner::OutputChannelKind::kMemory;
  return channel_pull_ && !pull_refused_once_ ? runner::OutputChannelKind::kPull
                                              : runner::OutputChannelKind::kPipe;
}

CommandSpec RunnerClient::ChildCommand(const runner::RunnerRequest& request, const std::string& request_path,
                                       const std::string& token, const ChannelMemory& memory,
                                       const ChildExpectations& expected) const {
  CommandSpec spec;
  spec.argv = {runner_program_, request_path};
  spec.environment = {{"NVIDIA_TF32_OVERRIDE", "0"},
                      {"KOPT_RUN_TOKEN", token},
                      {std::string(kParentPidVariable), std::to_string(getpid())}};
  spec.timeout_seconds = timeout_seconds_;
  spec.kill_grace_seconds = 2;
  spec.max_output_bytes = size_t{64} << 20;
  spec.channel_fd = kOutputChannelFd;
  spec.expected_channel_bytes = ExpectedOutputBytes(request, expected.l2_bytes);
  spec.channel_storage =
      request.output_channel == runner::OutputChannelKind::kMemory ? nullptr : channel_storage_;
  spec.channel_memory_fd = memory.descriptor();
  spec.channel_pull = request.output_channel == runner::OutputChannelKind::kPull;
  return spec;
}

Result<ChildRun> RunnerClient::Run(const runner::RunnerRequest& request, const std::string& artifact_stem,
                                   MeasurementKey& key, const ChildExpectations& expected,
                                   const OutputFrames* expected_frames) {
  runner::RunnerRequest child_request = request;
  child_request.output_fd = kOutputChannelFd;
  ChannelMemory memory = std::move(channel_memory_);
  const runner::OutputChannelKind channel = ChannelFor(memory);
  const bool use_memory = channel == runner::OutputChannelKind::kMemory;
  const bool use_pull = channel == runner::OutputChannelKind::kPull;
  child_request.output_channel = channel;
  ParentPhases phases;
  phases.channel = std::string(runner::OutputChannelKindName(channel));
  phases.prepare = std::exchange(prepare_seconds_, 0.0);
  KOPT_ASSIGN_OR_RETURN(nlohmann::json wire, RunnerRequestWire(child_request));
  std::string directory = "runs/" + std::to_string(run_id_) + "/";
  KOPT_ASSIGN_OR_RETURN(std::string request_path,
                        workspace_.WriteArtifact(directory + artifact_stem + ".request.json", wire.dump(2)));
  std::string token = NewRunToken();
  CommandSpec spec = ChildCommand(child_request, request_path, token, memory, expected);
  // A candidate's frames are compared while they arrive (measure/output_prejudge.h); the judge below decides.
  std::optional<OutputPrejudge> prejudge;
  if (use_pull && expected_frames != nullptr) {
    prejudge.emplace(child_request, *expected_frames);
    spec.on_channel = [&prejudge](std::string_view bytes) { prejudge->Received(bytes); };
    spec.before_channel_moves = [&prejudge] { prejudge->Moving(); };
  }
  const auto started = Clock::now();
  Result<CommandResult> result = command_runner_.Run(spec);
  // Before anything can free the bytes the comparisons read.
  PrecomputedOutputs precomputed = prejudge ? prejudge->Finish() : PrecomputedOutputs();
  phases.prejudged = static_cast<int64_t>(precomputed.size());
  std::string channel_broken;
  const double seconds = SecondsSince(started);
  if (!result.ok()) {
    return result.status().WithContext("cannot start kopt-runner (" + runner_program_ +
                                       "; set KOPT_RUNNER to its path)");
  }
  if (use_pull && result->channel_refused) {
    // Not the child's doing: this kernel does not let kopt read a child's memory. The same child again,
    // piped.
    pull_refused_once_ = true;
    std::string why = result->channel_error;
    Result<ChildRun> again = Run(request, artifact_stem, key, expected, expected_frames);
    if (again.ok()) {
      again->pull_refused = true;
      again->pull_refused_message = why;
    }
    return again;
  }
  if (!result->channel_error.empty() && !result->timed_out && !result->signaled) {
    // The child broke its pulled channel (memory it does not have, a bad record): nothing it sent is judged.
    result->channel_bytes.clear();
    channel_broken = result->channel_error;
  }
  ChildRun run;
  run.seconds = seconds;
  run.events = CompleteEvents(*result);
  if (key.gpu.empty() && run.events.device) key.gpu = run.events.device->name;
  KOPT_RETURN_IF_ERROR(WriteChildOutput(workspace_, directory + artifact_stem, *result));
  auto receive_started = Clock::now();
  Result<OutputFrames> frames =
      ReceiveFrames(*result, memory, use_memory, channel_broken, spec.max_channel_bytes);
  phases.receive = SecondsSince(receive_started);
  auto judge_started = Clock::now();
  ChildExpectations expectations = expected;
  if (expectations.l2_bytes == 0 && run.events.device) expectations.l2_bytes = run.events.device->l2_bytes;
  run.outcome =
      Judge(child_request, run, *result, token, frames, expected_frames, expectations, &precomputed);
  phases.judge = SecondsSince(judge_started);
  auto store_started = Clock::now();
  if (frames.ok()) run.frames = std::move(frames).value();
  run.end = DescribeCommandEnd(*result, timeout_seconds_);
  // A child killed by an interrupt of kopt has no verdict: never a complete outcome that resume reuses.
  bool complete = run.outcome.complete() && !run.below_floor && !InterruptRequested();
  KOPT_RETURN_IF_ERROR(workspace_.RecordMeasurement(
      run_id_, key, EventRecords(run.events), OutcomeToJson(run.outcome, run.end, run.seconds), complete));
  phases.store = SecondsSince(store_started);
  run.phases = phases;
  return run;
}

nlohmann::json OutcomeToJson(const ChildOutcome& outcome, const std::string& end, double seconds) {
  return {{"status", ChildStatusName(outcome.status)},
          {"kind", outcome.kind ? nlohmann::json(FailureKindName(*outcome.kind)) : nlohmann::json(nullptr)},
          {"message", outcome.message},
          {"detail", outcome.detail},
          {"end", end},
          {"seconds", seconds}};
}

namespace {

Result<ChildOutcome> OutcomeFromJson(const nlohmann::json& json) {
  ChildOutcome outcome;
  std::string status = json.value("status", "");
  if (status == "ok") {
    outcome.status = ChildOutcome::Status::kOk;
  } else if (status == "failed") {
    outcome.status = ChildOutcome::Status::kFailed;
    const nlohmann::json kind = json.value("kind", nlohmann::json());
    std::optional<FailureKind> parsed =
        kind.is_string() ? ParseFailureKind(kind.get<std::string>()) : std::nullopt;
    if (!parsed) return InvalidInput("stored outcome has no valid failure kind");
    outcome.kind = parsed;
  } else if (status == "harness_error") {
    outcome.status = ChildOutcome::Status::kHarnessError;
  } else {
    return InvalidInput("stored outcome has an unknown status '" + status + "'");
  }
  outcome.message = json.value("message", "");
  outcome.detail = json.value("detail", "");
  return outcome;
}

}  // namespace

Result<ChildRun> ChildRunFromStored(const std::vector<StoredEvent>& events) {
  if (events.empty() || events.back().phase != "outcome" || !events.back().event.is_object()) {
    return InvalidInput("stored measurement does not end with an outcome");
  }
  ChildRun run;
  size_t line = 0;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    AddRunnerEventLine(events[i].event.dump(), ++line, run.events);
  }
  // Values of a stored outcome come from kopt itself, but the database is a file: check them.
  try {
    KOPT_ASSIGN_OR_RETURN(run.outcome, OutcomeFromJson(events.back().event));
    run.end = events.back().event.value("end", "");
    run.seconds = events.back().event.value("seconds", 0.0);
  } catch (const nlohmann::json::exception& error) {
    return InvalidInput(std::string("stored outcome is malformed: ") + error.what());
  }
  return run;
}

}  // namespace kopt
