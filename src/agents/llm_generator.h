// The LLM programmer: the versioned programmer prompts
// (agents/programmer_prompts.h) sent through any llm::ChatClient (an
// OpenAI-compatible or Anthropic endpoint with its retry, cache, cost and
// record/replay decorators: llm/client_factory.h), the answer turned into a
// candidate by agents/code_extraction.h.
//
// Modes: kInitial → the generate prompt; kRepair → the repair prompt with the
// parent's compiler output or correctness failure; kOptimize → the optimize
// prompt with the parent's feedback, timings and search-memory notes.
// An answer without usable code is kNoCode (the extraction's message is what
// a repair of it is told); an endpoint error is returned as the Status (the
// run pauses on Unavailable). The answer text is untrusted.
//
// Thread safety: Generate may run on several threads (the client limits its
// own concurrency); the generator holds no mutable state.
#pragma once

#include <string>

#include "agents/candidate_generator.h"
#include "llm/chat.h"

namespace kopt::agents {

class LlmGenerator : public CandidateGenerator {
 public:
  // `client` is borrowed and must outlive the generator.
  LlmGenerator(llm::ChatClient& client, std::string prompt_directory, ProgrammerTask task);
  GeneratorKind kind() const override { return GeneratorKind::kLlm; }
  Result<GeneratedCandidate> Generate(const GenerationRequest& request) override;

 private:
  Result<ProgrammerRequest> BuildRequest(const GenerationRequest& request) const;

  llm::ChatClient& client_;
  std::string prompt_directory_;
  ProgrammerTask task_;
};

}  // namespace kopt::agents
