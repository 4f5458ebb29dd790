#include "app/bench_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "app/bench_outcome.h"
#include "app/bench_verdict.h"
#include "app/file_io.h"
#include "core/sha256.h"
#include "harness/compiler.h"
#include "harness/parallel_compiler.h"

namespace kopt {
namespace {

using nlohmann::json;

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

// The reference (index 0) or a candidate, as the session tracks it.
struct Item {
  BenchEntry entry;
  std::string source_path;
  std::optional<Result<CompileResult>> compile;  // set once its compile finished
};

runner::TimingRequest TimingSettings(const BenchOptions& options) {
  runner::TimingRequest timing;
  timing.max_relative_stdev = options.max_noise;
  timing.min_samples = options.min_samples;
  timing.timeout_seconds = options.timing_seconds;
  timing.cold = !options.warm;
  return timing;
}

// Copies a child's events and verdict into a report row.
void ApplyChildRun(const ChildRun& run, BenchEntry& entry) {
  entry.status = ChildStatusName(run.outcome.status);
  entry.kind = run.outcome.KindName();
  entry.message = run.outcome.message;
  entry.detail = run.outcome.detail;
  entry.measure_seconds = run.seconds;
  entry.timing = run.events.timing;
  entry.energy = run.events.energy;
  entry.checks_total = run.events.checks.size();
  entry.checks_passed =
      static_cast<size_t>(std::count_if(run.events.checks.begin(), run.events.checks.end(),
                                        [](const runner::CheckEvent& c) { return c.passed; }));
  if (entry.status != "ok") entry.timing.reset();  // a failed candidate has no speed
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

class BenchSession {
 public:
  BenchSession(const BenchOptions& options, const BenchEnvironment& environment, BenchPlan plan,
               Workspace& workspace)
      : options_(options), environment_(environment), plan_(std::move(plan)), workspace_(workspace) {}
  // Compile callbacks use the members: the pool goes first.
  ~BenchSession() { pool_.reset(); }

  Status Run(std::ostream& out);

 private:
  Status Begin();
  Status StartCompiles();
  void RecordCompile(Item& item);
  Item& WaitForCompile(size_t index);
  Result<bool> MeasureReference();
  Status MeasureCandidates();
  Status MeasureCandidate(Item& item);
  Status RetimeReference();
  Status Measure(Item& item, const std::string& role, bool check, bool timing, bool energy, bool resume);
  Status RemeasureBelowFloor(Item& item, const ChildRun& first);
  double FloorSeconds() const;
  Result<bool> TryResume(Item& item, const MeasurementKey& key);
  bool AllCandidatesStored();
  void Progress(const std::string& text);
  void Conclude();
  Status Finish(std::ostream& out);

  const BenchOptions& options_;
  const BenchEnvironment& environment_;
  BenchPlan plan_;
  Workspace& workspace_;
  BenchReport report_;
  std::vector<Item> items_;  // [0] the reference, then the candidates in order
  std::unique_ptr<Compiler> compiler_;
  std::unique_ptr<ParallelCompiler> pool_;
  CompletionQueue completions_;
  std::vector<bool> compiled_;  // by index, on the session thread
  std::string gpu_;             // device name: live, else from the first child
  bool reference_ok_ = false;
  bool measured_fresh_ = false;  // some candidate ran now (not from the store)
  size_t done_ = 0;
  // The reference child's outputs for this run's seeds: the expected outputs
  // of every candidate child (computed once, kept in memory, never written
  // where a candidate could read them).
  OutputFrames expected_frames_;
  bool have_expected_ = false;
  int64_t l2_bytes_ = 0;  // from the reference child's device event
};

Status BenchSession::Begin() {
  CompilerOptions compiler_options;
  compiler_options.architecture = plan_.architecture;
  compiler_options.cache_directory = workspace_.directory() + "/compile-cache";
  KOPT_ASSIGN_OR_RETURN(compiler_, Compiler::Create(*environment_.command_runner, compiler_options));
  report_.settings = BenchSettings(options_, plan_);
  report_.settings["compiler"] = {{"flags", compiler_->flags()},
                                  {"nvcc_version_sha256", Sha256Hex(compiler_->nvcc_version())}};
  report_.settings_hash = Sha256Hex(report_.settings.dump());
  report_.task = plan_.task.name;
  report_.task_directory = options_.task_directory;
  report_.architecture = plan_.architecture;
  report_.workspace = options_.workspace;
  report_.seeds = plan_.seeds;
  report_.started = CurrentTimeUtc();
  report_.compile_only = options_.compile_only;
  report_.task_flops = plan_.task.flops.value_or(0);
  report_.task_min_bytes = plan_.task.min_bytes;
  if (plan_.live_gpu) gpu_ = plan_.live_gpu->name;
  RunRecord run{report_.started, plan_.task.name, gpu_, report_.settings, plan_.seeds, report_.settings_hash};
  KOPT_ASSIGN_OR_RETURN(report_.run_id, workspace_.BeginRun(run));

  Item reference;
  reference.entry.name = "reference";
  reference.entry.path = (std::filesystem::path(options_.task_directory) / "reference.cu").string();
  reference.entry.role = "reference";
  reference.source_path = plan_.task.reference_path;
  KOPT_ASSIGN_OR_RETURN(reference.entry.hash, workspace_.StoreCandidate(plan_.task.reference_source,
                                                                        reference.source_path, "reference"));
  items_.push_back(std::move(reference));
  for (const CandidateFile& candidate : plan_.candidates) {
    Item item;
    item.entry.name = candidate.name;
    item.entry.path = candidate.path;
    item.entry.role = "candidate";
    item.source_path = candidate.path;
    KOPT_ASSIGN_OR_RETURN(item.entry.hash,
                          workspace_.StoreCandidate(candidate.source, candidate.path, candidate.name));
    items_.push_back(std::move(item));
  }
  compiled_.assign(items_.size(), false);
  return Status::Ok();
}

Status BenchSession::StartCompiles() {
  pool_ = std::make_unique<ParallelCompiler>(*compiler_, static_cast<size_t>(options_.jobs));
  for (size_t index = 0; index < items_.size(); ++index) {
    // The callback runs on a pool thread: it fills only its own item, then signals.
    pool_->Submit(plan_.task, items_[index].source_path,
                  [this, index](const std::string&, const Result<CompileResult>& result) {
                    items_[index].compile = result;
                    completions_.Push(index);
                  });
  }
  return Status::Ok();
}

void BenchSession::RecordCompile(Item& item) {
  const Result<CompileResult>& result = *item.compile;
  BenchEntry& entry = item.entry;
  if (!result.ok()) {
    entry.status = "harness_error";
    entry.kind = "harness_error";
    entry.message = result.status().message();
    return;
  }
  entry.compile_status = std::string(CompileOutcomeName(result->outcome));
  entry.compile_seconds = result->seconds;
  entry.compile_cached = result->cache_hit;
  Status recorded = workspace_.RecordCompile(
      {report_.run_id, entry.hash, result->cache_key, entry.compile_status, result->seconds});
  if (!recorded.ok()) report_.notes.push_back(recorded.message());
  if (result->Ok()) return;
  entry.status = "failed";
  entry.kind = entry.compile_status;
  entry.message = result->message;
  if (result->outcome == CompileOutcome::kCompileError) {
    std::string first_error = FirstErrorLine(result->compiler_output);
    if (!first_error.empty()) entry.message += (entry.message.empty() ? "" : ": ") + first_error;
  }
  entry.detail = result->compiler_output;
}

Item& BenchSession::WaitForCompile(size_t index) {
  while (!compiled_[index]) {
    size_t finished = completions_.Pop();
    compiled_[finished] = true;
    RecordCompile(items_[finished]);
  }
  return items_[index];
}

void BenchSession::Progress(const std::string& text) {
  if (!options_.progress || environment_.progress == nullptr) return;
  *environment_.progress << "\r\033[K[" << done_ << "/" << items_.size() - 1 << "] " << text << std::flush;
}

Result<bool> BenchSession::TryResume(Item& item, const MeasurementKey& key) {
  KOPT_ASSIGN_OR_RETURN(std::optional<StoredMeasurement> stored, workspace_.FindCompleteMeasurement(key));
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

Status BenchSession::Measure(Item& item, const std::string& role, bool check, bool timing, bool energy,
                             bool resume) {
  MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash, role};
  if (resume && !options_.rerun && !gpu_.empty()) {
    KOPT_ASSIGN_OR_RETURN(bool resumed, TryResume(item, key));
    if (resumed) return Status::Ok();
  }
  bool is_reference = role != "candidate";
  const CompileResult& reference = items_[0].compile->value();
  KOPT_ASSIGN_OR_RETURN(json request, BuildRunnerRequest(options_, plan_, item.compile->value().library_path,
                                                         reference.library_path, check, timing && energy,
                                                         is_reference ? runner::RunnerRole::kReference
                                                                      : runner::RunnerRole::kCandidate));
  if (!timing) request["timing"] = nullptr;
  ChildExpectations expected;
  expected.check_rounds = check ? plan_.seeds.size() + plan_.task.variants.size() : 0;
  expected.timing = timing;
  expected.energy = timing && energy;
  expected.timeout_seconds = options_.timeout_seconds;
  expected.l2_bytes = l2_bytes_;
  if (!is_reference) expected.floor_seconds = FloorSeconds();
  // The first reference child computes the expected outputs; later children
  // (candidates, the reference re-timed at the end) are judged against them.
  if (!is_reference && !have_expected_) {
    // The reference was resumed from the store (no outputs kept): its child runs now for them.
    Item again = items_[0];
    KOPT_RETURN_IF_ERROR(Measure(again, "reference", true, timing, false, false));
    if (!have_expected_) return Internal("kopt bug: no expected outputs after measuring the reference");
  }
  const OutputFrames* expected_frames = have_expected_ ? &expected_frames_ : nullptr;
  RunnerClient client(*environment_.command_runner, plan_.runner_program, workspace_, report_.run_id,
                      options_.timeout_seconds);
  Progress("measuring " + item.entry.name);
  KOPT_ASSIGN_OR_RETURN(ChildRun run,
                        client.Run(request, role == "candidate" ? item.entry.name + ".candidate" : role, key,
                                   expected, expected_frames));
  if (gpu_.empty() && !key.gpu.empty()) {
    gpu_ = key.gpu;
    KOPT_RETURN_IF_ERROR(workspace_.SetRunGpu(report_.run_id, gpu_));
  }
  if (role == "reference" && !have_expected_) {
    expected_frames_ = std::move(run.frames);
    have_expected_ = true;
    if (run.events.device) l2_bytes_ = run.events.device->l2_bytes;
  }
  ApplyChildRun(run, item.entry);
  item.entry.resumed_from_run.reset();
  if (run.below_floor) return RemeasureBelowFloor(item, run);
  return Status::Ok();
}

// A candidate timed below the floor is measured again with fresh input
// values (new timed sets and a new round after timing, their expected outputs
// from a new reference child); still below it, it is rejected
// (suspect_fast), never reported as a speedup.
Status BenchSession::RemeasureBelowFloor(Item& item, const ChildRun& first) {
  BenchPlan fresh = plan_;
  std::random_device random;
  fresh.seeds = {(static_cast<uint64_t>(random()) << 20) ^ random()};
  const CompileResult& reference = items_[0].compile->value();
  auto run_child = [&](runner::RunnerRole role, const std::string& stem, const OutputFrames* expected_frames,
                       ChildExpectations expected) -> Result<ChildRun> {
    KOPT_ASSIGN_OR_RETURN(json request,
                          BuildRunnerRequest(options_, fresh, item.compile->value().library_path,
                                             reference.library_path, false, false, role));
    MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash, stem};
    RunnerClient client(*environment_.command_runner, plan_.runner_program, workspace_, report_.run_id,
                        options_.timeout_seconds);
    return client.Run(request, item.entry.name + "." + stem, key, expected, expected_frames);
  };
  ChildExpectations expected;
  expected.timing = true;
  expected.timeout_seconds = options_.timeout_seconds;
  expected.l2_bytes = l2_bytes_;
  KOPT_ASSIGN_OR_RETURN(ChildRun reference_run,
                        run_child(runner::RunnerRole::kReference, "floor_reference", nullptr, expected));
  if (reference_run.outcome.status != ChildOutcome::Status::kOk) {
    item.entry.status = "harness_error";
    item.entry.kind = "harness_error";
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
    MeasurementKey key{item.entry.hash, gpu_, report_.settings_hash, "candidate"};
    KOPT_RETURN_IF_ERROR(workspace_.RecordOutcome(
        report_.run_id, key, OutcomeToJson(again.outcome, again.end, again.seconds), true));
  }
  return Status::Ok();
}

double BenchSession::FloorSeconds() const {
  const GpuSpec* spec = plan_.live_gpu ? &*plan_.live_gpu : FindGpu(gpu_);
  return spec ? TaskFloorSeconds(plan_.task, *spec) : 0;
}

// True when no candidate needs the GPU: each has a stored result or does not
// compile. Waits only for the compiles of candidates without a stored result,
// and stops at the first one that compiles (the usual fresh run).
bool BenchSession::AllCandidatesStored() {
  if (options_.rerun || gpu_.empty()) return false;
  for (size_t index = 1; index < items_.size(); ++index) {
    MeasurementKey key{items_[index].entry.hash, gpu_, report_.settings_hash, "candidate"};
    auto stored = workspace_.FindCompleteMeasurement(key);
    if (stored.ok() && stored->has_value()) continue;
    if (WaitForCompile(index).entry.status.empty()) return false;
  }
  return true;
}

// False when the reference failed (the report says how).
Result<bool> BenchSession::MeasureReference() {
  Item& reference = WaitForCompile(0);
  if (!reference.compile->ok()) return reference.compile->status().WithContext("compiling the reference");
  if (reference.entry.status == "failed") return false;
  // With every candidate stored, the stored reference is their baseline too.
  bool resume = AllCandidatesStored();
  KOPT_RETURN_IF_ERROR(Measure(reference, "reference", true, options_.time, options_.energy, resume));
  return reference.entry.status == "ok";
}

Status BenchSession::MeasureCandidate(Item& item) {
  if (!item.entry.status.empty()) return Status::Ok();  // failed to compile: reported as such
  KOPT_RETURN_IF_ERROR(Measure(item, "candidate", true, options_.time, options_.energy, true));
  if (!item.entry.resumed_from_run) measured_fresh_ = true;
  return Status::Ok();
}

// In the order their compiles finish, so the GPU never waits on a slow compile.
Status BenchSession::MeasureCandidates() {
  std::vector<bool> measured(items_.size(), false);
  measured[0] = true;
  auto measure_ready = [&]() -> Status {
    for (size_t index = 1; index < items_.size(); ++index) {
      if (!compiled_[index] || measured[index]) continue;
      measured[index] = true;
      KOPT_RETURN_IF_ERROR(MeasureCandidate(items_[index]));
      ++done_;
    }
    return Status::Ok();
  };
  KOPT_RETURN_IF_ERROR(measure_ready());
  while (done_ + 1 < items_.size()) {
    size_t finished = completions_.Pop();
    compiled_[finished] = true;
    RecordCompile(items_[finished]);
    KOPT_RETURN_IF_ERROR(measure_ready());
  }
  return Status::Ok();
}

Status BenchSession::RetimeReference() {
  if (!options_.time || !measured_fresh_) return Status::Ok();
  Item again = items_[0];
  again.entry.role = "reference_end";
  again.entry.name = "reference (end)";
  again.entry.status.clear();
  KOPT_RETURN_IF_ERROR(Measure(again, "reference_end", false, true, false, false));
  report_.reference_end = again.entry;
  if (items_[0].entry.timing && again.entry.timing && items_[0].entry.timing->median_s > 0) {
    report_.reference_drift = again.entry.timing->median_s / items_[0].entry.timing->median_s - 1;
  }
  return Status::Ok();
}

// Speedups, the roofline floor and the suspect flag.
void BenchSession::Conclude() {
  report_.gpu = gpu_;
  const GpuSpec* spec = plan_.live_gpu ? &*plan_.live_gpu : FindGpu(gpu_);
  report_.floor_seconds = FloorSeconds();
  if (!gpu_.empty() && !spec) {
    report_.notes.push_back("GPU '" + gpu_ +
                            "' is not in kopt's spec table: no roofline floor, no suspect check");
  }
  double reference_median = items_[0].entry.timing ? items_[0].entry.timing->median_s : 0;
  for (Item& item : items_) {
    if (!item.entry.timing) continue;
    item.entry.speedup = Speedup(reference_median, item.entry.timing->median_s);
    item.entry.suspect_fast = IsSuspectFast(item.entry.timing->median_s, report_.floor_seconds);
  }
  report_.reference = items_[0].entry;
  for (size_t index = 1; index < items_.size(); ++index) report_.candidates.push_back(items_[index].entry);
}

Status BenchSession::Finish(std::ostream& out) {
  if (options_.progress && environment_.progress) *environment_.progress << "\r\033[K" << std::flush;
  Conclude();
  size_t ok = 0;
  for (const BenchEntry& entry : report_.candidates) ok += entry.status == "ok" ? 1 : 0;
  json summary = {
      {"candidates", report_.candidates.size()}, {"ok", ok}, {"reference_status", report_.reference.status}};
  Status finished = workspace_.FinishRun(report_.run_id, CurrentTimeUtc(), summary);
  if (!finished.ok()) report_.notes.push_back(finished.message());
  std::ostringstream text;
  KOPT_RETURN_IF_ERROR(RenderBenchReport(report_, options_.format, text));
  if (options_.output_path.empty()) {
    out << text.str();
  } else {
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(options_.output_path, text.str()));
  }
  if (!reference_ok_ && !options_.compile_only) {
    const BenchEntry& reference = report_.reference;
    std::string what = "the reference failed (" + reference.kind + "): " + reference.message;
    if (reference.kind == "device_unavailable") return Unavailable(what);
    return WorkFailed(what);
  }
  return Status::Ok();
}

Status BenchSession::Run(std::ostream& out) {
  KOPT_RETURN_IF_ERROR(Begin());
  KOPT_RETURN_IF_ERROR(StartCompiles());
  if (options_.compile_only) {
    for (size_t index = 0; index < items_.size(); ++index) {
      Item& item = WaitForCompile(index);
      if (item.entry.status.empty()) item.entry.status = "compiled";
    }
    return Finish(out);
  }
  KOPT_ASSIGN_OR_RETURN(reference_ok_, MeasureReference());
  if (!reference_ok_) {
    for (size_t index = 1; index < items_.size(); ++index) {
      Item& item = WaitForCompile(index);
      if (item.entry.status.empty()) {
        item.entry.status = "skipped";
        item.entry.message = "not measured: the reference failed";
      }
    }
    return Finish(out);
  }
  KOPT_RETURN_IF_ERROR(MeasureCandidates());
  KOPT_RETURN_IF_ERROR(RetimeReference());
  return Finish(out);
}

}  // namespace

json BenchSettings(const BenchOptions& options, const BenchPlan& plan) {
  json timing = nullptr;
  if (options.time) {
    runner::TimingRequest request = TimingSettings(options);
    timing = {{"warmup_seconds", request.warmup_seconds},
              {"min_samples", request.min_samples},
              {"max_samples", request.max_samples},
              {"max_relative_stdev", request.max_relative_stdev},
              {"min_gpu_seconds", request.min_gpu_seconds},
              {"timeout_seconds", request.timeout_seconds},
              {"cold", request.cold},
              {"rotate_input_sets", request.rotate_input_sets}};
  }
  json energy = nullptr;
  if (options.time && options.energy) {
    runner::EnergyRequest request;
    energy = {{"window_seconds", request.window_seconds}, {"idle_seconds", request.idle_seconds}};
  }
  return {{"kopt_version", KOPT_VERSION},
          // 2: the verdict is the parent's (issue 12); results of protocol 1 are not reused.
          {"harness_protocol", 2},
          {"task", plan.task.ToJson()},
          {"check_variants", plan.task.VariantsToJson()},
          {"reference_sha256", Sha256Hex(plan.task.reference_source)},
          {"architecture", plan.architecture},
          {"seeds_per_child", plan.seeds.size()},
          {"timing", timing},
          {"energy", energy},
          {"child_timeout_seconds", options.timeout_seconds}};
}

uint64_t BenchPlan::TimingSeed() const {
  return runner::TimingSetSeed(seeds.empty() ? 0 : seeds.front(), -2);
}

uint64_t BenchPlan::FreshSeed() const {
  return runner::TimingSetSeed(seeds.empty() ? 0 : seeds.back(), -3);
}

Result<json> BuildRunnerRequest(const BenchOptions& options, const BenchPlan& plan,
                                const std::string& candidate_library, const std::string& reference_library,
                                bool check, bool energy, runner::RunnerRole role) {
  runner::RunnerRequest request;
  request.role = role;
  request.timing_seed = plan.TimingSeed();
  request.fresh_seed = plan.FreshSeed();
  request.candidate_library = candidate_library;
  request.reference_library = reference_library;
  request.seeds = plan.seeds;
  request.check = check;
  request.device = options.device;
  // A backstop behind the wall-clock watchdog, not a second timeout: the
  // runner generates inputs on every core and spins in CUDA synchronization,
  // so its CPU time can exceed the wall time several times over (a 20 s
  // limit killed a naive softmax reference with SIGXCPU on the H200).
  request.cpu_seconds = options.timeout_seconds * std::max(2u, std::thread::hardware_concurrency());
  if (options.time) request.timing = TimingSettings(options);
  if (energy) request.energy = runner::EnergyRequest{};
  json wire = runner::RunnerRequestToJson(request);
  wire["task"] = plan.task.ToJson();
  wire["check_variants"] = plan.task.VariantsToJson();
  Result<runner::RunnerRequest> read_back = runner::RunnerRequestFromJson(wire, "runner request");
  if (!read_back.ok()) {
    return Internal("kopt bug: the runner request does not read back: " + read_back.status().message());
  }
  return wire;
}

Status RunBenchSession(const BenchOptions& options, const BenchEnvironment& environment, BenchPlan plan,
                       Workspace& workspace, std::ostream& out) {
  BenchSession session(options, environment, std::move(plan), workspace);
  return session.Run(out);
}

}  // namespace kopt
