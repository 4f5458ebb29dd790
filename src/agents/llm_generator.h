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
// Tools: with a source tree configured (ProgrammerTools::tree, e.g. the
// CUTLASS/CuTe tree of the nvidia-cutlass wheel), every request offers the
// search_source / read_source tools (agents/source_search_tool.h) and the
// system prompt gains prompts/programmer/tools.md. While an answer asks for
// tool calls, the generator runs them and sends the results back, for at most
// `max_rounds` rounds and `max_result_bytes` of results per generation (a
// result that would pass the byte budget is cut, and the budget is then
// spent). Once a limit is reached the calls of the next answer are refused
// (error results saying to answer with the code now) and one more request is
// made; an answer that still calls tools is kNoCode. So a generation makes at
// most max_rounds + 2 requests. Every request and answer goes through the
// client (the transcript records each, and a replay reproduces them: the tool
// results are part of the next request, so the same tree must be present).
// GeneratedCandidate::tool_exchange lists the calls and results; tokens and
// cost are summed over all requests.
//
// Thread safety: Generate may run on several threads (the client limits its
// own concurrency; the tree is read-only); the generator holds no mutable
// state.
#pragma once

#include <cstddef>
#include <string>

#include "agents/candidate_generator.h"
#include "agents/source_search_tool.h"
#include "llm/chat.h"

namespace kopt::agents {

struct ProgrammerTools {
  const SourceTree* tree = nullptr;  // borrowed; null: no tools offered
  // What the tree is, for the tool descriptions and the prompt.
  std::string tree_description = "the CUTLASS/CuTe source tree";
  int max_rounds = 6;               // answers whose tool calls are executed
  size_t max_result_bytes = 65536;  // tool result bytes sent per generation (all rounds)
};

class LlmGenerator : public CandidateGenerator {
 public:
  // `client` is borrowed and must outlive the generator (and so must tools.tree).
  LlmGenerator(llm::ChatClient& client, std::string prompt_directory, ProgrammerTask task,
               ProgrammerTools tools = {});
  GeneratorKind kind() const override { return GeneratorKind::kLlm; }
  Result<GeneratedCandidate> Generate(const GenerationRequest& request) override;

 private:
  Result<ProgrammerRequest> BuildRequest(const GenerationRequest& request) const;

  llm::ChatClient& client_;
  std::string prompt_directory_;
  ProgrammerTask task_;
  ProgrammerTools tools_;
};

}  // namespace kopt::agents
