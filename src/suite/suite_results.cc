#include "suite/suite_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/enum_names.h"
#include "core/file_io.h"
#include "optimize/optimization_loop.h"

namespace kopt::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr EnumNameTable<BaselineKind, 4> kBaselineNames = {{{BaselineKind::kEager, "eager"},
                                                            {BaselineKind::kTf32, "tf32"},
                                                            {BaselineKind::kTorchCompile, "torch_compile"},
                                                            {BaselineKind::kReference, "reference"}}};
constexpr EnumNameTable<BaselineKind, 4> kBaselineTitles = {{{BaselineKind::kEager, "eager"},
                                                             {BaselineKind::kTf32, "TF32"},
                                                             {BaselineKind::kTorchCompile, "torch.compile"},
                                                             {BaselineKind::kReference, "reference"}}};
constexpr EnumNameTable<ProblemOutcome, 5> kOutcomeNames = {{{ProblemOutcome::kPending, "pending"},
                                                             {ProblemOutcome::kStarted, "started"},
                                                             {ProblemOutcome::kRunning, "running"},
                                                             {ProblemOutcome::kFinished, "finished"},
                                                             {ProblemOutcome::kFailed, "failed"}}};

// The baseline's column from the task's baselines: its time, else why none.
BaselineResult ReadBaseline(BaselineKind kind, const Result<std::optional<TaskBaselines>>& baselines) {
  BaselineResult result;
  result.kind = kind;
  result.note = "not measured";
  if (!baselines.ok()) {
    result.note = baselines.status().message();
    return result;
  }
  if (!baselines->has_value()) return result;
  for (PytorchBaseline pytorch : kPytorchBaselines) {
    if (BaselineName(kind) != PytorchBaselineName(pytorch)) continue;
    const TaskBaseline& measured = (*baselines)->Get(pytorch);
    result.time_s = measured.time_s;
    result.note = measured.note;
  }
  return result;
}

ProblemOutcome OutcomeOf(const ProblemJournal* journal, const RunState* state) {
  if (journal == nullptr || journal->attempts == 0) return ProblemOutcome::kPending;
  if (!journal->ended) return ProblemOutcome::kStarted;
  bool finished = journal->ended->state == WorkState::kSucceeded && state != nullptr &&
                  state->status == RunStatus::kFinished;
  return finished ? ProblemOutcome::kFinished : ProblemOutcome::kFailed;
}

void AddUsage(ProblemResult& result, const RunState& state) {
  result.evaluations = state.usage.evaluations;
  result.llm_tokens = state.usage.llm_input_tokens + state.usage.llm_output_tokens;
  result.llm_cost_usd = state.usage.llm_cost_usd;
  result.llm_cost_known = state.usage.llm_cost_known;
  result.gpu_seconds = state.usage.gpu_seconds;
  result.wall_seconds = state.usage.wall_seconds;
  for (const SearchNode& node : state.tree.nodes()) {
    if (!node.parent) continue;  // the reference is not an evaluation
    ++result.verdicts[std::string(NodeStatusName(node.status))];
  }
}

double GeometricMean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double value : values) log_sum += std::log(value);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

GroupSummary Summarize(const std::string& group, const std::vector<const ProblemResult*>& members) {
  GroupSummary summary;
  summary.group = group;
  summary.problems = static_cast<int64_t>(members.size());
  std::array<std::vector<double>, kBaselineColumns.size()> speedups;
  for (const ProblemResult* result : members) {
    summary.finished += result->outcome == ProblemOutcome::kFinished;
    summary.failed += result->outcome == ProblemOutcome::kFailed;
    summary.correct += result->correct;
    summary.llm_tokens += result->llm_tokens;
    summary.llm_cost_usd += result->llm_cost_usd;
    summary.gpu_seconds += result->gpu_seconds;
    for (size_t column = 0; column < kBaselineColumns.size(); ++column) {
      summary.measured[column] += result->baselines[column].time_s.has_value();
      const std::optional<double>& speedup = result->baselines[column].speedup;
      if (!result->correct || !speedup) continue;
      speedups[column].push_back(*speedup);
      for (size_t threshold = 0; threshold < kFastThresholds.size(); ++threshold) {
        if (*speedup > kFastThresholds[threshold]) summary.fast[column][threshold] += 1;
      }
    }
  }
  for (size_t column = 0; column < kBaselineColumns.size(); ++column) {
    for (double& fraction : summary.fast[column]) {
      fraction = summary.problems > 0 ? fraction / static_cast<double>(summary.problems) : 0;
    }
    summary.geomean_count[column] = static_cast<int64_t>(speedups[column].size());
    if (!speedups[column].empty()) summary.geomean[column] = GeometricMean(speedups[column]);
  }
  return summary;
}

// PROBLEM_WORKSPACE/baselines.json, else TASK_DIRECTORY/baselines.json.
Result<std::optional<TaskBaselines>> ReadBaselinesDocument(const std::string& problem_workspace,
                                                           const std::string& task_directory) {
  KOPT_ASSIGN_OR_RETURN(std::optional<TaskBaselines> in_workspace, ReadTaskBaselines(problem_workspace));
  if (in_workspace) return in_workspace;
  return ReadTaskBaselines(task_directory);
}

}  // namespace

std::string_view BaselineName(BaselineKind kind) {
  return EnumName(kBaselineNames, kind);
}
std::string_view BaselineTitle(BaselineKind kind) {
  return EnumName(kBaselineTitles, kind);
}
std::string_view ProblemOutcomeName(ProblemOutcome outcome) {
  return EnumName(kOutcomeNames, outcome);
}

const BaselineResult& ProblemResult::baseline(BaselineKind kind) const {
  return baselines.at(static_cast<size_t>(kind));
}

ProblemResult MakeProblemResult(const SuiteProblem& problem, const ProblemJournal* journal,
                                const RunState* state,
                                const Result<std::optional<TaskBaselines>>& baselines) {
  ProblemResult result;
  result.problem = problem;
  result.outcome = OutcomeOf(journal, state);
  if (journal != nullptr) {
    result.attempts = journal->attempts;
    if (journal->ended) result.detail = journal->ended->detail;
  }
  for (BaselineKind kind : kBaselineColumns) result.baselines.push_back(ReadBaseline(kind, baselines));
  if (state == nullptr) return result;
  result.run_id = state->run_id;
  if (!state->stop_reason.empty()) result.detail = state->stop_reason;
  AddUsage(result, *state);
  BaselineResult& reference = result.baselines.back();
  if (state->reference_time_s > 0) {
    reference.time_s = state->reference_time_s;
    reference.note.clear();
  }
  std::optional<NodeId> best = state->tree.BestNode();
  if (!best || !state->tree.node(*best).parent) return result;  // only the reference
  result.correct = true;
  result.best_node = state->record(*best).name;
  result.best_time_s = state->tree.node(*best).time_s;
  for (BaselineResult& baseline : result.baselines) {
    if (baseline.time_s && *result.best_time_s > 0) baseline.speedup = *baseline.time_s / *result.best_time_s;
  }
  return result;
}

std::vector<GroupSummary> SummarizeGroups(const std::vector<ProblemResult>& problems) {
  std::set<std::string> levels;
  for (const ProblemResult& result : problems) levels.insert(result.problem.level);
  std::vector<GroupSummary> groups;
  for (const std::string& level : levels) {
    std::vector<const ProblemResult*> members;
    for (const ProblemResult& result : problems) {
      if (result.problem.level == level) members.push_back(&result);
    }
    groups.push_back(Summarize(level, members));
  }
  std::vector<const ProblemResult*> all;
  for (const ProblemResult& result : problems) all.push_back(&result);
  groups.push_back(Summarize("all", all));
  return groups;
}

std::optional<int64_t> ProblemRun(const std::string& problem_workspace) {
  Result<int64_t> run = LatestOptimizeRun(problem_workspace);
  if (!run.ok()) return std::nullopt;
  return *run;
}

Result<SuiteReport> CollectSuiteReport(const SuiteState& state, const std::vector<std::string>& running) {
  SuiteReport report;
  report.name = state.manifest.name;
  report.directory = state.directory;
  report.optimize_arguments = state.manifest.optimize_arguments;
  for (const SuiteProblem& problem : state.manifest.problems) {
    std::string workspace = ProblemWorkspace(state.directory, problem.key);
    auto journal = state.journal.find(problem.key);
    const ProblemJournal* entry = journal == state.journal.end() ? nullptr : &journal->second;
    std::optional<RunState> run_state;
    if (std::optional<int64_t> run = ProblemRun(workspace)) {
      Result<RunState> loaded = LoadRunState(workspace, *run);
      if (!loaded.ok()) return loaded.status().WithContext("problem " + problem.key);
      run_state = std::move(*loaded);
    }
    ProblemResult result = MakeProblemResult(problem, entry, run_state ? &*run_state : nullptr,
                                             ReadBaselinesDocument(workspace, problem.task_directory));
    if (std::find(running.begin(), running.end(), problem.key) != running.end())
      result.outcome = ProblemOutcome::kRunning;
    report.problems.push_back(std::move(result));
  }
  report.groups = SummarizeGroups(report.problems);
  return report;
}

}  // namespace kopt::suite
