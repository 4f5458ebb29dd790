// MeasureSession's state and steps (measure.h), shared by the files that
// define them: measure_session.cc (opening a session: the device, the
// workspace run, the compiles and their policy screen, the public methods)
// and measure_children.cc (the kopt-runner children: the reference and the
// candidates, resume from the store, the reference-output cache, the
// channel memory, the recheck below the roofline floor, the report).
// Internal to measure/.
//
// Threads: the session runs on one thread; compile callbacks run on the
// compiler pool's threads and touch only their own Item and the
// CompletionQueue.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/interrupt.h"
#include "harness/compiler.h"
#include "harness/parallel_compiler.h"
#include "measure/candidate_screen.h"
#include "measure/channel_memory_supply.h"
#include "measure/child_outcome.h"
#include "measure/measure.h"
#include "measure/measure_plan.h"
#include "measure/reference_cache.h"
#include "measure/runner_client.h"
#include "store/workspace.h"

namespace kopt {
namespace measure_session {

// Indices of finished compiles, handed from the compiler's threads to the session.
class CompletionQueue {
 public:
  void Push(size_t index) {
    {
      std::lock_guard lock(mutex_);
      done_.push_back(index);
    }
    ready_.notify_one();
  }
  size_t Pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !done_.empty(); });
    size_t index = done_.front();
    done_.pop_front();
    return index;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<size_t> done_;
};

// The reference (index 0) or a candidate, as the session tracks it. Held by
// pointer: a compile callback writes `compile` while the session adds items.
struct Item {
  MeasurementEntry entry;
  std::string source_path;
  std::optional<Result<CompileResult>> compile;  // set once its compile finished (pool thread)
  std::optional<CandidateScreen> screen;         // a compiled candidate's policy screen (pool thread)
  bool compiled = false;                         // its completion was taken (session thread)
  bool measured = false;                         // measured, skipped or reported (session thread)
};

// What a child run is for, instead of a row of bools.
struct ChildPlan {
  EntryRole role = EntryRole::kCandidate;
  bool check = true;   // correctness rounds
  bool timing = true;  // time it (settings.time for the first measurements)
  bool energy = false;
  bool resume = true;  // a stored complete result may stand in for it
};

}  // namespace measure_session

class MeasureSession::Impl {
 public:
  Impl(const MeasureSettings& settings, const MeasureEnvironment& environment, MeasurePlan plan,
       std::unique_ptr<Workspace> workspace)
      : settings_(settings),
        environment_(environment),
        plan_(std::move(plan)),
        workspace_(std::move(workspace)) {}
  // Compile callbacks use the members: the pool goes first.
  ~Impl() {
    pool_.reset();
    if (prefault_.joinable()) prefault_.join();
  }

  using Item = measure_session::Item;
  using ChildPlan = measure_session::ChildPlan;

  Status Begin(const std::string& task_directory);
  Status AddCandidates(const std::vector<CandidateSource>& candidates);
  void CompileAhead(const std::vector<std::string>& sources);
  Result<MeasurementEntry> MeasureReference();
  Result<std::vector<MeasurementEntry>> MeasurePending(size_t first);
  Result<MeasurementReport> Finish();
  size_t item_count() const { return items_.size(); }

  const MeasurePlan& plan() const { return plan_; }
  int64_t run_id() const { return report_.run_id; }

 private:
  void Submit(size_t index);
  // cuobjdump beside nvcc, else on PATH; "" when neither exists.
  std::string FindCuobjdump() const;
  void TakeCompletion();
  void RecordCompile(Item& item);
  Item& WaitForCompile(size_t index);
  Status MeasureCandidate(Item& item);
  Status RetimeReference();
  Status Run(Item& item, const ChildPlan& child);
  bool ConnectCandidateChannel(const Item& item, RunnerClient& client);
  void ReleaseCandidateChannel(ChildRun& run, bool with_memory);
  Status RemeasureBelowFloor(Item& item, const ChildRun& first);
  double FloorSeconds() const;
  Result<bool> TryResume(Item& item, const MeasurementKey& key);
  bool AllCandidatesStored();
  void Progress(const std::string& text);
  void Conclude(MeasurementEntry& entry);
  const GpuSpec* Spec() const;

  const MeasureSettings settings_;
  const MeasureEnvironment environment_;
  MeasurePlan plan_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<InterruptCleanup> on_interrupt_;  // marks the run interrupted (core/interrupt.h)
  MeasurementReport report_;
  std::vector<std::unique_ptr<Item>> items_;  // [0] the reference, then the candidates in order
  std::set<std::string> names_;
  std::unique_ptr<Compiler> compiler_;
  PolicyAllowance policy_allow_;  // the settings' and the task's
  std::string cuobjdump_;         // for the policy's SASS view; "" when not found
  std::unique_ptr<ParallelCompiler> pool_;
  std::set<std::string> compiled_ahead_;  // hashes sent to CompileAhead
  std::shared_ptr<std::atomic<size_t>> ahead_in_flight_ = std::make_shared<std::atomic<size_t>>(0);
  measure_session::CompletionQueue completions_;
  std::string gpu_;  // device name: live, else from the first child
  std::optional<bool> reference_ok_;
  bool measured_fresh_ = false;  // some candidate ran now (not from the store)
  bool finished_ = false;
  size_t done_ = 0;
  // The reference child's outputs for this run's seeds: the expected outputs
  // of every candidate child (computed once, kept in memory, never written
  // where a candidate could read them).
  OutputFrames expected_frames_;
  bool have_expected_ = false;
  int64_t l2_bytes_ = 0;  // from the reference child's device event
  // The reference-output cache (measure/reference_cache.h): the key when it
  // is used in this session ("" otherwise), the entry found at Begin, and
  // whether the expected outputs came from it.
  std::string reference_cache_key_;
  std::optional<CachedReference> cached_reference_;
  bool reference_from_cache_ = false;
  // The reference is an imported KernelBench task's PyTorch bridge
  // (kernelbench.json in the task directory): not re-timed at the end.
  bool bridge_reference_ = false;
  bool UseCachedReference(Item& item);
  void StoreReferenceInCache(const Item& item);
  // The memory candidate children receive their outputs into, reused from
  // child to child (CommandSpec::channel_storage): a large task's channel
  // (2.3 GB for KernelBench level1/88) is otherwise page-faulted anew for
  // every candidate, at about 1.3 GB/s on the H200's host. Faulted in by
  // prefault_ while the reference child runs.
  std::string channel_spare_;
  // With settings_.output_channel kMemory: candidate children write into
  // channel memory instead (core/channel_memory.h), fresh for each, prepared
  // while the reference child or the previous candidate runs.
  ChannelMemorySupply channel_memory_;
  // With settings_.output_channel kPull: set once the kernel refused a pull (the pipe from then on).
  bool pull_refused_ = false;
  bool UsePull() const {
    return settings_.output_channel == MeasureSettings::OutputChannel::kPull && !pull_refused_;
  }
  size_t CandidateChannelBytes();
  bool UseChannelMemory() const {
    return settings_.output_channel == MeasureSettings::OutputChannel::kMemory && channel_memory_.available();
  }
  std::thread prefault_;
  void StartPrefault();
  void JoinPrefault() {
    if (prefault_.joinable()) prefault_.join();
  }
};

}  // namespace kopt
