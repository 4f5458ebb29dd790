#include "suite/suite_driver.h"

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "suite/suite_state.h"

namespace kopt::suite {
namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class SuiteDriver {
 public:
  SuiteDriver(const SuiteRunSettings& settings, const SuiteEnvironment& environment)
      : settings_(settings), environment_(environment) {}

  Result<SuiteReport> Run() {
    if (environment_.executor == nullptr) return Internal("kopt bug: RunSuite without an executor");
    SuiteManifest manifest;
    manifest.name = settings_.name;
    manifest.problems = settings_.problems;
    manifest.optimize_arguments = settings_.optimize_arguments;
    manifest.gpus_per_problem = settings_.gpus_per_problem;
    KOPT_ASSIGN_OR_RETURN(state_, OpenSuite(SuiteDirectory(settings_.workspace, settings_.name), manifest));
    KOPT_ASSIGN_OR_RETURN(std::vector<WorkStatus> attached, executor().Attach(state_.directory));
    for (const WorkStatus& status : attached) outstanding_.insert(status.key);
    for (const SuiteProblem& problem : state_.manifest.problems) {
      auto journal = state_.journal.find(problem.key);
      if (journal != state_.journal.end() && journal->second.ended) continue;
      if (outstanding_.count(problem.key)) continue;
      KOPT_RETURN_IF_ERROR(executor().Submit(WorkFor(problem)));
      outstanding_.insert(problem.key);
    }
    KOPT_RETURN_IF_ERROR(Report(true));
    while (!outstanding_.empty()) {
      KOPT_ASSIGN_OR_RETURN(bool changed, Step());
      KOPT_RETURN_IF_ERROR(Report(changed));
      if (!changed) Sleep(settings_.poll_seconds);
    }
    return CollectSuiteReport(state_);
  }

 private:
  Executor& executor() { return *environment_.executor; }

  ProblemWork WorkFor(const SuiteProblem& problem) {
    ProblemWork work;
    work.key = problem.key;
    work.command = OptimizeCommandFor(settings_, state_, problem);
    work.log_path = ProblemLogPath(state_.directory, problem.key);
    work.gpus = state_.manifest.gpus_per_problem;
    return work;
  }

  // One poll: journals what started and what ended. True when anything did.
  Result<bool> Step() {
    KOPT_ASSIGN_OR_RETURN(std::vector<WorkStatus> statuses, executor().Poll());
    bool changed = false;
    running_.clear();
    for (const WorkStatus& status : statuses) {
      if (!outstanding_.count(status.key)) continue;
      if (status.state != WorkState::kQueued && !started_.count(status.key)) {
        KOPT_RETURN_IF_ERROR(JournalStarted(state_, status));
        started_.insert(status.key);
        changed = true;
      }
      if (status.state == WorkState::kRunning) running_.push_back(status.key);
      if (!IsEnded(status.state)) continue;
      std::optional<int64_t> run = ProblemRun(ProblemWorkspace(state_.directory, status.key));
      KOPT_RETURN_IF_ERROR(JournalEnded(state_, status, run));
      executor().Forget(status.key);
      outstanding_.erase(status.key);
      changed = true;
    }
    return changed;
  }

  Status Report(bool changed) {
    if (!environment_.progress) return Status::Ok();
    double now = environment_.now_seconds ? environment_.now_seconds() : SteadySeconds();
    if (!changed && now - last_progress_ < settings_.progress_interval_seconds) return Status::Ok();
    last_progress_ = now;
    KOPT_ASSIGN_OR_RETURN(SuiteReport report, CollectSuiteReport(state_, running_));
    environment_.progress(report);
    return Status::Ok();
  }

  void Sleep(double seconds) {
    if (environment_.sleep) {
      environment_.sleep(seconds);
    } else {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    }
  }

  const SuiteRunSettings& settings_;
  const SuiteEnvironment& environment_;
  SuiteState state_;
  std::set<std::string> outstanding_;  // submitted or attached, not ended
  std::set<std::string> started_;      // journaled `started` by this driver
  std::vector<std::string> running_;
  double last_progress_ = -1e300;
};

}  // namespace

std::vector<std::string> OptimizeCommandFor(const SuiteRunSettings& settings, const SuiteState& state,
                                            const SuiteProblem& problem) {
  std::string workspace = ProblemWorkspace(state.directory, problem.key);
  std::vector<std::string> command = {settings.kopt_program, "optimize"};
  if (std::optional<int64_t> run = ProblemRun(workspace)) {
    command.insert(command.end(), {"--resume", std::to_string(*run)});
  } else {
    command.push_back(problem.task_directory);
  }
  command.insert(command.end(), {"--workspace", workspace, "--quiet"});
  command.insert(command.end(), state.manifest.optimize_arguments.begin(),
                 state.manifest.optimize_arguments.end());
  return command;
}

Result<SuiteReport> RunSuite(const SuiteRunSettings& settings, const SuiteEnvironment& environment) {
  SuiteDriver driver(settings, environment);
  return driver.Run();
}

}  // namespace kopt::suite
