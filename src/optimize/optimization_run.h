// One `kopt optimize` run as an object (optimization_loop.h is its entry
// point), shared by the files that define its steps:
//  - optimization_run.cc: opening the run (workspace, state, resume, the
//    measure sessions per device, the policy), the reference and seeds, the
//    workers per device, the budget, persisting and the end of the run;
//  - node_evaluation.cc: one node evaluated (the generation request, the
//    generator's answer, the transposition check, the measurement, the
//    verdict as an Evaluation, recording it);
//  - node_feedback.cc: what the generator is shown (a parent profiled
//    lazily, its diagnosis, explanation and energy prediction) and the
//    search memory's notes.
// Internal to optimize/ (namespace kopt::optimize_run).
//
// Threads: one worker per device; the members are guarded by mutex_, and a
// method taking `std::unique_lock&` expects it held (it may release it
// around slow work: generating, measuring, profiling).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/interrupt.h"
#include "optimize/change_summary.h"
#include "optimize/node_energy.h"
#include "optimize/optimization_loop.h"
#include "search/run_state_store.h"
#include "store/search_memory.h"
#include "store/workspace.h"

namespace kopt::optimize_run {

constexpr size_t kRepairTextLimit = 6000;  // characters of compiler / failure text a repair is shown
constexpr size_t kMemoryNoteBytes = 1500;  // search-memory notes per generation
constexpr int kExhaustedInARow = 3;        // generator "nothing left" answers that end a run

// Seconds on the steady clock.
double SteadySeconds();

// `text`, cut to `limit` characters with a note of how many were cut.
std::string Bounded(const std::string& text, size_t limit);

// "12.5 µs": a time for the generator and the memory notes.
std::string FormatSeconds(double seconds);

// The node's evaluation from its measurement; `record` gets the verdict's text.
Evaluation EvaluationOf(const MeasurementEntry& entry, bool energy_asked, NodeRecord& record);

class OptimizationRun {
 public:
  OptimizationRun(const OptimizeSettings& settings, const OptimizeEnvironment& environment)
      : settings_(settings), environment_(environment) {}

  Status Open();
  Result<RunState> Run();

 private:
  // Everything below that takes `std::unique_lock&` expects it held.
  Status OpenSessions();
  Status MeasureReference();
  Status EvaluateSeeds();
  void Worker(size_t device_index);
  Status EvaluateNode(NodeId node, size_t device_index, std::unique_lock<std::mutex>& lock,
                      std::optional<agents::GeneratedCandidate> given);
  Status MeasureSource(NodeId node, size_t device_index, const std::string& source,
                       std::unique_lock<std::mutex>& lock);
  void ProfileNode(NodeId node, size_t device_index, std::unique_lock<std::mutex>& lock);
  void PredictEnergyOf(NodeId node, const Profile& profile);
  void ProfileForEnergy(NodeId node, size_t device_index, std::unique_lock<std::mutex>& lock);
  agents::GenerationRequest BuildRequest(NodeId node) const;
  void RecordGeneration(NodeId node, const agents::GeneratedCandidate& candidate);
  void Finish(NodeId node, const Evaluation& evaluation);
  void RememberOutcome(NodeId node);
  void RememberApiPattern(NodeId node, const std::optional<SourceChange>& diff);
  // The explanation's tokens and dollars into the run's usage (under the lock).
  void CountExplanationUsage(const agents::ProfileExplanation& explanation);
  // What a profiled node's optimize children are shown, by --feedback.
  std::string FeedbackText(const Profile& profile, const Diagnosis* diagnosis,
                           const agents::ProfileExplanation* explanation) const;
  std::optional<std::string> BudgetStop(int64_t in_flight) const;
  std::string SourceOf(NodeId node) const;
  Status StoreSource(NodeId node, const std::string& source);
  void WriteNodeArtifact(NodeId node, const std::string& file, const std::string& text);
  Status Persist();
  Status PersistWhole();  // the end of a run: the snapshot alone, no journal to replay
  void Report(NodeId node);
  void Stop(RunStatus status, std::string reason);
  double Now() const { return environment_.now_seconds ? environment_.now_seconds() : SteadySeconds(); }
  std::string ClassFor(NodeId node) const;

  const OptimizeSettings& settings_;
  const OptimizeEnvironment& environment_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<RunStateStore> store_;            // runs/<run>/optimize.json + optimize.journal
  std::unique_ptr<InterruptCleanup> on_interrupt_;  // marks the run interrupted (core/interrupt.h)
  std::unique_ptr<SearchMemory> memory_;
  std::unique_ptr<SearchPolicy> policy_;
  std::vector<std::unique_ptr<MeasureSession>> sessions_;
  std::unique_ptr<CandidateProfiler> profiler_;
  EnergyPredictor energy_predictor_{settings_.energy_model_path};
  EnergyPredictor feedback_energy_{settings_.energy_model_path};  // the coefficients the diagnoses use
  // The profiles this process collected, by node: the parent side of a node's change_text.
  std::map<NodeId, std::shared_ptr<const Profile>> profiles_;
  RunState state_;
  std::map<NodeId, std::string> sources_;  // node → source (cache of candidates/<hash>.cu)
  std::string reference_source_;
  std::string entry_point_;
  double started_at_ = 0;
  double wall_before_ = 0;  // wall seconds of earlier (resumed) parts of the run
  int64_t in_flight_ = 0;
  int exhausted_in_a_row_ = 0;
  bool stopping_ = false;
  Status worker_error_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace kopt::optimize_run
