// `kopt optimize`: the closed loop (docs/optimize.md). Joins the benchmarking
// agent (the reference measured and profiled once), the search policy
// (search/search_policy.h), the programmer agent (agents/candidate_generator.h),
// the measurement engine (measure/measure.h: compile, verify, time, energy in
// an isolated kopt-runner child) and the profiling agent (a verified node is
// profiled and diagnosed, lazily, before its first optimize child; its
// children are shown the feedback), with the search memory
// (store/search_memory.h) and the budget.
//
// One evaluation of a node: the policy proposes (parent, mode) → the
// generator writes a candidate (initial / repair with the parent's failure /
// optimize with the parent's feedback and memory notes) → a transposition
// (same normalized source as an earlier node) becomes a duplicate, not a
// second measurement → MeasureSession::MeasureCandidate → the verdict becomes
// the node's Evaluation: ok → verified; faster than the roofline floor →
// rejected (never the best; its children are repairs told why); compile /
// check / run failures → failed with the text a repair is given.
//
// Persistence: the run state (search/run_state.h) is saved after every step
// that changes it, as one appended line of what changed
// (search/run_state_store.h: runs/<run>/optimize.journal beside the
// snapshot runs/<run>/optimize.json; a finished run is the snapshot alone);
// sources go to the workspace's
// candidates/ as soon as they are generated. After a kill -9, Resume
// continues the same tree: a pending node whose source was stored is
// measured (a measurement completed before the kill is adopted from the
// workspace, never counted twice); one without a source is generated again.
//
// Stops: the budget (optimize_settings.h), the policy exhausted, the
// generator exhausted, or a pause: the generator's endpoint unavailable
// (status kPaused, resumable). Errors: InvalidInput / NotFound for bad
// settings, task, seeds or workspace; WorkFailed when the reference fails
// (nothing to optimize); a pause is an OK result with status kPaused.
//
// Several devices: one worker per CUDA ordinal, each with its own
// MeasureSession; the tree, the policy and the state are guarded by one mutex;
// generation, compilation and measurement run outside it. With one device the
// run is deterministic given --seed and a deterministic generator.
//
// Thread safety: Run from one thread; it starts the workers itself.
#pragma once

#include <functional>
#include <string>

#include "agents/candidate_generator.h"
#include "agents/explanation_feedback.h"
#include "analysis/diagnosis.h"
#include "core/status.h"
#include "measure/candidate_profiler.h"
#include "measure/measure.h"
#include "optimize/optimize_settings.h"
#include "search/run_state.h"

namespace kopt {

// One line of progress: emitted after each recorded node.
struct OptimizeProgress {
  const RunState* state = nullptr;  // valid during the call only
  NodeId node = 0;
  int64_t max_evaluations = 0;  // 0: no evaluation limit
};

struct OptimizeEnvironment {
  MeasureEnvironment measure;                       // command runner, GPU query, runner program
  agents::CandidateGenerator* generator = nullptr;  // borrowed, required
  // Makes the profiler once the architecture is known (the first session
  // resolved it); empty: no profiling. An error becomes a note, not a stop.
  std::function<Result<std::unique_ptr<CandidateProfiler>>(const std::string& architecture)> make_profiler;
  // The semantic feedback of a diagnosis (report/feedback_renderer.h) and the
  // raw metric table of a profile: app/ supplies them (report/ is above).
  std::function<std::string(const Diagnosis&)> render_feedback;
  std::function<std::string(const Profile&)> render_raw_metrics;
  // The checked narrative of a profiled node (--feedback explanation and
  // diagnosis+explanation), called outside the run's lock; its usage is added
  // to the run's. Unset under an explanation mode: the feedback says so.
  std::function<agents::ProfileExplanation(const Profile&, const Diagnosis&, const agents::ExplainedSource&)>
      explain_profile;
  // The profile diff of a node against its parent (both profiled), for its
  // optimize children's prompt and the report; unset: none is made.
  std::function<std::string(const Profile& parent, const Profile& node)> render_change;
  std::function<void(const OptimizeProgress&)> progress;  // may be empty
  std::function<double()> now_seconds;  // monotonic clock (s); empty: std::chrono::steady_clock
};

// Runs (or with settings.resume_run, continues) a run. The returned state is
// also in the workspace; the best candidate is written to runs/<run>/best.cu.
Result<RunState> RunOptimization(const OptimizeSettings& settings, const OptimizeEnvironment& environment);

// Reads runs/<run>/optimize.json and its journal of the workspace at
// `workspace_directory` (`kopt report RUN`; search/run_state_store.h).
// NotFound when the run has no optimize state; InvalidInput naming the file
// for a corrupted one.
Result<RunState> LoadRunState(const std::string& workspace_directory, int64_t run_id);

// The newest run of the workspace that has an optimize state (`kopt report`
// without a run id). NotFound when there is none.
Result<int64_t> LatestOptimizeRun(const std::string& workspace_directory);

}  // namespace kopt
