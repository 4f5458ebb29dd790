// The programmer agent's interface in the optimization loop: given what the
// search wants next (a first candidate, a repair of a failed one, or an
// optimization of a verified one, with the evidence that goes with it),
// return one candidate source. Implementations, one file each:
//
//   scripted_generator.h  candidates served from a directory (tests, replays;
//                         docs/optimize.md "Scripted runs");
//   llm_generator.h       the programmer prompts over any configured LLM
//                         endpoint (agents/programmer_prompts.h);
//   builtin_generator.h   the diagnosis-guided tuner over a tunable
//                         candidate's space (docs/tuning.md).
//
// generator_table.h lists them with their names and factories.
//
// A generator that has nothing to offer for a request says so as data
// (GenerationOutcome), never as an error: the search closes that branch.
// Errors (a non-OK Result) are for the run, not the branch: an unreachable
// endpoint (Unavailable: the run pauses and can be resumed), a budget the
// generator itself tracks, a bug.
//
// Thread safety: Generate may be called from several threads at once (one
// evaluation per GPU); implementations serialize what they must.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/programmer_prompts.h"
#include "core/status.h"
#include "search/evaluation.h"
#include "search/reward.h"

namespace kopt::agents {

// Which generator a run uses (`--generator`); each has one row of
// GeneratorTable() (generator_table.h), where its name and factory are.
enum class GeneratorKind { kLlm, kBuiltin, kScripted };

// What the search asks for, with everything a programmer would be shown.
struct GenerationRequest {
  GenerationMode mode = GenerationMode::kInitial;
  int64_t node_id = 0;        // the node being generated (unique in the run)
  int64_t parent_id = 0;      // the node it derives from (the root for an initial candidate)
  std::string parent_source;  // the parent's CUDA source (the reference for an initial candidate)
  // Repair: exactly one of the two (the parent's failure).
  std::optional<std::string> compiler_output;
  std::optional<CorrectnessFailure> correctness_failure;
  // Optimize: what the generator is shown about the parent (`--feedback`):
  // the semantic feedback, the raw metric table, or nothing.
  std::string feedback_text;
  // Optimize: the parent's findings (Finding::tool ids, e.g. "tail_effect"),
  // highest ranked first; empty when the parent was not profiled. The builtin
  // generator's moves follow them (agents/tuning_moves.h).
  std::vector<std::string> finding_ids;
  // Optimize: what the parent's own change did, the profile diff of the parent
  // against its parent (report/comparison_renderer.h ComparisonDigest); empty
  // when either was not profiled.
  std::string last_change_text;
  std::optional<double> reference_time_seconds;
  std::optional<double> parent_time_seconds;
  std::optional<double> best_time_seconds;
  std::vector<std::string> memory_notes;  // search memory, most relevant first
  // What the run optimizes: under kTimeEnergy the builtin generator also
  // tries the energy moves (agents/energy_moves.h) where the tolerance allows.
  Objective objective = Objective::kTime;
};

// How a generation ended.
enum class GenerationOutcome {
  kSource,     // `source` holds a candidate
  kNoCode,     // the generator answered without usable code (`message` says why)
  kExhausted,  // the generator has nothing (more) for this mode
};
std::string_view GenerationOutcomeName(GenerationOutcome outcome);  // "source", "no_code", "exhausted"

struct GeneratedCandidate {
  GenerationOutcome outcome = GenerationOutcome::kExhausted;
  std::string source;     // the whole .cu file (kSource only)
  std::string reason;     // what the generator says motivated it ("scripted: v2_vec4.cu")
  std::string message;    // why there is no source (kNoCode / kExhausted)
  std::string answer_id;  // the generator's own id of what it served ("" when none), see MarkServed
  // Sources the generator expects to serve next (not candidates): the loop
  // compiles them ahead into the compile cache while the GPU measures this
  // one (MeasureSession::CompileAhead), so that a slow compile (a CUTLASS
  // instantiation) is a cache hit when its turn comes. Empty: nothing.
  std::vector<std::string> compile_ahead;
  // The LLM exchange when there was one (for the run's record).
  std::vector<PromptRecord> prompts;
  std::string response_text;  // the raw answer (untrusted): the final one after any tool rounds
  // The tool rounds before it (agents/llm_generator.h), JSON lines, one per
  // call: {"round","id","name","arguments","is_error","result"}; "" when the
  // model called no tool. Untrusted (the arguments are the model's).
  std::string tool_exchange;
  int tool_calls = 0;  // calls executed or refused
  // The source-search lookups that were answered (not refused, not errors),
  // in order: `search_source "make_layout"`, `read_source include/cute/layout.hpp`.
  std::vector<std::string> source_lookups;
  int64_t input_tokens = 0;  // summed over every request of the generation
  int64_t output_tokens = 0;
  double cost_usd = 0;
  bool cost_known = true;
};

class CandidateGenerator {
 public:
  virtual ~CandidateGenerator() = default;
  virtual GeneratorKind kind() const = 0;
  virtual Result<GeneratedCandidate> Generate(const GenerationRequest& request) = 0;
  // A resumed run tells the generator what it already served before the
  // stop (GeneratedCandidate::answer_id of each recorded node), so that a
  // generator with a finite supply does not serve it again. Default: nothing.
  virtual void MarkServed(const std::string& answer_id) { (void)answer_id; }
};

}  // namespace kopt::agents
