// `kopt ask`: an agent that answers a question about a profile (or two, or a
// kernel source) from the evidence, reading it with tools
// (agents/evidence_tools.h) rather than from one fixed digest.
//
// Protocol: system prompt prompts/ask/system.md; the first user turn
// prompts/ask/user.md ({{overview}}, {{question}}), later questions as plain
// user turns of the same conversation (follow-ups see the earlier answers).
// While an answer asks for tool calls they are run and sent back, for at most
// `max_tool_rounds` rounds; then one request without tools asks for the
// answer. Every number of the answer is checked against what the model was
// shown (the overview and every tool result so far: agents/number_check.h);
// when some are unsupported, one more turn (prompts/ask/regenerate.md,
// {{unsupported_claims}}) asks for the answer again, and whatever is still
// unsupported is marked "[unsupported]" in the text and counted: the agent
// refuses to pass on a number the evidence does not hold.
//
// Errors: a transport or endpoint error, or a prompt template missing, is the
// returned Status (the question is then not part of the conversation); a
// refusal or an empty answer is an AskAnswer with `missing_reason`.
//
// Thread safety: one Ask at a time per agent; client and evidence borrowed.
#pragma once

#include <string>
#include <vector>

#include "agents/evidence_tools.h"
#include "agents/number_check.h"
#include "analysis/narrative.h"
#include "llm/chat.h"

namespace kopt::agents {

struct AskOptions {
  std::string prompt_directory;  // holds ask/{system,user,regenerate}.md
  std::string model;             // empty: the client's configured model
  int max_tokens = 2048;
  double temperature = 0;
  int max_tool_rounds = 8;  // answers whose tool calls are executed, per question
};

struct AskAnswer {
  std::string question;
  Narrative answer;                     // text (unsupported marked), claims, model, tokens, templates
  std::vector<std::string> tool_calls;  // "read_metrics {"contains":"dram"} → 12 lines", in order
  double cost_usd = 0;                  // USD, from the client's price table
  bool cost_known = true;
};

class AskAgent {
 public:
  AskAgent(llm::ChatClient& client, const AskEvidence& evidence, AskOptions options);
  Result<AskAnswer> Ask(const std::string& question);

 private:
  Result<llm::ChatRequest> FirstRequest(const std::string& question);
  // Runs the tool rounds; returns the final answer's choice, its messages appended to `request`.
  Result<llm::ChatChoice> Converse(llm::ChatRequest& request, AskAnswer& answer);

  llm::ChatClient& client_;
  const AskEvidence& evidence_;
  AskOptions options_;
  std::vector<llm::ChatMessage> conversation_;  // every turn so far
  std::string system_prompt_;
  std::vector<PromptTemplateUse> templates_;
  EvidenceSet shown_;  // the overview's numbers and every tool result's, all questions so far
};

}  // namespace kopt::agents
