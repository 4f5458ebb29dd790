#include "measure/runner_client.h"

#include <chrono>
#include <utility>

namespace kopt {

RunnerClient::RunnerClient(CommandRunner& command_runner, std::string runner_program, Workspace& workspace,
                           int64_t run_id, double timeout_seconds)
    : command_runner_(command_runner),
      runner_program_(std::move(runner_program)),
      workspace_(workspace),
      run_id_(run_id),
      timeout_seconds_(timeout_seconds) {}

Result<ChildRun> RunnerClient::Run(const nlohmann::json& request, const std::string& artifact_stem,
                                   MeasurementKey& key, const ChildExpectations& expected) {
  std::string directory = "runs/" + std::to_string(run_id_) + "/";
  KOPT_ASSIGN_OR_RETURN(
      std::string request_path,
      workspace_.WriteArtifact(directory + artifact_stem + ".request.json", request.dump(2)));
  CommandSpec spec;
  spec.argv = {runner_program_, request_path};
  spec.environment = {{"NVIDIA_TF32_OVERRIDE", "0"}};
  spec.timeout_seconds = timeout_seconds_;
  spec.kill_grace_seconds = 2;
  spec.max_output_bytes = size_t{64} << 20;
  const auto started = std::chrono::steady_clock::now();
  Result<CommandResult> result = command_runner_.Run(spec);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!result.ok()) {
    return result.status().WithContext("cannot start kopt-runner (" + runner_program_ +
                                       "; set KOPT_RUNNER to its path)");
  }
  ChildRun run;
  run.seconds = seconds;
  run.events = ParseRunnerEvents(result->stdout_text);
  if (key.gpu.empty() && run.events.device) key.gpu = run.events.device->name;
  for (const nlohmann::json& event : run.events.events) {
    KOPT_RETURN_IF_ERROR(workspace_.RecordEvent(run_id_, key, event.value("event", "unknown"), event));
  }
  KOPT_RETURN_IF_ERROR(
      workspace_.WriteArtifact(directory + artifact_stem + ".stdout", result->stdout_text).status());
  KOPT_RETURN_IF_ERROR(
      workspace_.WriteArtifact(directory + artifact_stem + ".stderr", result->stderr_text).status());
  run.outcome = ClassifyChildEnd(*result, run.events, expected);
  run.end = DescribeCommandEnd(*result, timeout_seconds_);
  KOPT_RETURN_IF_ERROR(workspace_.RecordOutcome(
      run_id_, key, OutcomeToJson(run.outcome, run.end, run.seconds), run.outcome.complete()));
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
