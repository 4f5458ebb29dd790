#include "optimize/optimization_loop.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "analysis/diagnose.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/text.h"
#include "optimize/change_summary.h"
#include "optimize/node_energy.h"
#include "search/run_state_store.h"
#include "search/transposition_key.h"
#include "store/search_memory.h"
#include "store/workspace.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kRepairTextLimit = 6000;  // characters of compiler / failure text a repair is shown
constexpr size_t kMemoryNoteBytes = 1500;  // search-memory notes per generation
constexpr int kExhaustedInARow = 3;        // generator "nothing left" answers that end a run

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string Bounded(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + fmt::format("\n[... {} more characters cut]", text.size() - limit);
}

// The measured relative spread of a timing: the larger of its relative
// standard deviation and its interquartile range over the median.
double NoiseFraction(const runner::TimingEvent& timing) {
  double iqr = timing.median_s > 0 ? (timing.q3_s - timing.q1_s) / timing.median_s : 0;
  return std::max(timing.relative_stdev, iqr);
}

NodeStatus StatusForFailure(FailureKind kind) {
  switch (kind) {
    case FailureKind::kCompileError:
    case FailureKind::kMissingEntryPoint: return NodeStatus::kFailedCompile;
    case FailureKind::kUnwrittenOutput:
    case FailureKind::kWrongOutput:
    case FailureKind::kPrecisionLoss:
    case FailureKind::kConstantOutput:
    case FailureKind::kInputMutated:
    case FailureKind::kStaleOutput:
    case FailureKind::kSideStream: return NodeStatus::kFailedCheck;
    // The verdict caught the candidate gaming it (issue 12): rejected, not retried as a bug.
    case FailureKind::kSuspectFast:
    case FailureKind::kProtocolViolation:
    case FailureKind::kTimingInconsistent:
    case FailureKind::kPolicyViolation:
    case FailureKind::kSandboxViolation: return NodeStatus::kRejected;
    case FailureKind::kLoadError:
    case FailureKind::kCrash:
    case FailureKind::kTimeout:
    case FailureKind::kIllegalAddress:
    case FailureKind::kOutOfMemory:
    case FailureKind::kLaunchFailure:
    case FailureKind::kTooManyResources:
    case FailureKind::kDeviceUnavailable: return NodeStatus::kFailedRun;
  }
  return NodeStatus::kFailedRun;
}

std::string FormatSeconds(double seconds) {
  return fmt::format("{:.4g} µs", seconds * 1e6);
}

// The node's evaluation from its measurement; `record` gets the verdict's text.
Evaluation EvaluationOf(const MeasurementEntry& entry, bool energy_asked, NodeRecord& record) {
  Evaluation evaluation;
  record.failure_kind = entry.KindName();
  record.message = entry.message;
  record.compile_seconds = entry.compile_seconds;
  record.measure_seconds = entry.measure_seconds;
  record.speedup = entry.speedup;
  if (entry.ok() && entry.timing.has_value()) {
    evaluation.time_s = entry.timing->median_s;
    evaluation.time_noise_fraction = NoiseFraction(*entry.timing);
    ApplyMeasuredEnergy(entry, energy_asked, evaluation, record);
    if (entry.suspect_fast) {
      record.suspect = true;
      evaluation.status = NodeStatus::kRejected;
      evaluation.detail = fmt::format(
          "rejected (suspect_fast): measured {} per call, below the task's roofline floor on this GPU: no "
          "correct kernel can be that fast, so the measurement was gamed or the work was skipped. Do the "
          "whole computation on every call.",
          FormatSeconds(entry.timing->median_s));
      record.failure_kind = "suspect_fast";
      record.message = "faster than the roofline floor: rejected";
    } else {
      evaluation.status = NodeStatus::kVerified;
    }
    record.repair_text = evaluation.detail;
    return evaluation;
  }
  if (entry.ok()) {  // verified but not timed (timing off): treat as a failure to rank
    evaluation.status = NodeStatus::kFailedRun;
    evaluation.detail = "verified but not timed (timing is off): nothing to rank";
  } else if (entry.failure.has_value()) {
    // The harness rejects a result that stays below the floor when
    // re-measured (issue 12): the same suspect verdict as the flag above.
    evaluation.status = StatusForFailure(*entry.failure);
    evaluation.detail = entry.message + (entry.detail.empty() ? "" : "\n" + entry.detail);
    if (*entry.failure == FailureKind::kSuspectFast) {
      record.suspect = true;
      record.message = "faster than the roofline floor: rejected";
      evaluation.detail =
          "rejected (suspect_fast): " + entry.message +
          ". No correct kernel can be that fast, so the measurement was gamed or the work was "
          "skipped. Do the whole computation on every call.";
    }
  } else {
    evaluation.status = NodeStatus::kFailedRun;
    evaluation.detail = fmt::format("{}: {}", MeasureStatusName(entry.status), entry.message);
  }
  evaluation.detail = Bounded(evaluation.detail, kRepairTextLimit);
  record.repair_text = evaluation.detail;
  return evaluation;
}

// What the run was asked, for the record and the report (no secrets: the
// LLM settings are not copied).
json SettingsJson(const OptimizeSettings& settings) {
  json budget = json::object();
  if (settings.budget.max_evaluations) budget["max_evaluations"] = *settings.budget.max_evaluations;
  if (settings.budget.max_seconds) budget["max_s"] = *settings.budget.max_seconds;
  if (settings.budget.max_gpu_seconds) budget["max_gpu_s"] = *settings.budget.max_gpu_seconds;
  if (settings.budget.max_llm_cost_usd) budget["max_llm_cost_usd"] = *settings.budget.max_llm_cost_usd;
  if (settings.budget.max_llm_tokens) budget["max_llm_tokens"] = *settings.budget.max_llm_tokens;
  return json{{"command", "optimize"},
              {"generator", agents::GeneratorKindName(settings.generator)},
              {"search", SearchPolicyKindName(settings.search)},
              {"objective", ObjectiveName(settings.objective)},
              {"feedback", FeedbackModeName(settings.feedback)},
              {"devices", settings.devices},
              {"profile", settings.profile},
              {"energy", settings.measure.energy},
              {"budget", budget}};
}

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

Status OptimizationRun::Open() {
  started_at_ = Now();
  std::error_code error;
  bool workspace_existed = fs::exists(settings_.measure.workspace, error);
  KOPT_ASSIGN_OR_RETURN(workspace_, Workspace::Open(settings_.measure.workspace));
  KOPT_ASSIGN_OR_RETURN(memory_, SearchMemory::Open(workspace_->database_path()));
  if (settings_.resume_run.has_value()) {
    KOPT_ASSIGN_OR_RETURN(state_, LoadRunState(workspace_->directory(), *settings_.resume_run));
    wall_before_ = state_.usage.wall_seconds;
    state_.status = RunStatus::kRunning;
    state_.stop_reason.clear();
    for (const NodeRecord& record : state_.records) {
      if (!record.answer_id.empty()) environment_.generator->MarkServed(record.answer_id);
    }
  } else {
    KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(settings_.task_directory));
    state_.task = task.name;
    state_.task_directory = settings_.task_directory;
    state_.started = CurrentTimeUtc();
    state_.seed = settings_.seed.has_value() ? *settings_.seed : std::random_device{}();
    state_.tree = SearchTree(settings_.objective);
    state_.settings = SettingsJson(settings_);
    RunRecord run;
    run.started = state_.started;
    run.task = task.name;
    run.settings = state_.settings;
    KOPT_ASSIGN_OR_RETURN(state_.run_id, workspace_->BeginRun(run));
  }
  store_ = std::make_unique<RunStateStore>(workspace_->directory(), state_.run_id);
  KOPT_ASSIGN_OR_RETURN(policy_, MakeSearchPolicy(settings_.search, settings_.search_settings, state_.seed));
  on_interrupt_ = std::make_unique<InterruptCleanup>([this] {
    long long run = static_cast<long long>(state_.run_id);
    Status marked = workspace_->FinishRun(
        state_.run_id, CurrentTimeUtc(),
        nlohmann::json{{"interrupted", true}, {"resume", "kopt optimize --resume " + std::to_string(run)}});
    std::fprintf(stderr,
                 "kopt: optimize run %lld marked interrupted%s; resume it with kopt optimize --resume %lld\n",
                 run, marked.ok() ? "" : (" (failed: " + marked.message() + ")").c_str(), run);
  });
  Status sessions = OpenSessions();
  if (!sessions.ok() && !workspace_existed) {
    // No GPU (or no runner): the command failed before any work, so the workspace it just made goes.
    on_interrupt_.reset();
    store_.reset();
    memory_.reset();
    workspace_.reset();
    fs::remove_all(settings_.measure.workspace, error);
  }
  return sessions;
}

Status OptimizationRun::OpenSessions() {
  if (settings_.devices.empty()) return InvalidInput("--devices: expected at least one CUDA ordinal");
  for (int device : settings_.devices) {
    MeasureSettings measure = settings_.measure;
    measure.device = device;
    measure.seed = state_.seed;  // the same check seeds on every device and on resume
    KOPT_ASSIGN_OR_RETURN(MeasureTask task, LoadMeasureTask(state_.task_directory));
    Result<std::unique_ptr<MeasureSession>> session =
        MeasureSession::Open(measure, environment_.measure, std::move(task));
    if (!session.ok()) return session.status();
    sessions_.push_back(std::move(*session));
  }
  const TaskSpec& task = sessions_.front()->task();
  reference_source_ = task.reference_source;
  entry_point_ = task.entry;
  state_.task_flops = task.flops.value_or(0);
  state_.task_min_bytes = task.min_bytes;
  if (environment_.make_profiler && settings_.profile && settings_.feedback != FeedbackMode::kNone) {
    Result<std::unique_ptr<CandidateProfiler>> profiler =
        environment_.make_profiler(sessions_.front()->architecture());
    if (profiler.ok()) {
      profiler_ = std::move(*profiler);
    } else {
      state_.notes.push_back("no profiles, so optimize children get no feedback: " +
                             profiler.status().message());
    }
  }
  return Status::Ok();
}

std::string OptimizationRun::SourceOf(NodeId node) const {
  if (node == 0) return reference_source_;
  auto found = sources_.find(node);
  if (found != sources_.end()) return found->second;
  const std::string& hash = state_.record(node).source_hash;
  if (hash.empty()) return "";
  Result<std::string> text =
      ReadWholeFile((fs::path(workspace_->directory()) / "candidates" / (hash + ".cu")).string());
  return text.ok() ? *text : "";
}

Status OptimizationRun::StoreSource(NodeId node, const std::string& source) {
  NodeRecord& record = state_.record(node);
  KOPT_ASSIGN_OR_RETURN(record.source_hash, workspace_->StoreCandidate(source, "", record.name));
  sources_[node] = source;
  return Status::Ok();
}

void OptimizationRun::WriteNodeArtifact(NodeId node, const std::string& file, const std::string& text) {
  if (text.empty()) return;
  Result<std::string> written =
      workspace_->WriteArtifact(fmt::format("runs/{}/nodes/n{}/{}", state_.run_id, node, file), text);
  if (!written.ok()) state_.notes.push_back("could not keep an artifact: " + written.status().message());
}

Status OptimizationRun::Persist() {
  state_.usage.wall_seconds = wall_before_ + (Now() - started_at_);
  return store_->Save(state_);
}

Status OptimizationRun::PersistWhole() {
  state_.usage.wall_seconds = wall_before_ + (Now() - started_at_);
  return store_->Compact(state_);
}

void OptimizationRun::Stop(RunStatus status, std::string reason) {
  if (stopping_) return;
  stopping_ = true;
  state_.status = status;
  state_.stop_reason = std::move(reason);
  changed_.notify_all();
}

std::optional<std::string> OptimizationRun::BudgetStop(int64_t in_flight) const {
  const OptimizeBudget& budget = settings_.budget;
  const RunUsage& usage = state_.usage;
  if (budget.max_evaluations && usage.evaluations + in_flight >= *budget.max_evaluations) {
    return fmt::format("max_evaluations ({}) reached", *budget.max_evaluations);
  }
  double wall = wall_before_ + (Now() - started_at_);
  if (budget.max_seconds && wall >= *budget.max_seconds)
    return fmt::format("max_seconds ({:g} s) reached", *budget.max_seconds);
  if (budget.max_gpu_seconds && usage.gpu_seconds >= *budget.max_gpu_seconds) {
    return fmt::format("max_gpu_seconds ({:g} s) reached", *budget.max_gpu_seconds);
  }
  if (budget.max_llm_cost_usd && usage.llm_cost_usd >= *budget.max_llm_cost_usd) {
    return fmt::format("max_llm_cost ({:g} USD) reached", *budget.max_llm_cost_usd);
  }
  if (budget.max_llm_tokens && usage.llm_input_tokens + usage.llm_output_tokens >= *budget.max_llm_tokens) {
    return fmt::format("max_llm_tokens ({}) reached", *budget.max_llm_tokens);
  }
  return std::nullopt;
}

std::string OptimizationRun::ClassFor(NodeId node) const {
  for (std::optional<NodeId> id = node; id.has_value(); id = state_.tree.node(*id).parent) {
    if (!state_.record(*id).bottleneck_class.empty()) return state_.record(*id).bottleneck_class;
  }
  return state_.reference_class;
}

Status OptimizationRun::MeasureReference() {
  if (state_.tree.empty()) {
    KOPT_ASSIGN_OR_RETURN(NodeId root, state_.tree.AddRoot("reference"));
    NodeRecord record;
    record.id = root;
    record.name = "reference";
    record.generator = "reference";
    record.reason = "the task's reference.cu";
    state_.records.push_back(record);
  }
  if (!state_.tree.node(0).pending()) return Status::Ok();
  KOPT_ASSIGN_OR_RETURN(MeasurementEntry entry, sessions_.front()->MeasureReference());
  NodeRecord& record = state_.record(0);
  Evaluation evaluation = EvaluationOf(entry, settings_.measure.energy, record);
  record.device = settings_.devices.front();
  state_.usage.gpu_seconds += entry.measure_seconds;
  if (evaluation.status == NodeStatus::kRejected)
    evaluation.status = NodeStatus::kVerified;  // no floor for the reference
  KOPT_RETURN_IF_ERROR(state_.tree.Record(0, evaluation));
  state_.reference_time_s = state_.tree.reference_time_s();
  if (evaluation.status != NodeStatus::kVerified) {
    state_.status = RunStatus::kFailed;
    state_.stop_reason = "the reference failed: " + entry.message;
    KOPT_RETURN_IF_ERROR(Persist());
    return WorkFailed(fmt::format("{}: the reference failed ({}): {}; nothing to optimize against",
                                  state_.task_directory, entry.KindName(), entry.message));
  }
  KOPT_RETURN_IF_ERROR(Persist());
  Report(0);
  return Status::Ok();
}

Status OptimizationRun::EvaluateSeeds() {
  std::unique_lock lock(mutex_);
  for (const std::string& path : settings_.seed_candidate_paths) {
    std::string name = "seed:" + fs::path(path).stem().string();
    bool known = false;
    for (const NodeRecord& record : state_.records) known = known || record.name == name;
    if (known) continue;
    KOPT_ASSIGN_OR_RETURN(std::string source, ReadWholeFile(path));
    if (std::optional<std::string> stop = BudgetStop(0)) {
      Stop(RunStatus::kFinished, *stop);
      return Status::Ok();
    }
    KOPT_ASSIGN_OR_RETURN(NodeId node, state_.tree.AddChild(0, GenerationMode::kInitial, "seed " + path));
    NodeRecord record;
    record.id = node;
    record.name = name;
    record.generator = "seed";
    record.reason = "seed candidate " + path;
    state_.records.push_back(record);
    agents::GeneratedCandidate given;
    given.outcome = agents::GenerationOutcome::kSource;
    given.source = source;
    given.reason = record.reason;
    KOPT_RETURN_IF_ERROR(EvaluateNode(node, 0, lock, given));
  }
  return Status::Ok();
}

agents::GenerationRequest OptimizationRun::BuildRequest(NodeId node) const {
  const SearchNode& search_node = state_.tree.node(node);
  agents::GenerationRequest request;
  request.mode = search_node.mode;
  request.node_id = node;
  request.parent_id = search_node.parent.value_or(0);
  NodeId parent = request.parent_id;
  const NodeRecord& parent_record = state_.record(parent);
  const SearchNode& parent_node = state_.tree.node(parent);
  request.parent_source = SourceOf(parent);
  request.reference_time_seconds = state_.reference_time_s;
  request.objective = settings_.objective;
  if (std::optional<NodeId> best = state_.tree.BestNode())
    request.best_time_seconds = state_.tree.node(*best).time_s;
  if (parent_node.verified()) request.parent_time_seconds = parent_node.time_s;
  if (request.mode == GenerationMode::kRepair) {
    if (parent_node.status == NodeStatus::kFailedCompile) {
      request.compiler_output = parent_record.repair_text;
    } else {
      agents::CorrectnessFailure failure;
      failure.kind = parent_record.failure_kind.empty() ? std::string(NodeStatusName(parent_node.status))
                                                        : parent_record.failure_kind;
      failure.message = parent_record.repair_text.empty() ? parent_record.message : parent_record.repair_text;
      request.correctness_failure = failure;
    }
    if (request.parent_source.empty()) {  // a generation without code: repair from the nearest source
      std::optional<NodeId> ancestor = state_.tree.NearestVerifiedAncestor(parent);
      request.parent_source = SourceOf(ancestor.value_or(0));
    }
  }
  if (request.mode == GenerationMode::kOptimize) {
    request.feedback_text = parent_record.feedback_text;
    request.finding_ids = parent_record.finding_ids;
    request.last_change_text = parent_record.change_text;
    if (request.feedback_text.empty() && settings_.feedback != FeedbackMode::kNone &&
        !parent_record.profile_note.empty()) {
      request.feedback_text = "(no profile: " + parent_record.profile_note + ")";
    }
  }
  Result<std::vector<MemoryNote>> notes = memory_->Notes(state_.task, ClassFor(parent), kMemoryNoteBytes);
  if (notes.ok()) {
    for (const MemoryNote& note : *notes) {
      request.memory_notes.push_back(fmt::format("[{}{}] {}", MemoryNoteKindName(note.kind),
                                                 note.count > 1 ? fmt::format(" ×{}", note.count) : "",
                                                 note.text));
    }
  }
  return request;
}

void OptimizationRun::ProfileNode(NodeId node, size_t device_index, std::unique_lock<std::mutex>& lock) {
  NodeRecord& record = state_.record(node);
  if (record.profiled) return;
  record.profiled = true;  // once, even when it fails (the note says why)
  if (profiler_ == nullptr || !settings_.profile) {
    record.profile_note =
        settings_.profile ? "no profiler on this machine" : "profiling is off (--no-profile)";
    return;
  }
  CandidateProfileRequest request;
  request.name =
      fmt::format("run{}_{}", state_.run_id, node == 0 ? std::string("reference") : fmt::format("n{}", node));
  request.source = SourceOf(node);
  request.device = settings_.devices[device_index];
  std::vector<std::string> notes;
  double started = Now();
  lock.unlock();
  Result<Profile> profile = profiler_->ProfileCandidate(request, notes);
  std::optional<Diagnosis> diagnosis;
  if (profile.ok()) {
    // The energy section and the findings' savings in the feedback (docs/energy.md): the coefficients
    // for the profile's GPU, looked up once under the lock (the lookup's notes are the predictor's).
    DiagnoseOptions options;
    lock.lock();
    std::vector<std::string> lookup_notes;
    options.energy_coefficients = feedback_energy_.CoefficientsFor(*profile, state_.gpu, lookup_notes);
    lock.unlock();
    diagnosis = Diagnose(*profile, options);
  }
  std::optional<agents::ProfileExplanation> explanation;
  if (diagnosis && FeedbackExplains(settings_.feedback) && environment_.explain_profile) {
    explanation = environment_.explain_profile(*profile, *diagnosis,
                                               agents::ExplainedSource{request.name + ".cu", request.source});
  }
  lock.lock();
  if (explanation) CountExplanationUsage(*explanation);
  NodeRecord& profiled = state_.record(node);
  profiled.profile_seconds = Now() - started;
  state_.usage.gpu_seconds += profiled.profile_seconds;
  if (!profile.ok()) {
    profiled.profile_note = profile.status().message();
    return;
  }
  PredictEnergyOf(node, *profile);
  if (diagnosis.has_value() && !diagnosis->kernels.empty()) {
    const KernelDiagnosis& kernel = diagnosis->kernels.front();
    profiled.bottleneck_class = std::string(BottleneckClassName(kernel.roofline.bottleneck));
    if (!kernel.findings.empty()) profiled.top_finding = kernel.findings.front().tool;
    for (const Finding& finding : kernel.findings) profiled.finding_ids.push_back(finding.tool);
  }
  if (node == 0) state_.reference_class = profiled.bottleneck_class;
  profiled.feedback_text =
      FeedbackText(*profile, diagnosis ? &*diagnosis : nullptr, explanation ? &*explanation : nullptr);
  if (explanation) WriteNodeArtifact(node, "explanation.txt", explanation->text);
  WriteNodeArtifact(node, "feedback.txt", profiled.feedback_text);
  // What the node's change did: its profile against its parent's, when that one was profiled.
  auto shared = std::make_shared<const Profile>(std::move(*profile));
  profiles_[node] = shared;
  std::optional<NodeId> parent = state_.tree.node(node).parent;
  if (environment_.render_change && parent) {
    auto parent_profile = profiles_.find(*parent);
    if (parent_profile != profiles_.end()) {
      profiled.change_text = environment_.render_change(*parent_profile->second, *shared);
      WriteNodeArtifact(node, "change.txt", profiled.change_text);
    }
  }
}

// A verified candidate whose generation looked CUTLASS/CuTe up and whose
// source uses it: the pattern, for every later problem (search memory shares
// api_pattern notes across tasks).
void OptimizationRun::RememberApiPattern(NodeId node, const std::optional<SourceChange>& diff) {
  const NodeRecord& record = state_.record(node);
  if (record.source_lookups.empty() || !diff || diff->library_constructs.empty()) return;
  MemoryNote note;
  note.task = state_.task;
  note.bottleneck_class = ClassFor(node);
  note.kind = MemoryNoteKind::kApiPattern;
  std::vector<std::string> lookups(
      record.source_lookups.begin(),
      record.source_lookups.begin() + std::min<size_t>(3, record.source_lookups.size()));
  note.text = fmt::format("{} compiled and verified on {}; found by {}",
                          fmt::join(diff->library_constructs, ", "), state_.task, fmt::join(lookups, "; "));
  Status recorded = memory_->Record(note);
  if (!recorded.ok()) state_.notes.push_back("search memory: " + recorded.message());
}

void OptimizationRun::CountExplanationUsage(const agents::ProfileExplanation& explanation) {
  state_.usage.llm_input_tokens += explanation.input_tokens;
  state_.usage.llm_output_tokens += explanation.output_tokens;
  state_.usage.llm_cost_usd += explanation.cost_usd;
  state_.usage.llm_cost_known = state_.usage.llm_cost_known && explanation.cost_known;
}

std::string OptimizationRun::FeedbackText(const Profile& profile, const Diagnosis* diagnosis,
                                          const agents::ProfileExplanation* explanation) const {
  std::string findings =
      diagnosis && environment_.render_feedback ? environment_.render_feedback(*diagnosis) : std::string();
  std::string narrative = explanation ? explanation->text : std::string();
  if (explanation == nullptr && FeedbackExplains(settings_.feedback)) {
    narrative = diagnosis ? "(no explanation: no explainer configured)" : "(no explanation: no diagnosis)";
  }
  switch (settings_.feedback) {
    case FeedbackMode::kDiagnosis: return findings;
    case FeedbackMode::kRaw:
      return environment_.render_raw_metrics ? environment_.render_raw_metrics(profile) : std::string();
    case FeedbackMode::kNone: return "";
    case FeedbackMode::kExplanation: return narrative;
    case FeedbackMode::kDiagnosisExplanation:
      return findings +
             "\n\nEXPLANATION (an LLM's narrative of this profile; every number checked against "
             "it)\n" +
             narrative;
  }
  return "";
}

void OptimizationRun::RememberOutcome(NodeId node) {
  const SearchNode& search_node = state_.tree.node(node);
  const NodeRecord& record = state_.record(node);
  MemoryNote note;
  note.task = state_.task;
  note.bottleneck_class = ClassFor(node);
  std::optional<NodeId> parent = search_node.parent;
  // What changed: the generator's words (an LLM's own sentence, else its
  // reason), then the diff against the parent's source.
  std::string change = !record.stated_change.empty() ? record.stated_change
                       : record.reason.empty()       ? record.name
                                                     : record.reason;
  std::optional<SourceChange> diff;
  if (parent && !record.source_hash.empty()) {
    diff = DescribeSourceChange(SourceOf(*parent), SourceOf(node));
    change += " [" + FormatSourceChange(*diff) + "]";
  }
  switch (search_node.status) {
    case NodeStatus::kVerified: {
      if (parent && state_.tree.node(*parent).status == NodeStatus::kFailedCompile) {
        note.kind = MemoryNoteKind::kCompileErrorFix;
        std::string error(TrimWhitespace(SplitLines(state_.record(*parent).repair_text).empty()
                                             ? std::string_view()
                                             : SplitLines(state_.record(*parent).repair_text).front()));
        note.text = fmt::format("compile error \"{}\" was fixed by: {}", Abbreviate(error, 160), change);
        break;
      }
      std::optional<NodeId> base = state_.tree.NearestVerifiedAncestor(node);
      if (!base) return;
      double ratio = search_node.time_s > 0 ? state_.tree.node(*base).time_s / search_node.time_s : 0;
      note.kind = state_.tree.Improved(node) ? MemoryNoteKind::kHelped : MemoryNoteKind::kHurt;
      note.text =
          fmt::format("{}: {:.2f}x vs its parent ({} → {})", change, ratio,
                      FormatSeconds(state_.tree.node(*base).time_s), FormatSeconds(search_node.time_s));
      RememberApiPattern(node, diff);
      break;
    }
    case NodeStatus::kFailedCompile: return;  // remembered once a repair fixes it (above)
    case NodeStatus::kFailedCheck:
      note.kind = MemoryNoteKind::kFailedCheck;
      note.text = fmt::format("{}: {}: {}", change, record.failure_kind, Abbreviate(record.message, 200));
      break;
    case NodeStatus::kRejected:
      note.kind = MemoryNoteKind::kRejectedCheat;
      note.text = fmt::format("{}: {}", change, Abbreviate(record.message, 200));
      break;
    default: return;
  }
  Status recorded = memory_->Record(note);
  if (!recorded.ok()) state_.notes.push_back("search memory: " + recorded.message());
}

void OptimizationRun::Finish(NodeId node, const Evaluation& evaluation) {
  Status recorded = state_.tree.Record(node, evaluation);
  if (!recorded.ok()) {
    worker_error_ = recorded;
    Stop(RunStatus::kFailed, recorded.message());
    return;
  }
  policy_->OnRecorded(state_.tree, node);
  RememberOutcome(node);
}

Status OptimizationRun::MeasureSource(NodeId node, size_t device_index, const std::string& source,
                                      std::unique_lock<std::mutex>& lock) {
  std::string name = fmt::format("n{}", node);
  MeasureSession& session = *sessions_[device_index];
  lock.unlock();
  Result<MeasurementEntry> entry = session.MeasureCandidate(source, name);
  // Interrupted meanwhile (SIGTERM of a Slurm requeue or time limit, Ctrl-C): the child was killed
  // under the measurement, so its failure is not the candidate's; the handler marks the run
  // interrupted and the resumed run measures the candidate again.
  if (InterruptRequested()) AwaitInterruptExit();
  lock.lock();
  if (!entry.ok()) return entry.status();
  NodeRecord& record = state_.record(node);
  record.device = settings_.devices[device_index];
  Evaluation evaluation = EvaluationOf(*entry, settings_.measure.energy, record);
  evaluation.transposition_keys.push_back(SourceTranspositionKey(source));
  state_.usage.gpu_seconds += entry->measure_seconds;
  WriteNodeArtifact(node, "verdict.txt", record.repair_text);
  Finish(node, evaluation);
  ProfileForEnergy(node, device_index, lock);
  return Status::Ok();
}

void OptimizationRun::PredictEnergyOf(NodeId node, const Profile& profile) {
  std::optional<NodeEnergyPrediction> prediction =
      energy_predictor_.Predict(profile, state_.gpu, state_.notes);
  if (!prediction) return;
  NodeRecord& record = state_.record(node);
  record.predicted_energy_j = prediction->dynamic_joules;
  record.energy_model = prediction->model;
  Status set = state_.tree.SetPredictedEnergy(node, prediction->dynamic_joules);
  if (!set.ok()) state_.notes.push_back("energy prediction: " + set.message());
}

// Under time+energy, a verified node without a measured energy can only be
// ranked on energy by the proxy model, against another prediction: profile
// it, and the best so far when their times overlap, so both have one.
void OptimizationRun::ProfileForEnergy(NodeId node, size_t device_index, std::unique_lock<std::mutex>& lock) {
  if (settings_.objective != Objective::kTimeEnergy || profiler_ == nullptr) return;
  const SearchNode& measured = state_.tree.node(node);
  if (!measured.verified() || measured.energy_j) return;
  std::optional<NodeId> best = state_.tree.BestNode();
  ProfileNode(node, device_index, lock);
  if (!best || *best == node) return;
  const SearchNode& rival = state_.tree.node(*best);
  const SearchNode& self = state_.tree.node(node);
  if (!rival.energy_j &&
      TimesOverlap(self.time_s, self.time_noise_fraction, rival.time_s, rival.time_noise_fraction)) {
    ProfileNode(*best, device_index, lock);
  }
}

Status OptimizationRun::EvaluateNode(NodeId node, size_t device_index, std::unique_lock<std::mutex>& lock,
                                     std::optional<agents::GeneratedCandidate> given) {
  NodeRecord& record = state_.record(node);
  if (!record.source_hash.empty()) {  // resumed: generated before the stop
    std::string source = SourceOf(node);
    if (!source.empty()) return MeasureSource(node, device_index, source, lock);
  }
  agents::GeneratedCandidate candidate;
  if (given.has_value()) {
    candidate = std::move(*given);
  } else {
    NodeId parent = state_.tree.node(node).parent.value_or(0);
    if (state_.tree.node(node).mode == GenerationMode::kOptimize &&
        settings_.feedback != FeedbackMode::kNone) {
      ProfileNode(parent, device_index, lock);
    }
    agents::GenerationRequest request = BuildRequest(node);
    double started = Now();
    lock.unlock();
    Result<agents::GeneratedCandidate> generated = environment_.generator->Generate(request);
    lock.lock();
    state_.record(node).generation_seconds = Now() - started;
    if (!generated.ok()) {
      if (generated.status().kind() == ErrorKind::kUnavailable) {
        Stop(RunStatus::kPaused,
             fmt::format("paused: the generator is unavailable: {}; continue with kopt optimize "
                         "--resume {}",
                         generated.status().message(), state_.run_id));
        return Status::Ok();
      }
      return generated.status();
    }
    candidate = std::move(*generated);
  }
  NodeRecord& generated_record = state_.record(node);
  generated_record.reason = candidate.reason;
  generated_record.answer_id = candidate.answer_id;
  generated_record.llm_input_tokens = candidate.input_tokens;
  generated_record.llm_output_tokens = candidate.output_tokens;
  generated_record.llm_cost_usd = candidate.cost_usd;
  for (const agents::PromptRecord& prompt : candidate.prompts) {
    generated_record.prompt_ids.push_back(
        fmt::format("{} v{} {}", prompt.id, prompt.version, prompt.text_sha256));
  }
  state_.usage.llm_input_tokens += candidate.input_tokens;
  state_.usage.llm_output_tokens += candidate.output_tokens;
  state_.usage.llm_cost_usd += candidate.cost_usd;
  state_.usage.llm_cost_known = state_.usage.llm_cost_known && candidate.cost_known;
  generated_record.stated_change = StatedChange(candidate.response_text);
  generated_record.source_lookups = candidate.source_lookups;
  WriteNodeArtifact(node, "response.txt", candidate.response_text);
  WriteNodeArtifact(node, "tools.jsonl", candidate.tool_exchange);  // the LLM's tool calls and results
  if (generated_record.generator.empty()) {
    generated_record.generator = std::string(agents::GeneratorKindName(environment_.generator->kind()));
  }
  if (candidate.outcome != agents::GenerationOutcome::kSource) {
    bool exhausted = candidate.outcome == agents::GenerationOutcome::kExhausted;
    exhausted_in_a_row_ = exhausted ? exhausted_in_a_row_ + 1 : 0;
    Evaluation evaluation;
    evaluation.status = NodeStatus::kFailedGenerate;
    evaluation.detail = candidate.message;
    generated_record.message = candidate.message;
    generated_record.repair_text = candidate.message;
    generated_record.failure_kind = std::string(agents::GenerationOutcomeName(candidate.outcome));
    Finish(node, evaluation);
    if (exhausted) {
      (void)state_.tree.Close(node, CloseReason::kCaller);
      if (exhausted_in_a_row_ >= kExhaustedInARow)
        Stop(RunStatus::kFinished, "generator exhausted: " + candidate.message);
    }
    return Status::Ok();
  }
  exhausted_in_a_row_ = 0;
  KOPT_RETURN_IF_ERROR(StoreSource(node, candidate.source));
  // What the generator expects to serve next compiles while this one is measured.
  if (!candidate.compile_ahead.empty()) sessions_[device_index]->CompileAhead(candidate.compile_ahead);
  std::string key = SourceTranspositionKey(candidate.source);
  if (std::optional<NodeId> owner = state_.tree.FindTransposition(key); owner && *owner != node) {
    state_.record(node).message = fmt::format("same source as n{}: not measured again", *owner);
    KOPT_RETURN_IF_ERROR(state_.tree.RecordDuplicate(node, *owner));
    policy_->OnRecorded(state_.tree, node);
    return Status::Ok();
  }
  KOPT_RETURN_IF_ERROR(state_.tree.AddTranspositionKey(node, key));
  KOPT_RETURN_IF_ERROR(Persist());  // the source survives a crash during the measurement
  return MeasureSource(node, device_index, candidate.source, lock);
}

void OptimizationRun::Report(NodeId node) {
  if (!environment_.progress) return;
  OptimizeProgress progress;
  progress.state = &state_;
  progress.node = node;
  progress.max_evaluations = settings_.budget.max_evaluations.value_or(0);
  environment_.progress(progress);
}

void OptimizationRun::Worker(size_t device_index) {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (std::optional<std::string> stop = BudgetStop(in_flight_)) {
      if (in_flight_ == 0) Stop(RunStatus::kFinished, *stop);
      if (!stopping_) changed_.wait(lock);
      continue;
    }
    Proposal proposal = policy_->Propose(state_.tree);
    if (proposal.kind != ProposalKind::kExpand) {
      if (in_flight_ == 0 && state_.tree.pending_count() == 0) {
        Stop(RunStatus::kFinished, "search exhausted: every branch is closed");
      } else if (!stopping_) {
        changed_.wait(lock);
      }
      continue;
    }
    Result<NodeId> node = state_.tree.AddChild(proposal.parent, proposal.mode, proposal.reason);
    if (!node.ok()) {
      worker_error_ = node.status();
      Stop(RunStatus::kFailed, node.status().message());
      break;
    }
    NodeRecord record;
    record.id = *node;
    record.name = fmt::format("n{}", *node);
    state_.records.push_back(record);
    ++in_flight_;
    ++state_.usage.evaluations;
    Status evaluated = EvaluateNode(*node, device_index, lock, std::nullopt);
    --in_flight_;
    if (!evaluated.ok()) {
      worker_error_ = evaluated;
      Stop(RunStatus::kFailed, evaluated.message());
    }
    Status persisted = Persist();
    if (!persisted.ok() && worker_error_.ok()) {
      worker_error_ = persisted;
      Stop(RunStatus::kFailed, persisted.message());
    }
    if (!state_.tree.node(*node).pending()) Report(*node);
    changed_.notify_all();
  }
}

Result<RunState> OptimizationRun::Run() {
  KOPT_RETURN_IF_ERROR(MeasureReference());
  {
    // Resumed pending nodes: measured (or generated) again, in id order.
    std::unique_lock lock(mutex_);
    for (NodeId node : state_.tree.PendingNodes()) {
      if (stopping_) break;
      KOPT_RETURN_IF_ERROR(EvaluateNode(node, 0, lock, std::nullopt));
      KOPT_RETURN_IF_ERROR(Persist());
      Report(node);
    }
  }
  KOPT_RETURN_IF_ERROR(EvaluateSeeds());
  if (settings_.devices.size() == 1) {
    Worker(0);
  } else {
    std::vector<std::thread> workers;
    for (size_t index = 0; index < settings_.devices.size(); ++index)
      workers.emplace_back([this, index] { Worker(index); });
    for (std::thread& worker : workers) worker.join();
  }
  std::unique_lock lock(mutex_);
  if (!worker_error_.ok()) {
    (void)Persist();
    return worker_error_;
  }
  for (std::unique_ptr<MeasureSession>& session : sessions_) {
    lock.unlock();
    Result<MeasurementReport> report = session->Finish();
    lock.lock();
    if (!report.ok()) {
      state_.notes.push_back("closing a measurement session: " + report.status().message());
      continue;
    }
    if (state_.gpu.empty()) state_.gpu = report->gpu;
    if (report->floor_seconds > 0) state_.floor_s = report->floor_seconds;
    if (report->reference_drift.has_value() && std::abs(*report->reference_drift) > 0.02) {
      state_.notes.push_back(fmt::format("the reference's time drifted by {:+.1f} % during the run on {}",
                                         *report->reference_drift * 100, report->gpu));
    }
  }
  UpdateMissingEnergyNotes(state_, settings_.objective);
  std::optional<NodeId> best = state_.tree.BestNode();
  if (best.has_value()) {
    Result<std::string> written =
        workspace_->WriteArtifact(fmt::format("runs/{}/best.cu", state_.run_id), SourceOf(*best));
    if (!written.ok()) state_.notes.push_back("could not write best.cu: " + written.status().message());
  }
  if (state_.status == RunStatus::kRunning) state_.status = RunStatus::kFinished;
  KOPT_RETURN_IF_ERROR(PersistWhole());
  return state_;
}

}  // namespace

std::string_view FeedbackModeName(FeedbackMode mode) {
  switch (mode) {
    case FeedbackMode::kDiagnosis: return "diagnosis";
    case FeedbackMode::kRaw: return "raw";
    case FeedbackMode::kNone: return "none";
    case FeedbackMode::kExplanation: return "explanation";
    case FeedbackMode::kDiagnosisExplanation: return "diagnosis+explanation";
  }
  return "unknown";
}

Result<FeedbackMode> ParseFeedbackMode(std::string_view text) {
  for (FeedbackMode mode : {FeedbackMode::kDiagnosis, FeedbackMode::kRaw, FeedbackMode::kNone,
                            FeedbackMode::kExplanation, FeedbackMode::kDiagnosisExplanation}) {
    if (text == FeedbackModeName(mode)) return mode;
  }
  return InvalidInput(
      fmt::format("--feedback: \"{}\" is not a feedback mode; expected diagnosis, raw, none, explanation or "
                  "diagnosis+explanation",
                  text));
}

Status ValidateBudget(const OptimizeBudget& budget) {
  auto refuse = [](const char* option, const std::string& value) {
    return InvalidInput(
        fmt::format("{} {}: a budget of zero or less allows nothing; give a positive limit or "
                    "leave the option out for no limit",
                    option, value));
  };
  if (budget.max_evaluations && *budget.max_evaluations <= 0)
    return refuse("--max-evaluations", std::to_string(*budget.max_evaluations));
  if (budget.max_seconds && !(*budget.max_seconds > 0))
    return refuse("--max-seconds", fmt::format("{:g}", *budget.max_seconds));
  if (budget.max_gpu_seconds && !(*budget.max_gpu_seconds > 0)) {
    return refuse("--max-gpu-seconds", fmt::format("{:g}", *budget.max_gpu_seconds));
  }
  if (budget.max_llm_cost_usd && !(*budget.max_llm_cost_usd > 0)) {
    return refuse("--max-llm-cost", fmt::format("{:g}", *budget.max_llm_cost_usd));
  }
  if (budget.max_llm_tokens && *budget.max_llm_tokens <= 0)
    return refuse("--max-llm-tokens", std::to_string(*budget.max_llm_tokens));
  return Status::Ok();
}

Result<RunState> RunOptimization(const OptimizeSettings& settings, const OptimizeEnvironment& environment) {
  KOPT_RETURN_IF_ERROR(ValidateBudget(settings.budget));
  if (environment.generator == nullptr) return Internal("RunOptimization: no generator");
  OptimizeSettings effective = settings;
  if (effective.objective == Objective::kTimeEnergy) effective.measure.energy = true;  // what energy ranks
  OptimizationRun run(effective, environment);
  KOPT_RETURN_IF_ERROR(run.Open());
  return run.Run();
}

Result<RunState> LoadRunState(const std::string& workspace_directory, int64_t run_id) {
  return LoadRunStateFiles(workspace_directory, run_id);
}

Result<int64_t> LatestOptimizeRun(const std::string& workspace_directory) {
  fs::path runs = fs::path(workspace_directory) / "runs";
  std::error_code error;
  int64_t latest = -1;
  if (fs::is_directory(runs, error)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(runs, error)) {
      std::optional<long long> id = ParseInteger(entry.path().filename().string());
      if (id && fs::exists(entry.path() / "optimize.json", error)) latest = std::max<int64_t>(latest, *id);
    }
  }
  if (latest < 0)
    return NotFound(fmt::format("{}: no kopt optimize run in this workspace", workspace_directory));
  return latest;
}

}  // namespace kopt
