// MeasureSession's kopt-runner children (measure_session_impl.h): the
// reference and the candidates run, resumed from the store or from the
// reference-output cache, their outputs received through channel memory, a
// pulled channel or the pipe, a candidate below the roofline floor measured
// again, the reference re-timed at the end, the report concluded.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "measure/bench_verdict.h"
#include "measure/measure_session_impl.h"

namespace kopt {
namespace {

using nlohmann::json;

// Copies a child's events and verdict into an entry.
void ApplyChildRun(const ChildRun& run, MeasurementEntry& entry) {
  switch (run.outcome.status) {
    case ChildOutcome::Status::kOk: entry.status = MeasureStatus::kOk; break;
    case ChildOutcome::Status::kFailed: entry.status = MeasureStatus::kFailed; break;
    case ChildOutcome::Status::kHarnessError: entry.status = MeasureStatus::kHarnessError; break;
  }
  entry.failure = run.outcome.kind;
  entry.message = run.outcome.message;
  entry.detail = run.outcome.detail;
  entry.measure_seconds = run.seconds;
  entry.phases = run.phases;
  entry.timing = run.events.timing;
  entry.energy = run.events.energy;
  entry.checks_total = run.events.checks.size();
  entry.checks_passed =
      static_cast<size_t>(std::count_if(run.events.checks.begin(), run.events.checks.end(),
                                        [](const runner::CheckEvent& c) { return c.passed; }));
  if (!entry.ok()) entry.timing.reset();  // a failed candidate has no speed
}

}  // namespace

// Faults in a candidate child's channel size (the bytes its request implies)
// on a thread of its own; joined before the first candidate child.
void MeasureSession::Impl::StartPrefault() {
  if (prefault_.joinable() || items_.size() < 2) return;
  if (UseChannelMemory()) {
    channel_memory_.Prepare(CandidateChannelBytes());
    if (channel_memory_.available()) return;
  }
  size_t bytes = CandidateChannelBytes();
  if (bytes <= channel_spare_.capacity()) return;
  const bool keep_bytes = UsePull();
  prefault_ = std::thread([this, bytes, keep_bytes] {
    channel_spare_.reserve(bytes);
    AdviseHugePages(channel_spare_.data(),
                    bytes);        // fewer faults now, fewer TLB misses while the channel arrives
    channel_spare_.resize(bytes);  // writes every page once
    // The capacity and its pages stay; a pulled channel is copied into the bytes themselves.
    if (!keep_bytes) channel_spare_.clear();
  });
}

// The bytes a candidate child's channel carries (its request's outputs); 0 when unknown.
size_t MeasureSession::Impl::CandidateChannelBytes() {
  if (items_.empty() || !items_[0]->compile || !items_[0]->compile->ok()) return 0;
  RunnerRequestOptions options;
  options.check = true;
  options.energy = false;
  options.role = runner::RunnerRole::kCandidate;
  runner::RunnerRequest request =
      BuildRunnerRequest(settings_, plan_, "candidate.so", items_[0]->compile->value().library_path, options);
  return ExpectedOutputBytes(request, l2_bytes_);
}

Result<bool> MeasureSession::Impl::TryResume(Item& item, const MeasurementKey& key) {
  KOPT_ASSIGN_OR_RETURN(std::optional<StoredMeasurement> stored, workspace_->FindCompleteMeasurement(key));
  if (!stored) return false;
  Result<ChildRun> run = ChildRunFromStored(stored->events);
  if (!run.ok()) {
    report_.notes.push_back(item.entry.name + ": stored result of run " + std::to_string(stored->run_id) +
                            " unreadable (" + run.status().message() + "); measured again");
    return false;
  }
  ApplyChildRun(*run, item.entry);
  item.entry.resumed_from_run = stored->run_id;
  return true;
}

// A candidate child's output channel: fresh channel memory (the next
// candidates' prepared while this one runs), else the reused spare storage,
// pulled or through the pipe. True when it got channel memory.
bool MeasureSession::Impl::ConnectCandidateChannel(const Item& item, RunnerClient& client) {
  JoinPrefault();
  if (UseChannelMemory()) {
    size_t channel_bytes = CandidateChannelBytes();
    size_t waiting = 0;
    bool after = false;
    for (const auto& other : items_) {
      if (other.get() == &item)
        after = true;
      else if (after && other->entry.role == EntryRole::kCandidate && !other->measured)
        ++waiting;
    }
    double waited = 0;
    Result<ChannelMemory> memory = channel_bytes > 0 ? channel_memory_.Take(channel_bytes, waiting, &waited)
                                                     : Result<ChannelMemory>(NotFound("no channel size"));
    if (memory.ok()) {
      client.set_channel_memory(std::move(memory).value(), waited);
      return true;
    }
    if (memory.status().kind() != ErrorKind::kUnavailable && memory.status().kind() != ErrorKind::kNotFound) {
      report_.notes.push_back(item.entry.name + ": outputs sent through the pipe (" +
                              memory.status().message() + ")");
    }
  }
  client.set_channel_storage(&channel_spare_);
  client.set_channel_pull(UsePull());
  return false;
}

// After a candidate child: its channel memory freed off this thread, or the
// spare storage taken back (capacity and pages stay; a pipe is appended to
// them, a pulled channel is copied into the bytes themselves, which stay: the
// next child's channel overwrites them, nothing is zeroed again).
void MeasureSession::Impl::ReleaseCandidateChannel(ChildRun& run, bool with_memory) {
  if (with_memory) {
    channel_memory_.Release(std::make_shared<OutputFrames>(std::move(run.frames)));
    return;
  }
  channel_spare_ = run.frames.ReleaseChannel();
  if (!UsePull()) channel_spare_.clear();
  if (run.pull_refused) {
    pull_refused_ = true;
    report_.notes.push_back("outputs sent through the pipe: " + run.pull_refused_message);
  }
}

Status MeasureSession::Impl::Run(Item& item, const ChildPlan& child) {
  const std::string role(EntryRoleName(child.role));
  MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash, role};
  if (child.resume && !settings_.rerun && !gpu_.empty()) {
    KOPT_ASSIGN_OR_RETURN(bool resumed, TryResume(item, key));
    if (resumed) return Status::Ok();
  }
  bool is_reference = child.role != EntryRole::kCandidate;
  if (child.role == EntryRole::kReference && !have_expected_ && UseCachedReference(item)) return Status::Ok();
  const CompileResult& reference = items_[0]->compile->value();
  RunnerRequestOptions request_options;
  request_options.check = child.check;
  request_options.timing = child.timing;
  request_options.energy = child.timing && child.energy;
  request_options.role = is_reference ? runner::RunnerRole::kReference : runner::RunnerRole::kCandidate;
  runner::RunnerRequest request = BuildRunnerRequest(settings_, plan_, item.compile->value().library_path,
                                                     reference.library_path, request_options);
  ChildExpectations expected;
  expected.check_rounds = child.check ? plan_.seeds.size() + plan_.task.variants.size() : 0;
  expected.timing = child.timing;
  expected.energy = child.timing && child.energy;
  expected.timeout_seconds = settings_.timeout_seconds;
  expected.l2_bytes = l2_bytes_;
  if (!is_reference) expected.floor_seconds = FloorSeconds();
  // The first reference child computes the expected outputs; later children
  // (candidates, the reference re-timed at the end) are judged against them.
  if (!is_reference && !have_expected_) {
    // The reference was resumed from the store (no outputs kept): its child runs now for them.
    Item again = *items_[0];
    ChildPlan reference_child;
    reference_child.role = EntryRole::kReference;
    reference_child.check = true;
    reference_child.timing = child.timing;
    reference_child.energy = false;
    reference_child.resume = false;
    KOPT_RETURN_IF_ERROR(Run(again, reference_child));
    if (!have_expected_) return Internal("kopt bug: no expected outputs after measuring the reference");
  }
  const OutputFrames* expected_frames = have_expected_ ? &expected_frames_ : nullptr;
  RunnerClient client(*environment_.command_runner, plan_.runner_program, *workspace_, report_.run_id,
                      settings_.timeout_seconds);
  bool with_memory = false;
  if (child.role == EntryRole::kCandidate) {
    with_memory = ConnectCandidateChannel(item, client);
  } else if (child.role == EntryRole::kReference && !have_expected_) {
    StartPrefault();
  }
  Progress("measuring " + item.entry.name);
  std::string artifact_stem = child.role == EntryRole::kCandidate ? item.entry.name + ".candidate" : role;
  KOPT_ASSIGN_OR_RETURN(ChildRun run, client.Run(request, artifact_stem, key, expected, expected_frames));
  if (child.role == EntryRole::kCandidate) ReleaseCandidateChannel(run, with_memory);
  if (gpu_.empty() && !key.gpu.empty()) {
    gpu_ = key.gpu;
    KOPT_RETURN_IF_ERROR(workspace_->SetRunGpu(report_.run_id, gpu_));
  }
  const bool first_reference = child.role == EntryRole::kReference && !have_expected_;
  if (first_reference) {
    expected_frames_ = std::move(run.frames);
    have_expected_ = true;
    if (run.events.device) l2_bytes_ = run.events.device->l2_bytes;
  }
  ApplyChildRun(run, item.entry);
  if (first_reference && child.check && child.timing == settings_.time) StoreReferenceInCache(item);
  item.entry.resumed_from_run.reset();
  if (run.below_floor) return RemeasureBelowFloor(item, run);
  return Status::Ok();
}

// The expected outputs, seeds and reference measurement from the cache
// entry found at Begin; false (the child runs) when there is none or its
// events are not in the workspace any more.
bool MeasureSession::Impl::UseCachedReference(Item& item) {
  if (!cached_reference_) return false;
  CachedReference cached = std::move(*cached_reference_);
  cached_reference_.reset();
  MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash,
                     std::string(EntryRoleName(EntryRole::kReference))};
  Result<std::vector<StoredEvent>> events = workspace_->MeasurementEvents(cached.run_id, key);
  Result<ChildRun> run = events.ok() ? ChildRunFromStored(*events) : Result<ChildRun>(events.status());
  if (!run.ok() || run->outcome.status != ChildOutcome::Status::kOk) {
    report_.notes.push_back("reference cache: the measurement of run " + std::to_string(cached.run_id) +
                            " is not in the workspace (" +
                            (run.ok() ? std::string("it did not pass") : run.status().message()) +
                            "); the reference runs now");
    return false;
  }
  ApplyChildRun(*run, item.entry);
  item.entry.resumed_from_run = cached.run_id;
  expected_frames_ = std::move(cached.frames);
  have_expected_ = true;
  reference_from_cache_ = true;
  if (run->events.device) l2_bytes_ = run->events.device->l2_bytes;
  report_.notes.push_back("reference: expected outputs, seeds and timing from the reference cache (run " +
                          std::to_string(cached.run_id) +
                          "); not re-timed at the end (--reference-cache off measures it now)");
  return true;
}

void MeasureSession::Impl::StoreReferenceInCache(const Item& item) {
  if (reference_cache_key_.empty() || !item.entry.ok()) return;
  Status stored = StoreCachedReference(workspace_->directory(), reference_cache_key_, report_.run_id,
                                       plan_.seeds, expected_frames_);
  if (!stored.ok()) report_.notes.push_back(stored.message());
}

// A candidate timed below the floor is measured again with fresh input
// values (new timed sets and a new round after timing, their expected outputs
// from a new reference child); still below it, it is rejected
// (suspect_fast), never reported as a speedup.
Status MeasureSession::Impl::RemeasureBelowFloor(Item& item, const ChildRun& first) {
  MeasurePlan fresh = plan_;
  std::random_device random;
  fresh.seeds = {(static_cast<uint64_t>(random()) << 20) ^ random()};
  const CompileResult& reference = items_[0]->compile->value();
  auto run_child = [&](runner::RunnerRole role, const std::string& stem, const OutputFrames* expected_frames,
                       ChildExpectations expected) -> Result<ChildRun> {
    RunnerRequestOptions request_options;
    request_options.check = false;
    request_options.energy = false;
    request_options.role = role;
    runner::RunnerRequest request = BuildRunnerRequest(settings_, fresh, item.compile->value().library_path,
                                                       reference.library_path, request_options);
    MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash, stem};
    RunnerClient client(*environment_.command_runner, plan_.runner_program, *workspace_, report_.run_id,
                        settings_.timeout_seconds);
    return client.Run(request, item.entry.name + "." + stem, key, expected, expected_frames);
  };
  ChildExpectations expected;
  expected.timing = true;
  expected.timeout_seconds = settings_.timeout_seconds;
  expected.l2_bytes = l2_bytes_;
  KOPT_ASSIGN_OR_RETURN(ChildRun reference_run,
                        run_child(runner::RunnerRole::kReference, "floor_reference", nullptr, expected));
  if (reference_run.outcome.status != ChildOutcome::Status::kOk) {
    item.entry.status = MeasureStatus::kHarnessError;
    item.entry.failure.reset();
    item.entry.message = "timed below the roofline floor, and the reference failed when measured again: " +
                         reference_run.outcome.message;
    item.entry.timing.reset();
    return Status::Ok();
  }
  expected.floor_seconds = FloorSeconds();
  expected.floor_is_final = true;
  KOPT_ASSIGN_OR_RETURN(ChildRun again, run_child(runner::RunnerRole::kCandidate, "floor_recheck",
                                                  &reference_run.frames, expected));
  ApplyChildRun(again, item.entry);
  item.entry.checks_total = first.events.checks.size();
  item.entry.checks_passed = first.events.checks.size();
  if (again.outcome.kind == FailureKind::kSuspectFast) {
    // The verdict for later runs: the candidate's key gets the rejection.
    MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash,
                       std::string(EntryRoleName(EntryRole::kCandidate))};
    KOPT_RETURN_IF_ERROR(workspace_->RecordOutcome(
        report_.run_id, key, OutcomeToJson(again.outcome, again.end, again.seconds), true));
  }
  return Status::Ok();
}

double MeasureSession::Impl::FloorSeconds() const {
  const GpuSpec* spec = Spec();
  return spec ? TaskFloorSeconds(plan_.task, *spec) : 0;
}

// True when no candidate needs the GPU: each has a stored result or does not
// compile. Waits only for the compiles of candidates without a stored result,
// and stops at the first one that compiles (the usual fresh run).
bool MeasureSession::Impl::AllCandidatesStored() {
  if (settings_.rerun || gpu_.empty()) return false;
  for (size_t index = 1; index < items_.size(); ++index) {
    MeasurementKey key{items_[index]->entry.hash, gpu_, report_.settings_hash,
                       std::string(EntryRoleName(EntryRole::kCandidate))};
    auto stored = workspace_->FindCompleteMeasurement(key);
    if (stored.ok() && stored->has_value()) continue;
    if (WaitForCompile(index).entry.status == MeasureStatus::kPending) return false;
  }
  return true;
}

Result<MeasurementEntry> MeasureSession::Impl::MeasureReference() {
  Item& reference = WaitForCompile(0);
  if (reference_ok_ || settings_.compile_only) return reference.entry;
  if (!reference.compile->ok()) return reference.compile->status().WithContext("compiling the reference");
  if (reference.entry.status == MeasureStatus::kFailed) {
    reference_ok_ = false;
    return reference.entry;
  }
  // With every candidate stored, the stored reference is their baseline too.
  ChildPlan child;
  child.role = EntryRole::kReference;
  child.timing = settings_.time;
  child.energy = settings_.energy;
  child.resume = AllCandidatesStored();
  KOPT_RETURN_IF_ERROR(Run(reference, child));
  reference_ok_ = reference.entry.ok();
  Conclude(reference.entry);
  return reference.entry;
}

const GpuSpec* MeasureSession::Impl::Spec() const {
  return plan_.live_gpu ? &*plan_.live_gpu : FindGpu(gpu_);
}

// The speedup against the reference and the suspect flag.
void MeasureSession::Impl::Conclude(MeasurementEntry& entry) {
  if (!entry.timing) return;
  double floor_seconds = FloorSeconds();
  const MeasurementEntry& reference = items_[0]->entry;
  double reference_median = reference.timing ? reference.timing->median_s : 0;
  entry.speedup = Speedup(reference_median, entry.timing->median_s);
  entry.suspect_fast = IsSuspectFast(entry.timing->median_s, floor_seconds);
}

Status MeasureSession::Impl::MeasureCandidate(Item& item) {
  item.measured = true;
  if (item.entry.status != MeasureStatus::kPending)
    return Status::Ok();  // failed to compile: reported as such
  if (settings_.compile_only) {
    item.entry.status = MeasureStatus::kCompiled;
    return Status::Ok();
  }
  if (!*reference_ok_) {
    item.entry.status = MeasureStatus::kSkipped;
    item.entry.message = "not measured: the reference failed";
    return Status::Ok();
  }
  ChildPlan child;
  child.role = EntryRole::kCandidate;
  child.timing = settings_.time;
  child.energy = settings_.energy;
  KOPT_RETURN_IF_ERROR(Run(item, child));
  if (!item.entry.resumed_from_run) measured_fresh_ = true;
  Conclude(item.entry);
  return Status::Ok();
}

// In the order their compiles finish, so the GPU never waits on a slow compile.
Result<std::vector<MeasurementEntry>> MeasureSession::Impl::MeasurePending(size_t first) {
  if (finished_) return Internal("MeasureSession: MeasurePending after Finish");
  if (settings_.compile_only) {
    for (size_t index = 0; index < items_.size(); ++index) {
      Item& item = WaitForCompile(index);
      if (index == 0 && item.entry.status == MeasureStatus::kPending)
        item.entry.status = MeasureStatus::kCompiled;
      if (index > 0 && !item.measured) KOPT_RETURN_IF_ERROR(MeasureCandidate(item));
    }
  } else {
    KOPT_RETURN_IF_ERROR(MeasureReference().status());
    if (!*reference_ok_) {
      for (size_t index = 1; index < items_.size(); ++index) {
        Item& item = WaitForCompile(index);
        if (!item.measured) KOPT_RETURN_IF_ERROR(MeasureCandidate(item));
      }
    } else {
      auto measure_ready = [&]() -> Status {
        for (size_t index = 1; index < items_.size(); ++index) {
          if (!items_[index]->compiled || items_[index]->measured) continue;
          KOPT_RETURN_IF_ERROR(MeasureCandidate(*items_[index]));
          ++done_;
        }
        return Status::Ok();
      };
      auto pending = [&] {
        return std::any_of(items_.begin() + 1, items_.end(),
                           [](const auto& item) { return !item->measured; });
      };
      KOPT_RETURN_IF_ERROR(measure_ready());
      while (pending()) {
        TakeCompletion();
        KOPT_RETURN_IF_ERROR(measure_ready());
      }
    }
  }
  std::vector<MeasurementEntry> entries;
  for (size_t index = std::max<size_t>(first, 1); index < items_.size(); ++index) {
    entries.push_back(items_[index]->entry);
  }
  return entries;
}

Status MeasureSession::Impl::RetimeReference() {
  if (!settings_.time || !measured_fresh_ || reference_from_cache_) return Status::Ok();
  if (bridge_reference_) {
    report_.notes.push_back(
        "reference (the PyTorch bridge of an imported KernelBench task): not re-timed at the end; its time "
        "is "
        "the bridge's host copies around PyTorch, not a kernel's, so a drift figure would say nothing about "
        "the GPU (the speedup as KernelBench reports it is against PyTorch eager, timed on its own)");
    return Status::Ok();
  }
  Item again = *items_[0];
  again.entry.role = EntryRole::kReferenceAgain;
  again.entry.name = "reference (end)";
  again.entry.status = MeasureStatus::kPending;
  again.entry.speedup.reset();  // the end re-timing is not compared with itself
  again.entry.suspect_fast = false;
  ChildPlan child;
  child.role = EntryRole::kReferenceAgain;
  child.check = false;
  child.timing = true;
  child.energy = false;
  child.resume = false;
  KOPT_RETURN_IF_ERROR(Run(again, child));
  report_.reference_end = again.entry;
  const MeasurementEntry& reference = items_[0]->entry;
  if (reference.timing && again.entry.timing && reference.timing->median_s > 0) {
    report_.reference_drift = again.entry.timing->median_s / reference.timing->median_s - 1;
  }
  return Status::Ok();
}

Result<MeasurementReport> MeasureSession::Impl::Finish() {
  if (finished_) return Internal("MeasureSession: Finish called twice");
  KOPT_RETURN_IF_ERROR(MeasurePending(items_.size()).status());
  if (reference_ok_.value_or(false)) KOPT_RETURN_IF_ERROR(RetimeReference());
  finished_ = true;
  report_.gpu = gpu_;
  const GpuSpec* spec = Spec();
  report_.floor_seconds = FloorSeconds();
  if (!gpu_.empty() && !spec) {
    report_.notes.push_back("GPU '" + gpu_ +
                            "' is not in kopt's spec table: no roofline floor, no suspect check");
  }
  for (const auto& item : items_) Conclude(item->entry);
  report_.reference = items_[0]->entry;
  for (size_t index = 1; index < items_.size(); ++index) report_.candidates.push_back(items_[index]->entry);
  size_t ok = 0;
  for (const MeasurementEntry& entry : report_.candidates) ok += entry.ok() ? 1 : 0;
  json summary = {{"candidates", report_.candidates.size()},
                  {"ok", ok},
                  {"reference_status", MeasureStatusName(report_.reference.status)}};
  // Interrupted meanwhile: the handler marks the run interrupted; the failures of killed children are
  // not this run's results.
  if (InterruptRequested()) AwaitInterruptExit();
  on_interrupt_.reset();
  Status finished = workspace_->FinishRun(report_.run_id, CurrentTimeUtc(), summary);
  if (!finished.ok()) report_.notes.push_back(finished.message());
  return report_;
}

}  // namespace kopt
