// The explanation as optimizer feedback (`kopt optimize --feedback
// explanation` / `diagnosis+explanation`): the explanation agent
// (agents/explanation_agent.h) run on a candidate's profile and diagnosis,
// its checked narrative turned into the text the programmer is shown, with
// the tokens and dollars of the calls that wrote it.
//
// Never fails: a failed call gives a ProfileExplanation whose text says
// "(no explanation: <reason>)" and whose usage counts what was spent.
//
// Thread safety: ExplainForProgrammer may run on several threads when the
// client allows it (llm/chat.h); it keeps no state between calls.
#pragma once

#include <cstdint>
#include <string>

#include "agents/explanation_agent.h"
#include "analysis/diagnosis.h"
#include "analysis/narrative.h"
#include "llm/chat.h"
#include "profile/profile.h"

namespace kopt::agents {

struct ProfileExplanation {
  std::string text;          // the programmer's view: the narrative, unsupported numbers marked; or why none
  Narrative narrative;       // as the agent returned it
  int64_t input_tokens = 0;  // summed over the explanation's calls, token
  int64_t output_tokens = 0;
  double cost_usd = 0;     // USD, from the client's price table
  bool cost_known = true;  // false when some call's model was not priced
};

// The kernel source the explanation may quote (empty text: none).
struct ExplainedSource {
  std::string file_name;
  std::string text;
};

// Explains `diagnosis` (of `profile`) through `client` (borrowed).
ProfileExplanation ExplainForProgrammer(llm::ChatClient& client, const ExplanationOptions& options,
                                        const Profile& profile, const Diagnosis& diagnosis,
                                        const ExplainedSource& source);

// A ChatClient that forwards to `inner` (borrowed) and sums the usage and cost
// of every successful response. Thread safe when `inner` is.
class UsageCountingChatClient : public llm::ChatClient {
 public:
  explicit UsageCountingChatClient(llm::ChatClient& inner) : inner_(inner) {}
  Result<llm::ChatResponse> Complete(const llm::ChatRequest& request) override;

  int64_t input_tokens() const { return input_tokens_; }
  int64_t output_tokens() const { return output_tokens_; }
  double cost_usd() const { return cost_usd_; }
  bool cost_known() const { return cost_known_; }

 private:
  llm::ChatClient& inner_;
  int64_t input_tokens_ = 0;
  int64_t output_tokens_ = 0;
  double cost_usd_ = 0;
  bool cost_known_ = true;
};

}  // namespace kopt::agents
