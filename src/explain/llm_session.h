// The LLM side of `kopt explain`, `kopt diff`, versions and sweeps: the
// hypothesis pass (agents/hypotheses.h) and the narrative
// (agents/explanation_agent.h), added to a Diagnosis or a comparison.
//
// Nothing here fails the command: a bad LLM configuration, a missing prompt
// directory, an unreachable endpoint or a bad answer become a one-line reason
// in Diagnosis::narrative (or a note for the hypotheses' LLM pass), and the
// deterministic report stays whole. API keys never reach the report: every
// llm-layer error and log line is redacted there (llm/secret_redactor.h).
//
// Thread safety: one explain run at a time per LlmSession.
#pragma once

#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "agents/hypotheses.h"
#include "analysis/diagnosis.h"
#include "explain/profile_request.h"
#include "llm/chat.h"
#include "llm/log_sink.h"
#include "profile/profile.h"

namespace kopt {

// `--llm` and its files (docs/llm.md).
struct LlmSettings {
  // `--llm`: a narrative written by an LLM, every number checked against the
  // evidence. An LLM failure never fails the command: the report says why the
  // narrative is missing.
  bool narrative = false;
  bool verbose = false;     // log every exchange (redacted) on the session's LogSink
  std::string config_path;  // TOML with an [llm] table; empty: environment only
  std::string record_path;  // record every exchange to this transcript
  std::string replay_path;  // answer from this transcript only (no network, no key)
};

// A configuration file the user named with --llm is read and parsed before
// any work: a typo in it is bad input (InvalidInput, exit 2), while an
// unreachable endpoint or a missing key later only costs the narrative.
Status CheckLlmConfiguration(const LlmSettings& settings);

// The kernel source the hypotheses and the digest see.
struct KernelSource {
  std::string file_name;  // as shown ("uncoalesced_loads.cu")
  std::string text;       // empty: none
};

// Reads `source_path`, else the profile's target when it is a .cu file; a
// file that cannot be read becomes a note.
KernelSource LoadKernelSource(const std::string& source_path, const ProfileRequest& profile,
                              std::vector<std::string>& notes);

// The LLM client and prompt directory of one explain run, or why there is none.
class LlmSession {
 public:
  // Builds the client from --llm-config, the environment, --llm-record and
  // --llm-replay; `log` gets the --verbose lines (may be null).
  static LlmSession Open(const LlmSettings& settings, llm::LogSink* log);
  // A session over a client the caller built (tests; a caller with its own
  // client): `prompt_directory` holds the templates.
  static LlmSession WithClient(std::unique_ptr<llm::ChatClient> client, std::string prompt_directory);
  // A session without a client: every narrative is missing because of `failure` (one line).
  static LlmSession Unavailable(std::string failure);

  llm::ChatClient* client() const { return client_.get(); }  // null when unavailable
  const std::string& prompt_directory() const { return prompt_directory_; }
  const std::string& failure() const { return failure_; }  // one line; empty when ready

 private:
  std::unique_ptr<llm::ChatClient> client_;
  std::string prompt_directory_;
  std::string failure_;
};

// Predictions from the source, SASS and ptxas report (and the LLM's when
// `session` has a client), made before the diagnosis: they see no metrics.
agents::HypothesisSet PredictHypothesesFor(const Profile& profile, const KernelSource& source,
                                           const LlmSession* session);

// Checks the predictions against `diagnosis` and fills diagnosis.hypotheses;
// an LLM-pass failure becomes a note.
void AddCheckedHypotheses(const agents::HypothesisSet& predictions, Diagnosis& diagnosis);

// The checked narrative (or why it is missing) into diagnosis.narrative.
void AddNarrative(const Profile& profile, const KernelSource& source, const LlmSession& session,
                  Diagnosis& diagnosis);

// The checked narrative of a deterministic report that is not a Diagnosis
// (`kopt diff --llm`, sweeps, versions): prompts <family>/{system,user,regenerate};
// the evidence is every number `digest` states. Never fails: a missing
// client or a bad answer is the Narrative's missing_reason.
Narrative NarrateDigest(const LlmSession& session, std::string_view family, const std::string& digest);

// A LogSink that writes "kopt: <line>" lines to a stream (the llm layer starts its lines with "llm: ").
class StreamLogSink : public llm::LogSink {
 public:
  explicit StreamLogSink(std::ostream& stream) : stream_(stream) {}
  void Log(std::string_view line) override;

 private:
  std::mutex mutex_;
  std::ostream& stream_;
};

}  // namespace kopt
