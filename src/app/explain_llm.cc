#include "app/explain_llm.h"

#include <fmt/format.h>

#include <filesystem>

#include "agents/evidence_digest.h"
#include "agents/explanation_agent.h"
#include "agents/prompt_template.h"
#include "app/file_io.h"
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

llm::LlmConfigOverrides OverridesFor(const ExplainOptions& options) {
  llm::LlmConfigOverrides overrides;
  if (!options.llm_replay_path.empty()) {
    overrides.mode = llm::LlmMode::kReplay;
    overrides.transcript_path = options.llm_replay_path;
  } else if (!options.llm_record_path.empty()) {
    overrides.mode = llm::LlmMode::kRecord;
    overrides.transcript_path = options.llm_record_path;
  }
  return overrides;
}

}  // namespace

void StreamLogSink::Log(std::string_view line) {
  std::lock_guard lock(mutex_);
  stream_ << "kopt: llm: " << line << "\n";
}

KernelSource LoadKernelSource(const ExplainOptions& options, std::vector<std::string>& notes) {
  std::string path = options.source_path;
  if (path.empty() && options.program_argv.empty() && fs::path(options.target).extension() == ".cu") {
    path = options.target;
  }
  if (path.empty()) return {};
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    notes.push_back("kernel source not used: " + text.status().message());
    return {};
  }
  return KernelSource{fs::path(path).filename().string(), std::move(text).value()};
}

LlmSession LlmSession::Open(const ExplainOptions& options, llm::LogSink* log) {
  LlmSession session;
  Result<llm::LlmConfig> config =
      llm::LoadLlmConfig(options.llm_config_path, llm::ProcessEnvironment(), OverridesFor(options));
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

}  // namespace kopt
