#include "measure/measure.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/interrupt.h"
#include "core/quantity_format.h"
#include "core/sha256.h"
#include "harness/compiler.h"
#include "harness/parallel_compiler.h"
#include "measure/bench_verdict.h"
#include "measure/candidate_screen.h"
#include "measure/channel_memory_supply.h"
#include "measure/child_outcome.h"
#include "measure/measure_plan.h"
#include "measure/reference_cache.h"
#include "measure/runner_client.h"
#include "profile/ncu_collector.h"
#include "store/workspace.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The architecture used with compile_only when no GPU can be asked.
constexpr const char* kDefaultCompileOnlyArchitecture = "sm_90a";

Result<GpuSpec> SelectDevice(const std::vector<GpuSpec>& gpus, int device) {
  for (const GpuSpec& gpu : gpus) {
    if (gpu.device_index == device) return gpu;
  }
  std::string present;
  for (const GpuSpec& gpu : gpus) {
    present += (present.empty() ? "" : ", ") + std::to_string(gpu.device_index) + ": " + gpu.name;
  }
  return InvalidInput(fmt::format("--device {}: no such GPU on this machine (present: {})", device, present));
}

// Shapes that cannot fit: the candidate's and the reference's tensors, at the
// largest size checked, plus the L2 flush buffer.
Status CheckDeviceMemory(const TaskSpec& task, const GpuSpec& gpu) {
  double needed = 2.0 * static_cast<double>(task.PeakTensorBytes()) + gpu.l2_cache_bytes;
  if (gpu.dram_capacity_bytes <= 0 || needed <= gpu.dram_capacity_bytes) return Status::Ok();
  return InvalidInput(fmt::format(
      "task {}: its tensors need about {} of device memory (twice {}: the candidate's and the reference's, "
      "plus the {} L2 flush buffer), but GPU {} ({}) has {}; make the shapes in {}/task.toml smaller",
      task.name, FormatBytes(needed, QuantityStyle::kFixed),
      FormatBytes(static_cast<double>(task.PeakTensorBytes()), QuantityStyle::kFixed),
      FormatBytes(gpu.l2_cache_bytes, QuantityStyle::kFixed), gpu.device_index, gpu.name,
      FormatBytes(gpu.dram_capacity_bytes, QuantityStyle::kFixed), task.directory));
}

// The architecture and the device: settings.arch, else the GPU's compute capability.
Status ResolveDevice(const MeasureSettings& settings, const MeasureEnvironment& environment,
                     MeasurePlan& plan) {
  Result<std::vector<GpuSpec>> gpus =
      environment.query_gpus ? environment.query_gpus() : Unavailable("no GPU query available");
  if (gpus.ok()) {
    KOPT_ASSIGN_OR_RETURN(GpuSpec gpu, SelectDevice(*gpus, settings.device));
    KOPT_RETURN_IF_ERROR(CheckDeviceMemory(plan.task, gpu));
    plan.live_gpu = gpu;
  }
  plan.architecture = settings.arch;
  if (!plan.architecture.empty()) return Status::Ok();
  if (plan.live_gpu) {
    KOPT_ASSIGN_OR_RETURN(plan.architecture,
                          ArchitectureForComputeCapability(plan.live_gpu->compute_capability));
    return Status::Ok();
  }
  if (settings.compile_only) {
    plan.architecture = kDefaultCompileOnlyArchitecture;
    return Status::Ok();
  }
  return Unavailable("no NVIDIA GPU found (" + gpus.status().message() +
                     "). kopt bench runs every candidate on a GPU; to only compile them on this machine, use "
                     "--compile-only (with --arch, default " +
                     kDefaultCompileOnlyArchitecture + ")");
}

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

// The first line of compiler output that names an error, else its first line.
std::string FirstErrorLine(const std::string& output) {
  std::istringstream lines(output);
  std::string line, first;
  while (std::getline(lines, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first;
}

FailureKind CompileFailureKind(CompileOutcome outcome) {
  return outcome == CompileOutcome::kMissingEntryPoint ? FailureKind::kMissingEntryPoint
                                                       : FailureKind::kCompileError;
}

// What a child run is for, instead of a row of bools.
struct ChildPlan {
  EntryRole role = EntryRole::kCandidate;
  bool check = true;   // correctness rounds
  bool timing = true;  // time it (settings.time for the first measurements)
  bool energy = false;
  bool resume = true;  // a stored complete result may stand in for it
};

}  // namespace

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
  CompletionQueue completions_;
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
  Result<json> request =
      BuildRunnerRequest(settings_, plan_, "candidate.so", items_[0]->compile->value().library_path, options);
  if (!request.ok()) return 0;  // RunnerClient reports the same error when the child is built
  Result<runner::RunnerRequest> parsed = runner::RunnerRequestFromJson(*request, "runner request");
  if (!parsed.ok()) return 0;
  return ExpectedOutputBytes(*parsed, l2_bytes_);
}

Status MeasureSession::Impl::Begin(const std::string& task_directory) {
  CompilerOptions compiler_options;
  compiler_options.architecture = plan_.architecture;
  compiler_options.cache_directory = workspace_->directory() + "/compile-cache";
  compiler_options.extra_flags = IncludeFlags(settings_.include_directories);
  KOPT_ASSIGN_OR_RETURN(compiler_, Compiler::Create(*environment_.command_runner, compiler_options));
  report_.settings = MeasurementSettingsJson(settings_, plan_);
  report_.settings["compiler"] = {{"flags", compiler_->flags()},
                                  {"nvcc_version_sha256", Sha256Hex(compiler_->nvcc_version())}};
  report_.settings_hash = Sha256Hex(report_.settings.dump());
  bridge_reference_ = fs::exists(fs::path(task_directory) / "kernelbench.json");
  bool cache_wanted =
      settings_.reference_cache == MeasureSettings::ReferenceCache::kOn ||
      (settings_.reference_cache == MeasureSettings::ReferenceCache::kAuto && bridge_reference_);
  if (cache_wanted && plan_.live_gpu && !settings_.compile_only) {
    Result<std::string> key =
        ReferenceCacheKey(task_directory, report_.settings_hash, plan_.live_gpu->name, settings_.seed);
    if (key.ok()) {
      reference_cache_key_ = *key;
      cached_reference_ = LoadCachedReference(workspace_->directory(), *key);
      // The entry's seeds: every candidate judged against it sees the same (still one per round).
      if (cached_reference_ && cached_reference_->seeds.size() == plan_.seeds.size()) {
        plan_.seeds = cached_reference_->seeds;
      } else {
        cached_reference_.reset();
      }
    } else {
      report_.notes.push_back(key.status().message() + "; the reference is measured without the cache");
    }
  }
  report_.task = plan_.task.name;
  report_.task_directory = task_directory;
  report_.architecture = plan_.architecture;
  report_.workspace = settings_.workspace;
  report_.seeds = plan_.seeds;
  report_.started = CurrentTimeUtc();
  report_.compile_only = settings_.compile_only;
  report_.task_flops = plan_.task.flops.value_or(0);
  report_.task_min_bytes = plan_.task.min_bytes;
  if (plan_.live_gpu) gpu_ = plan_.live_gpu->name;
  RunRecord run{report_.started, plan_.task.name, gpu_, report_.settings, plan_.seeds, report_.settings_hash};
  KOPT_ASSIGN_OR_RETURN(report_.run_id, workspace_->BeginRun(run));
  on_interrupt_ = std::make_unique<InterruptCleanup>([this] {
    Status marked = workspace_->FinishRun(
        report_.run_id, CurrentTimeUtc(),
        json{{"interrupted", true},
             {"resume", "run the same command again: complete measurements are reused"}});
    std::fprintf(stderr, "kopt: run %lld marked interrupted%s\n", static_cast<long long>(report_.run_id),
                 marked.ok() ? "" : (" (failed: " + marked.message() + ")").c_str());
  });

  auto reference = std::make_unique<Item>();
  reference->entry.name = "reference";
  reference->entry.path = (fs::path(task_directory) / "reference.cu").string();
  reference->entry.role = EntryRole::kReference;
  reference->source_path = plan_.task.reference_path;
  KOPT_ASSIGN_OR_RETURN(
      reference->entry.hash,
      workspace_->StoreCandidate(plan_.task.reference_source, reference->source_path, "reference"));
  items_.push_back(std::move(reference));
  policy_allow_ = settings_.policy_allow;
  policy_allow_.insert(plan_.task.policy_allow.begin(), plan_.task.policy_allow.end());
  cuobjdump_ = FindCuobjdump();
  pool_ = std::make_unique<ParallelCompiler>(*compiler_, static_cast<size_t>(settings_.jobs));
  Submit(0);
  return Status::Ok();
}

std::string MeasureSession::Impl::FindCuobjdump() const {
  fs::path beside = fs::path(compiler_->nvcc_path()).parent_path() / "cuobjdump";
  std::error_code error;
  if (!compiler_->nvcc_path().empty() && fs::is_regular_file(beside, error) &&
      access(beside.c_str(), X_OK) == 0) {
    return beside.string();
  }
  return environment_.command_runner->FindProgram("cuobjdump");
}

void MeasureSession::Impl::Submit(size_t index) {
  Item* item = items_[index].get();
  // The callback runs on a pool thread: it fills only its own item, then signals.
  pool_->Submit(plan_.task, item->source_path,
                [this, item, index](const std::string&, const Result<CompileResult>& result) {
                  if (item->entry.role == EntryRole::kCandidate && result.ok() && result->Ok()) {
                    item->screen =
                        ScreenCompiledCandidate(plan_.task, item->source_path, *result, policy_allow_,
                                                *environment_.command_runner, cuobjdump_);
                  }
                  item->compile = result;
                  completions_.Push(index);
                });
}

void MeasureSession::Impl::CompileAhead(const std::vector<std::string>& sources) {
  if (finished_ || pool_ == nullptr) return;
  for (const std::string& source : sources) {
    if (ahead_in_flight_->load() + 1 >= pool_->thread_count()) return;  // one thread stays for real ones
    std::string hash = Sha256Hex(source);
    if (!compiled_ahead_.insert(hash).second) continue;
    // The file a later StoreCandidate of the same source writes (content-addressed), without its
    // database row: a guess is not a candidate until it is measured.
    if (!workspace_->WriteArtifact("candidates/" + hash + ".cu", source).ok()) continue;
    ++*ahead_in_flight_;
    std::shared_ptr<std::atomic<size_t>> in_flight = ahead_in_flight_;
    pool_->Submit(plan_.task, workspace_->directory() + "/candidates/" + hash + ".cu",
                  [in_flight](const std::string&, const Result<CompileResult>&) { --*in_flight; });
  }
}

Status MeasureSession::Impl::AddCandidates(const std::vector<CandidateSource>& candidates) {
  if (finished_) return Internal("MeasureSession: AddCandidates after Finish");
  std::set<std::string> batch;
  for (const CandidateSource& candidate : candidates) {
    if (candidate.name.empty() || candidate.name.find('/') != std::string::npos ||
        names_.count(candidate.name) || !batch.insert(candidate.name).second) {
      return InvalidInput("candidate name '" + candidate.name +
                          "' is empty, contains '/' or is already used in this session");
    }
  }
  names_.insert(batch.begin(), batch.end());
  for (const CandidateSource& candidate : candidates) {
    auto item = std::make_unique<Item>();
    item->entry.name = candidate.name;
    item->entry.path = candidate.path;
    item->entry.role = EntryRole::kCandidate;
    KOPT_ASSIGN_OR_RETURN(item->entry.hash,
                          workspace_->StoreCandidate(candidate.source, candidate.path, candidate.name));
    // A file is compiled in place (its path is in the wrapper's #include and
    // so in the cache key); a source without one from the workspace's copy.
    item->source_path = !candidate.path.empty()
                            ? candidate.path
                            : workspace_->directory() + "/candidates/" + item->entry.hash + ".cu";
    items_.push_back(std::move(item));
  }
  for (size_t index = items_.size() - candidates.size(); index < items_.size(); ++index) Submit(index);
  return Status::Ok();
}

void MeasureSession::Impl::RecordCompile(Item& item) {
  const Result<CompileResult>& result = *item.compile;
  MeasurementEntry& entry = item.entry;
  if (!result.ok()) {
    entry.status = MeasureStatus::kHarnessError;
    entry.message = result.status().message();
    return;
  }
  entry.compile = result->outcome;
  entry.compile_seconds = result->seconds;
  entry.compile_cached = result->cache_hit;
  Status recorded =
      workspace_->RecordCompile({report_.run_id, entry.hash, result->cache_key,
                                 std::string(CompileOutcomeName(result->outcome)), result->seconds});
  if (!recorded.ok()) report_.notes.push_back(recorded.message());
  if (result->Ok() && item.screen) {
    for (const std::string& note : item.screen->notes) report_.notes.push_back(entry.name + ": " + note);
    if (!item.screen->violations.empty()) {
      entry.status = MeasureStatus::kFailed;
      entry.failure = FailureKind::kPolicyViolation;
      entry.message = PolicyViolationSummary(item.screen->violations);
      entry.detail = PolicyViolationDetail(item.screen->violations);
      return;
    }
  }
  if (result->Ok()) return;
  entry.status = MeasureStatus::kFailed;
  entry.failure = CompileFailureKind(result->outcome);
  entry.message = result->message;
  if (result->outcome == CompileOutcome::kCompileError) {
    std::string first_error = FirstErrorLine(result->compiler_output);
    if (!first_error.empty()) entry.message += (entry.message.empty() ? "" : ": ") + first_error;
  }
  entry.detail = result->compiler_output;
}

void MeasureSession::Impl::TakeCompletion() {
  size_t finished = completions_.Pop();
  items_[finished]->compiled = true;
  RecordCompile(*items_[finished]);
}

Item& MeasureSession::Impl::WaitForCompile(size_t index) {
  while (!items_[index]->compiled) TakeCompletion();
  return *items_[index];
}

void MeasureSession::Impl::Progress(const std::string& text) {
  if (environment_.progress) environment_.progress({done_, items_.size() - 1, text});
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
  request_options.energy = child.timing && child.energy;
  request_options.role = is_reference ? runner::RunnerRole::kReference : runner::RunnerRole::kCandidate;
  KOPT_ASSIGN_OR_RETURN(json request, BuildRunnerRequest(settings_, plan_, item.compile->value().library_path,
                                                         reference.library_path, request_options));
  if (!child.timing) request["timing"] = nullptr;
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
  size_t channel_bytes = 0;
  if (child.role == EntryRole::kCandidate) {
    JoinPrefault();
    if (UseChannelMemory()) {
      channel_bytes = CandidateChannelBytes();
      // The next candidates' memory is prepared while this one runs (as many as are waiting).
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
        with_memory = true;
      } else if (memory.status().kind() != ErrorKind::kUnavailable &&
                 memory.status().kind() != ErrorKind::kNotFound) {
        report_.notes.push_back(item.entry.name + ": outputs sent through the pipe (" +
                                memory.status().message() + ")");
      }
    }
    if (!with_memory) {
      client.set_channel_storage(&channel_spare_);
      client.set_channel_pull(UsePull());
    }
  } else if (child.role == EntryRole::kReference && !have_expected_) {
    StartPrefault();
  }
  Progress("measuring " + item.entry.name);
  std::string artifact_stem = child.role == EntryRole::kCandidate ? item.entry.name + ".candidate" : role;
  KOPT_ASSIGN_OR_RETURN(ChildRun run, client.Run(request, artifact_stem, key, expected, expected_frames));
  if (with_memory) {
    channel_memory_.Release(std::make_shared<OutputFrames>(std::move(run.frames)));  // off this thread
  } else if (child.role == EntryRole::kCandidate) {
    channel_spare_ = run.frames.ReleaseChannel();
    // Capacity and pages stay. A pipe is appended to them; a pulled channel is copied into the bytes
    // themselves, which stay (the next child's channel overwrites them, nothing is zeroed again).
    if (!UsePull()) channel_spare_.clear();
    if (run.pull_refused) {
      pull_refused_ = true;
      report_.notes.push_back("outputs sent through the pipe: " + run.pull_refused_message);
    }
  }
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
    KOPT_ASSIGN_OR_RETURN(json request,
                          BuildRunnerRequest(settings_, fresh, item.compile->value().library_path,
                                             reference.library_path, request_options));
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

// ---- MeasureSession ----

MeasureSession::MeasureSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MeasureSession::~MeasureSession() = default;

Result<std::unique_ptr<MeasureSession>> MeasureSession::Open(const MeasureSettings& settings,
                                                             const MeasureEnvironment& environment,
                                                             MeasureTask task) {
  KOPT_RETURN_IF_ERROR(ValidateMeasureSettings(settings));
  if (environment.command_runner == nullptr) return Internal("MeasureSession: no command runner");
  MeasureSettings resolved = settings;
  KOPT_RETURN_IF_ERROR(ResolveIncludeDirectories(resolved, *environment.command_runner).status());
  MeasurePlan plan;
  plan.task = ApplyInputDistribution(std::move(task.spec), resolved.inputs);
  KOPT_RETURN_IF_ERROR(ResolveDevice(resolved, environment, plan));
  if (!resolved.compile_only) {
    if (!environment.runner_program.empty()) {
      plan.runner_program = environment.runner_program;
    } else {
      KOPT_ASSIGN_OR_RETURN(plan.runner_program, FindRunnerProgram());
    }
  }
  plan.seeds = DrawSeeds(resolved.seeds > 0 ? resolved.seeds : plan.task.check_seeds, resolved.seed);
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<Workspace> workspace, Workspace::Open(resolved.workspace));
  auto impl = std::make_unique<Impl>(resolved, environment, std::move(plan), std::move(workspace));
  KOPT_RETURN_IF_ERROR(impl->Begin(task.directory));
  return std::unique_ptr<MeasureSession>(new MeasureSession(std::move(impl)));
}

const TaskSpec& MeasureSession::task() const {
  return impl_->plan().task;
}
const std::string& MeasureSession::architecture() const {
  return impl_->plan().architecture;
}
int64_t MeasureSession::run_id() const {
  return impl_->run_id();
}

void MeasureSession::CompileAhead(const std::vector<std::string>& sources) {
  impl_->CompileAhead(sources);
}

Status MeasureSession::AddCandidates(const std::vector<CandidateSource>& candidates) {
  return impl_->AddCandidates(candidates);
}

Result<MeasurementEntry> MeasureSession::MeasureReference() {
  return impl_->MeasureReference();
}

Result<std::vector<MeasurementEntry>> MeasureSession::MeasurePending() {
  return impl_->MeasurePending(1);
}

Result<MeasurementEntry> MeasureSession::MeasureCandidate(const CandidateSource& candidate) {
  size_t first = impl_->item_count();
  KOPT_RETURN_IF_ERROR(impl_->AddCandidates({candidate}));
  KOPT_ASSIGN_OR_RETURN(std::vector<MeasurementEntry> entries, impl_->MeasurePending(first));
  if (entries.empty()) return Internal("MeasureSession: the candidate was not measured");
  return entries.front();
}

Result<MeasurementEntry> MeasureSession::MeasureCandidate(const std::string& source,
                                                          const std::string& name) {
  return MeasureCandidate(CandidateSource{name, "", source});
}

Result<MeasurementReport> MeasureSession::Finish() {
  return impl_->Finish();
}

// ---- free functions ----

Result<std::optional<CutlassTree>> ResolveIncludeDirectories(MeasureSettings& settings,
                                                             CommandRunner& command_runner) {
  for (std::string& directory : settings.include_directories) {
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      return InvalidInput(fmt::format("--include-dir {}: not a directory", directory));
    }
    directory = fs::absolute(directory, error).lexically_normal().string();
  }
  if (settings.cutlass.empty()) return std::optional<CutlassTree>();
  KOPT_ASSIGN_OR_RETURN(CutlassTree tree, LocateCutlass(settings.cutlass, command_runner));
  for (const std::string& directory : tree.include_directories) {
    if (std::find(settings.include_directories.begin(), settings.include_directories.end(), directory) ==
        settings.include_directories.end()) {
      settings.include_directories.push_back(directory);
    }
  }
  settings.cutlass.clear();
  return std::optional<CutlassTree>(std::move(tree));
}

Status ValidateMeasureSettings(const MeasureSettings& settings) {
  if (settings.seeds < 0) return InvalidInput("--seeds must be at least 1 (0: the task's check_seeds)");
  if (!(settings.timeout_seconds > 0)) return InvalidInput("--timeout must be a positive number of seconds");
  if (!(settings.max_noise > 0 && settings.max_noise < 1)) {
    return InvalidInput("--max-noise must be a fraction between 0 and 1 (0.005 = 0.5 %)");
  }
  if (settings.min_samples < 1) return InvalidInput("--min-samples must be at least 1");
  if (settings.jobs < 0) return InvalidInput("--jobs must be at least 1 (0: all cores)");
  if (settings.device < 0) return InvalidInput("--device must be a CUDA device ordinal (0, 1, ...)");
  if (!std::isfinite(settings.inputs.scale) || settings.inputs.scale == 0) {
    return InvalidInput("--input-scale must be a finite non-zero factor (3, 0.01, -1 negates)");
  }
  if (!settings.arch.empty() && !std::regex_match(settings.arch, std::regex("sm_[0-9]{2,3}[af]?"))) {
    return InvalidInput("--arch " + settings.arch +
                        ": expected sm_ and the compute capability, e.g. sm_90a or sm_80");
  }
  return Status::Ok();
}

Result<MeasureTask> LoadMeasureTask(const std::string& task_directory) {
  std::error_code error;
  if (!fs::exists(task_directory, error))
    return NotFound("task directory " + task_directory + " does not exist");
  MeasureTask task;
  task.directory = task_directory;
  KOPT_ASSIGN_OR_RETURN(task.spec, LoadTask(task_directory));
  return task;
}

MeasureEnvironment DefaultMeasureEnvironment(CommandRunner& command_runner) {
  MeasureEnvironment environment;
  environment.command_runner = &command_runner;
  environment.query_gpus = [] { return QueryLiveGpus(); };
  return environment;
}

Result<MeasurementReport> Measure(const MeasureSettings& settings, const MeasureEnvironment& environment,
                                  MeasureTask task, const std::vector<CandidateSource>& candidates) {
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<MeasureSession> session,
                        MeasureSession::Open(settings, environment, std::move(task)));
  KOPT_RETURN_IF_ERROR(session->AddCandidates(candidates));
  KOPT_RETURN_IF_ERROR(session->MeasurePending().status());
  return session->Finish();
}

Status ReferenceVerdict(const MeasurementReport& report) {
  const MeasurementEntry& reference = report.reference;
  if (reference.ok() || (report.compile_only && reference.status == MeasureStatus::kCompiled))
    return Status::Ok();
  // nvcc refuses the architecture itself: a bad option (exit 2), not a failed reference.
  if (reference.failure == FailureKind::kCompileError &&
      reference.detail.find("Unsupported gpu architecture") != std::string::npos) {
    return InvalidInput("--arch " + report.architecture +
                        ": nvcc does not support this architecture (`nvcc --list-gpu-code` lists the ones it "
                        "does, e.g. sm_90a for H100/H200)");
  }
  std::string what = "the reference failed (" + reference.KindName() + "): " + reference.message;
  if (reference.failure == FailureKind::kDeviceUnavailable) return Unavailable(what);
  return WorkFailed(what);
}

Result<std::string> FindRunnerProgram() {
  if (const char* configured = std::getenv("KOPT_RUNNER"); configured && *configured) {
    if (access(configured, X_OK) != 0) {
      return NotFound(std::string("KOPT_RUNNER=") + configured + ": not an executable file");
    }
    return std::string(configured);
  }
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  fs::path beside = self.parent_path() / "kopt-runner";
  if (!error && access(beside.c_str(), X_OK) == 0) return beside.string();
  return NotFound("kopt-runner not found: KOPT_RUNNER is not set and " + beside.string() +
                  " does not exist (it is built with the CUDA toolkit; set KOPT_RUNNER to its path)");
}

std::vector<uint64_t> DrawSeeds(int count, std::optional<uint64_t> seed) {
  std::mt19937_64 generator(seed ? *seed : std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32));
  std::vector<uint64_t> seeds;
  // Seeds stay within 2^53 so that every JSON reader keeps them exact.
  for (int i = 0; i < count; ++i) seeds.push_back(generator() >> 11);
  return seeds;
}

}  // namespace kopt
