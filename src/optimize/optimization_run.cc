// The run itself (optimization_run.h): opening, the reference and seeds,
// the workers, the budget, persisting, the end.
#include "optimize/optimization_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include "agents/generator_table.h"
#include "core/file_io.h"
#include "core/text.h"

namespace kopt::optimize_run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

}  // namespace

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string Bounded(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + fmt::format("\n[... {} more characters cut]", text.size() - limit);
}

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
    measure.command = "kopt optimize";
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

}  // namespace kopt::optimize_run
