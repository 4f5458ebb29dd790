// What the generator is shown and what the run remembers
// (optimization_run.h): a parent profiled once a child needs it, its
// diagnosis, explanation and energy prediction as feedback text, and the
// search memory's notes on outcomes and API patterns.
#include <fmt/format.h>

#include "analysis/diagnose.h"
#include "core/text.h"
#include "optimize/optimization_run.h"

namespace kopt::optimize_run {

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

}  // namespace kopt::optimize_run
