// A suite's table (docs/suite.md "Report"): per problem, the best candidate
// against each baseline, its correctness, what it cost; per level and over
// the suite, KernelBench's fast_p, the geometric mean speedup and coverage.
//
// Baselines are columns, in this order: eager PyTorch, PyTorch with TF32
// allowed, torch.compile (default mode), then the task's own reference (for
// an imported KernelBench task: the bridge, never the headline). The first
// three come from a `kopt.baselines` document (harness/task_baselines.h)
// beside the problem's run: PROBLEM_WORKSPACE/baselines.json, else
// TASK_DIRECTORY/baselines.json, timed by kopt's
// protocol on the GPU the run used. A baseline absent there is a column that
// says "not measured" (JSON: null with a note), never a guess.
//
// Definitions (units: speedups are ratios baseline time / candidate time):
// - correct: the run verified at least one candidate (the best is not the
//   reference itself);
// - speedup against a baseline: baseline time / best candidate time, for a
//   correct problem with that baseline measured;
// - fast_p (KernelBench): the fraction of ALL the problems of the group
//   (pending and failed ones included) that are correct with speedup > p, for
//   p in {0, 1, 1.5, 2}; fast_0 is the fraction correct;
// - geomean: the geometric mean of the speedups of the correct problems of
//   the group that have the baseline (count given beside it);
// - coverage: problems whose optimize run finished, of all.
//
// Thread safety: values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "harness/task_baselines.h"
#include "search/run_state.h"
#include "suite/suite_state.h"

namespace kopt::suite {

enum class BaselineKind { kEager, kTf32, kTorchCompile, kReference };
inline constexpr std::array<BaselineKind, 4> kBaselineColumns = {
    BaselineKind::kEager, BaselineKind::kTf32, BaselineKind::kTorchCompile, BaselineKind::kReference};
// "eager", "tf32", "torch_compile", "reference" (the JSON names).
std::string_view BaselineName(BaselineKind kind);
// "eager", "TF32", "torch.compile", "reference" (column titles).
std::string_view BaselineTitle(BaselineKind kind);

inline constexpr std::array<double, 4> kFastThresholds = {0.0, 1.0, 1.5, 2.0};

// Where a problem stands.
enum class ProblemOutcome {
  kPending,   // not started
  kStarted,   // started and not ended: running under another driver, or its driver was killed (resumed next)
  kRunning,   // running now (only while a driver reports it)
  kFinished,  // its optimize run finished
  kFailed,    // its optimize process failed (reference failure, bad task, crash) or paused
};
// "pending", "started", "running", "finished", "failed".
std::string_view ProblemOutcomeName(ProblemOutcome outcome);

struct BaselineResult {
  BaselineKind kind = BaselineKind::kEager;
  std::optional<double> time_s;   // baseline kernel time, s
  std::optional<double> speedup;  // baseline time / best time (correct problems only)
  std::string note;               // why there is no time ("not measured", ...)
};

struct ProblemResult {
  SuiteProblem problem;
  ProblemOutcome outcome = ProblemOutcome::kPending;
  std::string detail;  // how it ended / why it failed / the run's stop reason
  std::optional<int64_t> run_id;
  int attempts = 0;
  bool correct = false;
  std::string best_node;  // "n6"; "" when not correct
  std::optional<double> best_time_s;
  std::vector<BaselineResult> baselines;  // kBaselineColumns order
  int64_t evaluations = 0;
  std::map<std::string, int64_t> verdicts;  // node status name → count (duplicates included)
  int64_t llm_tokens = 0;                   // input + output
  double llm_cost_usd = 0;
  bool llm_cost_known = true;
  double gpu_seconds = 0;   // kopt-runner children, s
  double wall_seconds = 0;  // the optimize run's wall time, s

  const BaselineResult& baseline(BaselineKind kind) const;
};

struct GroupSummary {
  std::string group;  // a level ("level1") or "all"
  int64_t problems = 0;
  int64_t finished = 0;
  int64_t failed = 0;
  int64_t correct = 0;
  // [column][threshold]: fast_p per baseline column, thresholds kFastThresholds.
  std::array<std::array<double, kFastThresholds.size()>, kBaselineColumns.size()> fast{};
  std::array<std::optional<double>, kBaselineColumns.size()> geomean{};
  std::array<int64_t, kBaselineColumns.size()> geomean_count{};
  std::array<int64_t, kBaselineColumns.size()> measured{};  // problems with that baseline's time
  int64_t llm_tokens = 0;
  double llm_cost_usd = 0;
  double gpu_seconds = 0;
};

struct SuiteReport {
  std::string name;
  std::string directory;
  std::vector<std::string> optimize_arguments;
  std::vector<ProblemResult> problems;  // the manifest's order
  std::vector<GroupSummary> groups;     // each level present, in name order, then "all"
};

// One problem's result from its run state (nullptr: no state yet) and the
// task's baselines (harness/task_baselines.h; read by the caller: none, or a
// document that could not be read, whose message becomes each column's note).
ProblemResult MakeProblemResult(const SuiteProblem& problem, const ProblemJournal* journal,
                                const RunState* state, const Result<std::optional<TaskBaselines>>& baselines);

// The groups of `problems` (levels, then "all").
std::vector<GroupSummary> SummarizeGroups(const std::vector<ProblemResult>& problems);

// Reads everything of a suite: its state, each problem's newest optimize run
// and baselines. `running` names problems a live driver reports as running.
Result<SuiteReport> CollectSuiteReport(const SuiteState& state, const std::vector<std::string>& running = {});

// The newest optimize run of a problem's workspace, if any.
std::optional<int64_t> ProblemRun(const std::string& problem_workspace);

}  // namespace kopt::suite
