// Opening a MeasureSession (the device, the workspace run, the compiler) and
// its compile side (candidates added, compiled on the pool, screened by the
// policy, recorded); the public methods of measure.h. The children:
// measure_children.cc.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/quantity_format.h"
#include "core/sha256.h"
#include "measure/measure_session_impl.h"
#include "profile/ncu_collector.h"

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
  std::string message = "no NVIDIA GPU found (" + gpus.status().message() + "). " + settings.command +
                        " runs every candidate on a GPU";
  if (settings.command == "kopt bench") {
    message +=
        std::string("; to only compile them on this machine, use --compile-only (with --arch, default ") +
        kDefaultCompileOnlyArchitecture + ")";
  } else {
    message +=
        "; run it on a machine with an NVIDIA GPU (kopt bench --compile-only checks that candidates compile "
        "without one)";
  }
  return Unavailable(message);
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

}  // namespace

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

measure_session::Item& MeasureSession::Impl::WaitForCompile(size_t index) {
  while (!items_[index]->compiled) TakeCompletion();
  return *items_[index];
}

void MeasureSession::Impl::Progress(const std::string& text) {
  if (environment_.progress) environment_.progress({done_, items_.size() - 1, text});
}

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

}  // namespace kopt
