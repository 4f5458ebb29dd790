#include "agents/explanation_feedback.h"

#include <fmt/format.h>

#include "agents/evidence_digest.h"

namespace kopt::agents {

Result<llm::ChatResponse> UsageCountingChatClient::Complete(const llm::ChatRequest& request) {
  Result<llm::ChatResponse> response = inner_.Complete(request);
  if (!response.ok()) return response;
  input_tokens_ += response->usage.input_tokens;
  output_tokens_ += response->usage.output_tokens;
  // A replayed or cached answer costs nothing; an unpriced network answer leaves the sum incomplete.
  if (response->cost_known) {
    cost_usd_ += response->cost_usd;
  } else if (!response->replayed && !response->from_cache) {
    cost_known_ = false;
  }
  return response;
}

namespace {

std::string ProgrammerText(const Narrative& narrative) {
  if (!narrative.present()) return "(no explanation: " + narrative.missing_reason + ")";
  size_t unsupported = narrative.UnsupportedCount();
  std::string text = narrative.text;
  if (unsupported > 0) {
    text += fmt::format(
        "\n\n(kopt checked every number against the profile: {} not supported, marked "
        "[unsupported]; do not rely on them)",
        unsupported);
  }
  return text;
}

}  // namespace

ProfileExplanation ExplainForProgrammer(llm::ChatClient& client, const ExplanationOptions& options,
                                        const Profile& profile, const Diagnosis& diagnosis,
                                        const ExplainedSource& source) {
  UsageCountingChatClient counting(client);
  DigestInputs inputs{&diagnosis, HotSpotsFromProfile(profile, diagnosis), source.file_name, source.text};
  ProfileExplanation explanation;
  explanation.narrative = ExplanationAgent(counting, options).Explain(inputs);
  explanation.text = ProgrammerText(explanation.narrative);
  explanation.input_tokens = counting.input_tokens();
  explanation.output_tokens = counting.output_tokens();
  explanation.cost_usd = counting.cost_usd();
  explanation.cost_known = counting.cost_known();
  return explanation;
}

}  // namespace kopt::agents
