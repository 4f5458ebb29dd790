// A generator that serves candidates from a directory instead of an LLM: for
// tests, for demonstrations without an endpoint, and for replaying a run.
// Format (docs/optimize.md, "Scripted runs"):
//
//   DIR/script.toml   optional; a list of answers, served in file order:
//       [[answer]]
//       mode = "optimize"          # initial | repair | optimize | any (default any)
//       file = "v2_vec4.cu"        # a whole .cu file, used verbatim, or
//       response = "v3.md"         # an LLM-style answer, passed through code
//                                  # extraction (agents/code_extraction.h)
//       reason = "vectorized loads" # optional; shown in the report
//   Without script.toml: every DIR/*.cu in name order, mode any.
//
// Each answer is served once, to the first request whose mode it accepts;
// when none is left for a mode the outcome is kExhausted. A response answer
// without usable code is kNoCode with the extraction's message (what an LLM
// that misbehaves looks like to the search).
//
// Thread safety: Generate serializes on an internal mutex; answers are
// served in request order.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agents/candidate_generator.h"

namespace kopt::agents {

struct ScriptedAnswer {
  std::optional<GenerationMode> mode;  // nullopt: any mode
  std::string path;                    // the file's path (for messages)
  std::string text;                    // its contents
  bool is_response = false;            // an LLM-style answer (extract the code)
  std::string reason;
};

// Reads DIR as above. InvalidInput naming the file, line and key for a bad
// script; NotFound for a missing directory or file; InvalidInput when the
// directory holds no answer at all.
Result<std::vector<ScriptedAnswer>> LoadScript(const std::string& directory);

class ScriptedGenerator : public CandidateGenerator {
 public:
  // `entry_point`: the task's entry (code extraction needs it).
  ScriptedGenerator(std::vector<ScriptedAnswer> answers, std::string entry_point);
  GeneratorKind kind() const override { return GeneratorKind::kScripted; }
  Result<GeneratedCandidate> Generate(const GenerationRequest& request) override;
  void MarkServed(const std::string& answer_id) override;  // answer_id: the answer's path
  size_t remaining() const;

 private:
  mutable std::mutex mutex_;
  std::vector<ScriptedAnswer> answers_;
  std::vector<bool> served_;
  std::string entry_point_;
};

}  // namespace kopt::agents
