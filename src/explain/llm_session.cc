#include "explain/llm_session.h"

#include <fmt/format.h>

#include <filesystem>

#include "agents/evidence_digest.h"
#include "agents/explanation_agent.h"
#include "agents/prompt_template.h"
#include "core/file_io.h"
#include "core/terminal_text.h"
#include "llm/client_factory.h"
#include "llm/config.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

std::string OneLine(std::string text) {
  for (char& character : text) {
    if (character == '\n' || character == '\r') character = ' ';
  }
  return text;
}

std::string LocationOf(const agents::Hypothesis& hypothesis) {
  if (hypothesis.source_lines.empty()) return "";
  std::string lines;
  for (int line : hypothesis.source_lines) lines += (lines.empty() ? "" : ", ") + std::to_string(line);
  return (hypothesis.source_file.empty() ? "line" : hypothesis.source_file + ":") + lines;
}

HypothesisOutcome OutcomeOf(const agents::CheckedHypothesis& checked) {
  HypothesisOutcome outcome;
  outcome.kernel = checked.kernel;
  outcome.prediction = checked.hypothesis.title;
  outcome.origin = std::string(agents::HypothesisOriginName(checked.hypothesis.origin));
  outcome.location = LocationOf(checked.hypothesis);
  outcome.rationale = checked.hypothesis.reason;
  outcome.verdict = std::string(agents::HypothesisVerdictName(checked.verdict));
  outcome.finding = checked.finding;
  outcome.explanation = checked.explanation;
  for (const Evidence& evidence : checked.evidence) {
    outcome.evidence.push_back({evidence.metric, evidence.value, evidence.unit});
  }
  return outcome;
}

}  // namespace

void StreamLogSink::Log(std::string_view line) {
  std::lock_guard lock(mutex_);
  stream_ << "kopt: " << SanitizeLinesForTerminal(line) << "\n";
}

Status CheckLlmConfiguration(const LlmSettings& settings) {
  // --llm with no usable configuration (none at all, a typo in the named file, no model or key) is bad
  // input (exit 2), found before any work; an unreachable endpoint later only costs the narrative.
  if (!settings.narrative) return Status::Ok();
  return llm::CheckLlmConfig(settings.config_path, settings.record_path, settings.replay_path);
}

KernelSource LoadKernelSource(const std::string& source_path, const ProfileRequest& profile,
                              std::vector<std::string>& notes) {
  std::string path = source_path;
  if (path.empty() && profile.program_argv.empty() && fs::path(profile.target).extension() == ".cu") {
    path = profile.target;
  }
  if (path.empty()) return {};
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    notes.push_back("kernel source not used: " + text.status().message());
    return {};
  }
  return KernelSource{fs::path(path).filename().string(), std::move(text).value()};
}

LlmSession LlmSession::Open(const LlmSettings& settings, llm::LogSink* log) {
  LlmSession session;
  Result<llm::LlmConfig> config =
      llm::LoadLlmConfig(settings.config_path, llm::ProcessEnvironment(),
                         llm::TranscriptOverrides(settings.record_path, settings.replay_path));
  if (!config.ok()) {
    session.failure_ = OneLine("no LLM narrative: LLM configuration: " + config.status().message());
    return session;
  }
  llm::ClientDependencies dependencies;
  dependencies.log_sink = log;
  Result<std::unique_ptr<llm::ChatClient>> client = llm::MakeChatClient(*config, dependencies);
  if (!client.ok()) {
    session.failure_ = OneLine("no LLM narrative: " + client.status().message());
    return session;
  }
  Result<std::string> directory = agents::FindPromptDirectory();
  if (!directory.ok()) {
    session.failure_ = OneLine("no LLM narrative: prompt templates: " + directory.status().message());
    return session;
  }
  session.client_ = std::move(client).value();
  session.prompt_directory_ = std::move(directory).value();
  return session;
}

LlmSession LlmSession::WithClient(std::unique_ptr<llm::ChatClient> client, std::string prompt_directory) {
  LlmSession session;
  session.client_ = std::move(client);
  session.prompt_directory_ = std::move(prompt_directory);
  return session;
}

LlmSession LlmSession::Unavailable(std::string failure) {
  LlmSession session;
  session.failure_ = OneLine(failure);
  return session;
}

agents::HypothesisSet PredictHypothesesFor(const Profile& profile, const KernelSource& source,
                                           const LlmSession* session) {
  agents::HypothesisInputs inputs;
  inputs.source_file = source.file_name;
  inputs.source = source.text;
  inputs.sass = profile.sass ? &*profile.sass : nullptr;
  inputs.ptxas = profile.ptxas ? &*profile.ptxas : nullptr;
  llm::ChatClient* client = session ? session->client() : nullptr;
  return agents::PredictHypotheses(inputs, client, client ? session->prompt_directory() : "");
}

void AddCheckedHypotheses(const agents::HypothesisSet& predictions, Diagnosis& diagnosis) {
  diagnosis.hypotheses_run = true;
  for (const agents::CheckedHypothesis& checked :
       agents::CheckHypotheses(predictions.hypotheses, diagnosis)) {
    diagnosis.hypotheses.push_back(OutcomeOf(checked));
  }
  if (predictions.llm_error) {
    diagnosis.notes.push_back(OneLine("LLM hypotheses not used: " + *predictions.llm_error));
  }
}

void AddNarrative(const Profile& profile, const KernelSource& source, const LlmSession& session,
                  Diagnosis& diagnosis) {
  if (!session.client()) {
    Narrative narrative;
    narrative.missing_reason = session.failure();
    diagnosis.narrative = std::move(narrative);
    return;
  }
  agents::DigestInputs inputs{&diagnosis, agents::HotSpotsFromProfile(profile, diagnosis), source.file_name,
                              source.text};
  agents::ExplanationOptions options;
  options.prompt_directory = session.prompt_directory();
  diagnosis.narrative = agents::ExplanationAgent(*session.client(), options).Explain(inputs);
}

Narrative NarrateDigest(const LlmSession& session, std::string_view family, const std::string& digest) {
  if (!session.client()) {
    Narrative narrative;
    narrative.missing_reason = session.failure();
    return narrative;
  }
  agents::EvidenceSet evidence;
  evidence.AddNumbersIn(std::string(family) + " report", digest);
  agents::ExplanationOptions options;
  options.prompt_directory = session.prompt_directory();
  return agents::ExplanationAgent(*session.client(), options).ExplainDigest(family, digest, evidence);
}

}  // namespace kopt
