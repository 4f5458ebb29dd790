// One node evaluated (optimization_run.h): the generation request, the
// generator's answer, the transposition check, the measurement and its
// verdict as an Evaluation, recorded in the tree.
#include <fmt/format.h>

#include "agents/generator_table.h"
#include "core/quantity_format.h"
#include "core/text.h"
#include "optimize/optimization_run.h"
#include "search/transposition_key.h"

namespace kopt::optimize_run {
namespace {

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
    // The verdict caught the candidate gaming it: rejected, not retried as a bug.
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

}  // namespace

// Four significant digits in µs, the unit of most kernels; from 10 ms on (where "{:.4g}" would print
// an exponent, "1.234e+04 µs") in the unit that fits.
std::string FormatSeconds(double seconds) {
  if (seconds * 1e6 < 1e4) return fmt::format("{:.4g} µs", seconds * 1e6);
  return FormatDuration(seconds * 1e9, QuantityStyle::kFixed);
}

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
    // re-measured: the same suspect verdict as the flag above.
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

// The generator's answer into the node's record (reason, tokens, prompts,
// stated change, artifacts) and its tokens and dollars into the run's usage.
void OptimizationRun::RecordGeneration(NodeId node, const agents::GeneratedCandidate& candidate) {
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
  RecordGeneration(node, candidate);
  NodeRecord& generated_record = state_.record(node);
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

}  // namespace kopt::optimize_run
