// The explanation agent (`kopt explain --llm`): asks an LLM to explain a
// diagnosis — what the kernel does, what limits it, why, what to change — from
// the evidence digest (agents/evidence_digest.h), then checks every number of
// the answer against the evidence (agents/number_check.h).
//
// Protocol: system prompt prompts/explain/system.md; user prompt
// prompts/explain/user.md with {{digest}}. When the answer has unsupported
// claims, one more call, with the first answer as the assistant turn and
// prompts/explain/regenerate.md ({{unsupported_claims}}) as the next user turn.
// Whatever the second answer still gets wrong is marked "[unsupported]" in the
// text and listed in Narrative::claims. A failed regeneration call keeps the
// first answer, marked.
//
// Failures are data: any error (templates missing, transport, HTTP status,
// refusal, empty answer) gives a Narrative without text whose missing_reason
// is one line saying why. The caller prints the deterministic report anyway.
//
// Thread safety: one call at a time per ExplanationAgent; the client is
// borrowed and must outlive the agent.
#pragma once

#include <string>

#include "agents/evidence_digest.h"
#include "analysis/narrative.h"
#include "llm/chat.h"

namespace kopt::agents {

struct ExplanationOptions {
  std::string prompt_directory;  // holds explain/{system,user,regenerate}.md
  std::string model;             // empty: the client's configured model
  int max_tokens = 2048;
  double temperature = 0;
};

class ExplanationAgent {
 public:
  ExplanationAgent(llm::ChatClient& client, ExplanationOptions options)
      : client_(client), options_(std::move(options)) {}

  Narrative Explain(const DigestInputs& inputs);
  // The same protocol over any deterministic digest: prompts <family>/system,
  // <family>/user ({{digest}}) and <family>/regenerate; every number of the
  // answer checked against `evidence` (`kopt diff --llm`: family "diff", the
  // comparison's report as digest and its numbers as evidence).
  Narrative ExplainDigest(std::string_view family, const std::string& digest, const EvidenceSet& evidence);

 private:
  llm::ChatClient& client_;
  ExplanationOptions options_;
};

// "3.5× (no evidence value matches), 12 µs (…)": the bullet list the
// regeneration prompt names.
std::string UnsupportedClaimList(const std::vector<NumericClaim>& claims);

}  // namespace kopt::agents
