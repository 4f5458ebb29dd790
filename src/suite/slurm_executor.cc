#include "suite/slurm_executor.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_io.h"
#include "core/sha256.h"
#include "suite/slurm_queue.h"

namespace kopt::suite {

namespace {

constexpr int kStateVersion = 1;

// Single-quoted for bash: 'it'\''s'.
std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string DevicesList(int gpus) {
  std::string list;
  for (int device = 0; device < std::max(gpus, 1); ++device) {
    if (device > 0) list += ',';
    list += std::to_string(device);
  }
  return list;
}

// One problem's work with its attempts.
struct TrackedWork {
  ProblemWork work;
  int index = 0;    // work/<index>/ directory
  int attempt = 0;  // current attempt, from 1
  std::vector<std::string> attempt_command;
  std::string array_job_id;  // "" while not submitted
  int task_index = 0;
  int submission = 0;  // submission-<m> of the current attempt; 0: not yet
  int node_failures = 0;
  int continuations = 0;
  WorkState state = WorkState::kQueued;
  std::optional<int> exit_code;
  std::string detail;
  std::string placement;
  double started_seconds = 0;
  double ended_seconds = 0;
  bool forgotten = false;
};

nlohmann::json ToJson(const TrackedWork& tracked) {
  nlohmann::json environment = nlohmann::json::array();
  for (const auto& [name, value] : tracked.work.environment) environment.push_back({name, value});
  nlohmann::json json = {
      {"key", tracked.work.key},
      {"command", tracked.work.command},
      {"environment", environment},
      {"log_path", tracked.work.log_path},
      {"gpus", tracked.work.gpus},
      {"index", tracked.index},
      {"attempt", tracked.attempt},
      {"attempt_command", tracked.attempt_command},
      {"array_job_id", tracked.array_job_id},
      {"task_index", tracked.task_index},
      {"submission", tracked.submission},
      {"node_failures", tracked.node_failures},
      {"continuations", tracked.continuations},
      {"state", std::string(WorkStateName(tracked.state))},
      {"detail", tracked.detail},
      {"placement", tracked.placement},
      {"forgotten", tracked.forgotten},
  };
  if (tracked.exit_code.has_value()) json["exit_code"] = *tracked.exit_code;
  return json;
}

Result<WorkState> ParseWorkState(const std::string& name) {
  for (WorkState state : {WorkState::kQueued, WorkState::kRunning, WorkState::kSucceeded, WorkState::kFailed,
                          WorkState::kCancelled}) {
    if (WorkStateName(state) == name) return state;
  }
  return InvalidInput(fmt::format("unknown work state '{}'", name));
}

Result<TrackedWork> FromJson(const nlohmann::json& json) {
  TrackedWork tracked;
  try {
    tracked.work.key = json.at("key").get<std::string>();
    tracked.work.command = json.at("command").get<std::vector<std::string>>();
    for (const auto& pair : json.at("environment")) {
      tracked.work.environment.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    }
    tracked.work.log_path = json.at("log_path").get<std::string>();
    tracked.work.gpus = json.at("gpus").get<int>();
    tracked.index = json.at("index").get<int>();
    tracked.attempt = json.at("attempt").get<int>();
    tracked.attempt_command = json.at("attempt_command").get<std::vector<std::string>>();
    tracked.array_job_id = json.at("array_job_id").get<std::string>();
    tracked.task_index = json.at("task_index").get<int>();
    tracked.submission = json.at("submission").get<int>();
    tracked.node_failures = json.at("node_failures").get<int>();
    tracked.continuations = json.at("continuations").get<int>();
    KOPT_ASSIGN_OR_RETURN(tracked.state, ParseWorkState(json.at("state").get<std::string>()));
    tracked.detail = json.at("detail").get<std::string>();
    tracked.placement = json.at("placement").get<std::string>();
    tracked.forgotten = json.at("forgotten").get<bool>();
    if (json.contains("exit_code")) tracked.exit_code = json.at("exit_code").get<int>();
  } catch (const nlohmann::json::exception& error) {
    return InvalidInput(fmt::format("a work of the Slurm job record: {}", error.what()));
  }
  return tracked;
}

// What an attempt's records say (attempt-<a>.started / .exit).
struct AttemptRecord {
  bool started = false;
  std::string started_text;  // "JOBID NODE"
  std::string exit_kind;     // "exit", "requeued", "setup"; "": no exit record
  int exit_value = 0;
};

struct Record {
  std::vector<TrackedWork> works;
  int next_index = 0;
  int submissions = 0;
};

std::string RecordPath(const std::string& suite_directory) {
  return suite_directory + "/slurm/jobs.json";
}

// The record as written by SaveState; none: an empty record.
Result<Record> ReadJobRecord(const std::string& suite_directory) {
  Record record;
  const std::string path = RecordPath(suite_directory);
  if (!std::filesystem::exists(path)) return record;
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, size_t{256} << 20));
  nlohmann::json state = nlohmann::json::parse(text, nullptr, false);
  if (state.is_discarded() || !state.is_object() || state.value("version", 0) != kStateVersion ||
      !state.contains("works") || !state["works"].is_array()) {
    return InvalidInput(
        fmt::format("{}: expected a kopt Slurm job record of version {}", path, kStateVersion));
  }
  for (const nlohmann::json& work : state["works"]) {
    auto tracked = FromJson(work);
    if (!tracked.ok()) return InvalidInput(fmt::format("{}: {}", path, tracked.status().message()));
    record.works.push_back(std::move(*tracked));
  }
  record.next_index = state.value("next_index", static_cast<int>(record.works.size()));
  record.submissions = state.value("submissions", 0);
  return record;
}

class SlurmExecutor : public Executor {
 public:
  SlurmExecutor(SlurmExecutorSettings settings, CommandRunner& runner)
      : settings_(std::move(settings)), runner_(runner), start_(std::chrono::steady_clock::now()) {
    job_name_ = SlurmJobName(settings_.suite_directory);
  }

  std::string_view Name() const override { return "slurm"; }
  int Capacity() const override { return settings_.slurm.max_array_tasks; }

  Status Submit(const ProblemWork& work) override {
    if (work.command.empty()) return InvalidInput(fmt::format("work '{}': empty command", work.key));
    if (work.gpus < 1) return InvalidInput(fmt::format("work '{}': gpus must be at least 1", work.key));
    if (settings_.slurm.gpus_per_task > 0 && work.gpus > settings_.slurm.gpus_per_task) {
      return InvalidInput(fmt::format("work '{}' asks for {} GPUs; the Slurm tasks have {} (gpus_per_task)",
                                      work.key, work.gpus, settings_.slurm.gpus_per_task));
    }
    for (TrackedWork& tracked : works_) {
      if (tracked.work.key != work.key || tracked.forgotten) continue;
      if (!IsEnded(tracked.state)) {
        return InvalidInput(fmt::format("work '{}' is already {}", work.key, WorkStateName(tracked.state)));
      }
      tracked.forgotten = true;
    }
    TrackedWork tracked;
    tracked.work = work;
    tracked.index = next_index_++;
    StartAttempt(tracked, work.command);
    works_.push_back(std::move(tracked));
    return SaveState();
  }

  Result<std::vector<WorkStatus>> Poll() override {
    // Followed before submitting: a task submitted in this call is looked
    // for in squeue on the next call only.
    KOPT_RETURN_IF_ERROR(FollowQueue());
    KOPT_RETURN_IF_ERROR(SubmitQueued());
    std::vector<WorkStatus> statuses;
    for (const TrackedWork& tracked : works_) {
      if (!tracked.forgotten) statuses.push_back(StatusOf(tracked));
    }
    return statuses;
  }

  Status Cancel(const std::string& key) override {
    for (TrackedWork& tracked : works_) {
      if (tracked.forgotten || tracked.work.key != key || IsEnded(tracked.state)) continue;
      KOPT_RETURN_IF_ERROR(CancelTask(tracked));
    }
    return SaveState();
  }

  Status CancelAll() override {
    for (TrackedWork& tracked : works_) {
      if (tracked.forgotten || IsEnded(tracked.state)) continue;
      KOPT_RETURN_IF_ERROR(CancelTask(tracked));
    }
    return SaveState();
  }

  void Forget(const std::string& key) override {
    for (TrackedWork& tracked : works_) {
      if (tracked.work.key == key && IsEnded(tracked.state)) tracked.forgotten = true;
    }
    (void)SaveState();
  }

  Result<std::vector<WorkStatus>> Attach(const std::string& suite_directory) override {
    if (!suite_directory.empty() && suite_directory != settings_.suite_directory) {
      settings_.suite_directory = suite_directory;
      job_name_ = SlurmJobName(suite_directory);
    }
    KOPT_RETURN_IF_ERROR(LoadState());
    KOPT_RETURN_IF_ERROR(AdoptUnrecordedSubmission());
    KOPT_RETURN_IF_ERROR(FollowQueue());
    // Also the works that ended while no driver ran (and were not recorded
    // by one: not forgotten), so that the driver records their end from
    // Poll instead of submitting them again.
    std::vector<WorkStatus> attached;
    for (const TrackedWork& tracked : works_) {
      if (!tracked.forgotten) attached.push_back(StatusOf(tracked));
    }
    return attached;
  }

 private:
  double Now() const {
    if (settings_.clock) return settings_.clock();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  std::string SlurmDirectory() const { return settings_.suite_directory + "/slurm"; }
  std::string StatePath() const { return RecordPath(settings_.suite_directory); }
  std::string WorkDirectory(const TrackedWork& tracked) const {
    return fmt::format("{}/work/{}", SlurmDirectory(), tracked.index);
  }
  std::string AttemptPath(const TrackedWork& tracked) const {
    return fmt::format("{}/attempt-{}", WorkDirectory(tracked), tracked.attempt);
  }

  void StartAttempt(TrackedWork& tracked, std::vector<std::string> command) {
    ++tracked.attempt;
    tracked.attempt_command = std::move(command);
    tracked.array_job_id.clear();
    tracked.submission = 0;
    tracked.state = WorkState::kQueued;
    tracked.placement.clear();
  }

  WorkStatus StatusOf(const TrackedWork& tracked) const {
    WorkStatus status;
    status.key = tracked.work.key;
    status.state = tracked.state;
    status.exit_code = tracked.exit_code;
    status.detail = tracked.detail;
    status.placement = tracked.placement;
    status.started_seconds = tracked.started_seconds;
    status.ended_seconds = tracked.ended_seconds;
    return status;
  }

  Status SaveState() {
    nlohmann::json works = nlohmann::json::array();
    for (const TrackedWork& tracked : works_) works.push_back(ToJson(tracked));
    nlohmann::json state = {{"version", kStateVersion},
                            {"job_name", job_name_},
                            {"next_index", next_index_},
                            {"submissions", submissions_},
                            {"works", works}};
    std::error_code error;
    std::filesystem::create_directories(SlurmDirectory(), error);
    return WriteFileAtomically(StatePath(), state.dump(1) + "\n");
  }

  Status LoadState() {
    KOPT_ASSIGN_OR_RETURN(Record record, ReadJobRecord(settings_.suite_directory));
    works_ = std::move(record.works);
    next_index_ = record.next_index;
    submissions_ = record.submissions;
    return Status::Ok();
  }

  std::string AttemptScript(const TrackedWork& tracked) const {
    const std::string record = AttemptPath(tracked);
    std::string script = "#!/bin/bash\n";
    script += fmt::format("# kopt suite: work {} attempt {}\n", tracked.work.key, tracked.attempt);
    script += fmt::format("record={}\n", ShellQuote(record));
    script +=
        "finish() { printf '%s\\n' \"$1\" > \"$record.exit.tmp.$$\" && mv -f \"$record.exit.tmp.$$\" "
        "\"$record.exit\"; }\n";
    // A second start of this attempt (Slurm requeued the task, or a job was
    // submitted twice): the work already began, so it is not run again.
    script += "if ! mkdir \"$record.claim\" 2>/dev/null; then\n";
    script +=
        "  if [ \"${SLURM_RESTART_COUNT:-0}\" -gt 0 ]; then finish \"requeued ${SLURM_RESTART_COUNT}\"; fi\n";
    script += "  exit 0\nfi\n";
    script +=
        "printf '%s %s\\n' \"${SLURM_JOB_ID:-}\" \"${SLURMD_NODENAME:-$(hostname)}\" > "
        "\"$record.started.tmp\" && mv -f \"$record.started.tmp\" \"$record.started\"\n";
    for (const auto& [name, value] : tracked.work.environment) {
      script += fmt::format("export {}={}\n", name, ShellQuote(value));
    }
    if (!settings_.slurm.environment_setup.empty()) {
      script += settings_.slurm.environment_setup + " || { finish \"setup $?\"; exit 0; }\n";
    }
    std::string command;
    for (const std::string& argument : tracked.attempt_command) command += ShellQuote(argument) + " ";
    command += "--devices " + DevicesList(tracked.work.gpus);
    script += fmt::format("{} >> {} 2>&1 < /dev/null &\n", command, ShellQuote(tracked.work.log_path));
    script += "child=$!\n";
    script += "trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT\n";
    script += "wait \"$child\"; code=$?\n";
    script += "while kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; code=$?; done\n";
    script += "finish \"exit $code\"\n";
    return script;
  }

  Status SubmitQueued() {
    std::vector<TrackedWork*> queued;
    for (TrackedWork& tracked : works_) {
      if (!tracked.forgotten && tracked.state == WorkState::kQueued && tracked.array_job_id.empty()) {
        queued.push_back(&tracked);
      }
    }
    for (size_t begin = 0; begin < queued.size(); begin += settings_.slurm.max_array_tasks) {
      size_t end = std::min(queued.size(), begin + static_cast<size_t>(settings_.slurm.max_array_tasks));
      KOPT_RETURN_IF_ERROR(
          SubmitArray(std::vector<TrackedWork*>(queued.begin() + begin, queued.begin() + end)));
    }
    return Status::Ok();
  }

  Status SubmitArray(const std::vector<TrackedWork*>& works) {
    const int submission = ++submissions_;
    std::string batch = "#!/bin/bash\n# kopt suite: one array task per problem (docs/slurm.md)\n";
    batch += "case \"$SLURM_ARRAY_TASK_ID\" in\n";
    for (size_t task = 0; task < works.size(); ++task) {
      TrackedWork& tracked = *works[task];
      std::error_code error;
      std::filesystem::create_directories(WorkDirectory(tracked), error);
      if (error) return Unavailable(fmt::format("creating {}: {}", WorkDirectory(tracked), error.message()));
      const std::string script_path = AttemptPath(tracked) + ".sh";
      KOPT_RETURN_IF_ERROR(WriteFileAtomically(script_path, AttemptScript(tracked)));
      batch += fmt::format("  {}) exec /bin/bash {} ;;\n", task, ShellQuote(script_path));
      tracked.submission = submission;
      tracked.task_index = static_cast<int>(task);
    }
    batch += "  *) echo \"kopt suite: no work for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n";
    const std::string batch_path = fmt::format("{}/submission-{}.sh", SlurmDirectory(), submission);
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(batch_path, batch));
    // Recorded before sbatch: a driver killed between the two finds the
    // submission by its job name (AdoptUnrecordedSubmission).
    KOPT_RETURN_IF_ERROR(SaveState());
    CommandSpec spec;
    spec.argv.push_back("sbatch");
    for (std::string& option :
         SbatchOptions(settings_.slurm, job_name_, static_cast<int>(works.size()),
                       fmt::format("{}/submission-{}_%a.out", SlurmDirectory(), submission))) {
      spec.argv.push_back(std::move(option));
    }
    spec.argv.push_back(batch_path);
    spec.timeout_seconds = 120;
    KOPT_ASSIGN_OR_RETURN(CommandResult result, runner_.Run(spec));
    if (!result.Succeeded()) {
      return Unavailable(fmt::format("sbatch failed ({}): {}",
                                     DescribeCommandEnd(result, spec.timeout_seconds),
                                     result.stderr_text.substr(0, 2000)));
    }
    KOPT_ASSIGN_OR_RETURN(std::string job_id, ParseSbatchJobId(result.stdout_text));
    for (TrackedWork* tracked : works) {
      tracked->array_job_id = job_id;
      tracked->placement = fmt::format("job {}_{}", job_id, tracked->task_index);
    }
    return SaveState();
  }

  // A submission recorded without its job id (the driver died during
  // sbatch): its job is the one of our name whose id no work records.
  Status AdoptUnrecordedSubmission() {
    bool any_unrecorded = false;
    for (const TrackedWork& tracked : works_) {
      any_unrecorded |= !tracked.forgotten && tracked.submission > 0 && tracked.array_job_id.empty();
    }
    if (!any_unrecorded) return Status::Ok();
    KOPT_ASSIGN_OR_RETURN(std::vector<SlurmTaskLine> lines, QueryQueue());
    std::set<std::string> known;
    for (const TrackedWork& tracked : works_) known.insert(tracked.array_job_id);
    std::string unknown;
    for (const SlurmTaskLine& line : lines) {
      if (!known.count(line.array_job_id) && line.array_job_id > unknown) unknown = line.array_job_id;
    }
    for (TrackedWork& tracked : works_) {
      if (tracked.forgotten || tracked.submission == 0 || !tracked.array_job_id.empty()) continue;
      if (!unknown.empty() && tracked.submission == submissions_) {
        tracked.array_job_id = unknown;
        tracked.placement = fmt::format("job {}_{}", unknown, tracked.task_index);
      } else {
        // Never reached sbatch (or its job is long gone: the records decide).
        tracked.submission = 0;
      }
    }
    return SaveState();
  }

  Result<std::vector<SlurmTaskLine>> QueryQueue() {
    CommandSpec spec;
    spec.argv = SqueueArguments(job_name_);
    spec.timeout_seconds = 60;
    KOPT_ASSIGN_OR_RETURN(CommandResult result, runner_.Run(spec));
    if (!result.Succeeded()) {
      return Unavailable(fmt::format("squeue failed ({}): {}",
                                     DescribeCommandEnd(result, spec.timeout_seconds),
                                     result.stderr_text.substr(0, 2000)));
    }
    return ParseSqueueOutput(result.stdout_text);
  }

  AttemptRecord ReadAttemptRecord(const TrackedWork& tracked) const {
    AttemptRecord record;
    const std::string path = AttemptPath(tracked);
    auto started = ReadWholeFile(path + ".started", 4096);
    if (started.ok()) {
      record.started = true;
      record.started_text = *started;
      while (!record.started_text.empty() && record.started_text.back() == '\n')
        record.started_text.pop_back();
    }
    auto ended = ReadWholeFile(path + ".exit", 4096);
    if (ended.ok()) {
      char kind[16] = {0};
      int value = 0;
      if (std::sscanf(ended->c_str(), "%15s %d", kind, &value) == 2) {
        record.exit_kind = kind;
        record.exit_value = value;
      }
    }
    return record;
  }

  Status FollowQueue() {
    bool any_submitted = false;
    for (const TrackedWork& tracked : works_) {
      any_submitted |= !tracked.forgotten && !IsEnded(tracked.state) && !tracked.array_job_id.empty();
    }
    if (!any_submitted) return Status::Ok();
    KOPT_ASSIGN_OR_RETURN(std::vector<SlurmTaskLine> lines, QueryQueue());
    std::map<std::pair<std::string, int>, const SlurmTaskLine*> by_task;
    for (const SlurmTaskLine& line : lines) by_task[{line.array_job_id, line.task_index}] = &line;
    bool changed = false;
    for (TrackedWork& tracked : works_) {
      if (tracked.forgotten || IsEnded(tracked.state) || tracked.array_job_id.empty()) continue;
      auto found = by_task.find({tracked.array_job_id, tracked.task_index});
      const SlurmTaskLine* line = found == by_task.end() ? nullptr : found->second;
      SlurmTaskPhase phase = line == nullptr ? SlurmTaskPhase::kEnded : PhaseOfSlurmState(line->state);
      if (phase == SlurmTaskPhase::kWaiting && ReadAttemptRecord(tracked).started) {
        // Requeued after its work began (scontrol requeue, preemption, a
        // node failure): Slurm would start it again only after its requeue
        // delay (about 2 minutes), to find the attempt begun. Continued now.
        KOPT_RETURN_IF_ERROR(ScancelTask(tracked));
        AttemptRecord record;
        record.started = true;
        record.exit_kind = "requeued";
        Conclude(tracked, record, line->state);
        changed = true;
        continue;
      }
      if (phase == SlurmTaskPhase::kWaiting) {
        if (tracked.state != WorkState::kQueued) changed = true;
        tracked.state = WorkState::kQueued;
        tracked.detail = line->reason.empty() || line->reason == "None"
                             ? line->state
                             : fmt::format("{} ({})", line->state, line->reason);
        continue;
      }
      if (phase == SlurmTaskPhase::kRunning) {
        if (tracked.state != WorkState::kRunning) {
          tracked.state = WorkState::kRunning;
          if (tracked.started_seconds == 0) tracked.started_seconds = Now();
          changed = true;
        }
        tracked.placement =
            fmt::format("job {}_{} on {}", tracked.array_job_id, tracked.task_index, line->nodes);
        tracked.detail = line->state;
        continue;
      }
      Conclude(tracked, ReadAttemptRecord(tracked), line == nullptr ? "gone from the queue" : line->state);
      changed = true;
    }
    return changed ? SaveState() : Status::Ok();
  }

  // The task ended in Slurm: its records say what happened to the work.
  void Conclude(TrackedWork& tracked, const AttemptRecord& record, const std::string& slurm_state) {
    const std::string where = fmt::format("job {}_{}", tracked.array_job_id, tracked.task_index);
    if (record.exit_kind == "exit" && record.exit_value != 143 && record.exit_value != 130) {
      End(tracked, record.exit_value == 0 ? WorkState::kSucceeded : WorkState::kFailed,
          fmt::format("exit code {}", record.exit_value), record.exit_value);
      return;
    }
    if (record.exit_kind == "setup") {
      End(tracked, WorkState::kFailed,
          fmt::format("the environment setup line failed with exit code {} ({})", record.exit_value, where),
          std::nullopt);
      return;
    }
    if (!record.exit_kind.empty()) {
      // Stopped by a signal it was sent (time limit, preemption) or requeued.
      const std::string why = record.exit_kind == "requeued"
                                  ? fmt::format("requeued by Slurm ({})", where)
                                  : fmt::format("stopped by SIGTERM ({}, {})", where, slurm_state);
      if (tracked.continuations >= settings_.slurm.max_continuations) {
        End(tracked, WorkState::kFailed,
            fmt::format("{}; not continued: {} continuations already", why, tracked.continuations),
            std::nullopt);
        return;
      }
      ++tracked.continuations;
      Continue(tracked, "continued after " + why);
      return;
    }
    const std::string why = record.started
                                ? fmt::format("lost with its node or killed ({} on {}, {})", where,
                                              record.started_text, slurm_state)
                                : fmt::format("ended before the work started ({}, {})", where, slurm_state);
    if (tracked.node_failures >= settings_.slurm.max_node_failures) {
      End(tracked, WorkState::kFailed,
          fmt::format("{}; not retried: {} failures already (max_node_failures)", why, tracked.node_failures),
          std::nullopt);
      return;
    }
    ++tracked.node_failures;
    Continue(tracked, "retried after the task was " + why);
  }

  void Continue(TrackedWork& tracked, std::string detail) {
    std::vector<std::string> command =
        settings_.continuation_command ? settings_.continuation_command(tracked.work) : tracked.work.command;
    StartAttempt(tracked, std::move(command));
    tracked.detail = std::move(detail);
  }

  void End(TrackedWork& tracked, WorkState state, std::string detail, std::optional<int> exit_code) {
    tracked.state = state;
    tracked.detail = std::move(detail);
    tracked.exit_code = exit_code;
    tracked.ended_seconds = Now();
  }

  Status CancelTask(TrackedWork& tracked) {
    KOPT_RETURN_IF_ERROR(ScancelTask(tracked));
    End(tracked, WorkState::kCancelled, "cancelled by the driver (scancel)", std::nullopt);
    return Status::Ok();
  }

  Status ScancelTask(const TrackedWork& tracked) {
    if (!tracked.array_job_id.empty()) {
      CommandSpec spec;
      spec.argv = {"scancel", fmt::format("{}_{}", tracked.array_job_id, tracked.task_index)};
      spec.timeout_seconds = 60;
      KOPT_ASSIGN_OR_RETURN(CommandResult result, runner_.Run(spec));
      if (!result.Succeeded()) {
        return Unavailable(fmt::format("scancel {} failed ({}): {}", spec.argv[1],
                                       DescribeCommandEnd(result, spec.timeout_seconds),
                                       result.stderr_text.substr(0, 2000)));
      }
    }
    return Status::Ok();
  }

  SlurmExecutorSettings settings_;
  CommandRunner& runner_;
  std::chrono::steady_clock::time_point start_;
  std::string job_name_;
  std::vector<TrackedWork> works_;
  int next_index_ = 0;
  int submissions_ = 0;
};

}  // namespace

Result<std::vector<SlurmJobRow>> ReadSlurmJobRecord(const std::string& suite_directory) {
  KOPT_ASSIGN_OR_RETURN(Record record, ReadJobRecord(suite_directory));
  std::vector<SlurmJobRow> rows;
  for (const TrackedWork& tracked : record.works) {
    SlurmJobRow row;
    row.key = tracked.work.key;
    row.state = tracked.state;
    if (!tracked.array_job_id.empty())
      row.job = fmt::format("{}_{}", tracked.array_job_id, tracked.task_index);
    row.attempt = tracked.attempt;
    row.node_failures = tracked.node_failures;
    row.continuations = tracked.continuations;
    row.detail = tracked.detail;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string SlurmJobName(const std::string& suite_directory) {
  return "kopt-" + Sha256Hex(suite_directory).substr(0, 12);
}

Result<std::unique_ptr<Executor>> MakeSlurmExecutor(const SlurmExecutorSettings& settings,
                                                    CommandRunner& runner) {
  KOPT_RETURN_IF_ERROR(ValidateSlurmSettings(settings.slurm));
  if (settings.suite_directory.empty() || settings.suite_directory[0] != '/') {
    return InvalidInput(fmt::format("the Slurm executor's suite directory '{}': expected an absolute path",
                                    settings.suite_directory));
  }
  return std::unique_ptr<Executor>(std::make_unique<SlurmExecutor>(settings, runner));
}

}  // namespace kopt::suite
