// The candidate generators of `kopt optimize` as data. Adding one is its
// files (agents/<name>_generator.{h,cc}: a CandidateGenerator and its factory
// over GeneratorInputs), a GeneratorKind value (candidate_generator.h) and one
// row of GeneratorTable() (generator_table.cc). Everything else derives from
// the table: the names --generator accepts and `kopt optimize --help` and
// `kopt suite --help` list, the error for an unknown name, the name a node's
// record and the run's settings store (search/run_state.h), the search policy
// of `--search auto`, and the generator app/optimize.cc builds.
// generator_table_test checks that every row round-trips through
// ParseGeneratorKind and is listed.
//
// Thread safety: constant data and pure functions; a factory runs on the
// caller's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agents/candidate_generator.h"
#include "core/status.h"
#include "search/reward.h"
#include "search/search_policy.h"

namespace kopt {
struct CutlassTree;  // harness/cutlass_tree.h
struct TaskSpec;     // harness/task_spec.h
namespace llm {
class ChatClient;  // llm/chat.h
}  // namespace llm
}  // namespace kopt

namespace kopt::agents {

struct CutlassGemmSeed;  // agents/cutlass_gemm_seed.h
class SourceTree;        // agents/source_search_tool.h

// What a generator's factory may draw on, filled in by the command
// (app/optimize.cc). Pointers are borrowed and outlive the factory call; the
// callbacks are the command's, so that the run's LLM client is opened once
// and shared with the explanation agent.
struct GeneratorInputs {
  const TaskSpec* task = nullptr;                 // required
  std::string script_directory;                   // --script
  std::vector<std::string> seed_candidate_paths;  // the run's seed candidates
  std::optional<uint64_t> seed;                   // --seed
  Objective objective = Objective::kTime;         // --objective
  std::string architecture;                       // --arch ("" when unset)
  const CutlassGemmSeed* gemm_seed = nullptr;     // the builtin generator's GEMM path, when prepared
  const CutlassTree* cutlass = nullptr;           // --cutlass / --cutlass-dir, resolved; null: none
  // The run's LLM client; `needed_by` ("--generator llm") prefixes its errors.
  std::function<Result<llm::ChatClient*>(std::string_view needed_by)> open_client;
  std::function<Result<std::string>()> prompt_directory;  // the prompt templates' directory
};

// What a factory makes: the generator, what it borrows, and notes for the run.
struct GeneratorParts {
  std::unique_ptr<SourceTree> source_tree;  // the LLM programmer's search tool reads it
  std::unique_ptr<CandidateGenerator> generator;
  std::vector<std::string> notes;
  GeneratorParts();
  GeneratorParts(GeneratorParts&&) noexcept;
  GeneratorParts& operator=(GeneratorParts&&) noexcept;
  ~GeneratorParts();
};

struct GeneratorEntry {
  GeneratorKind kind;
  std::string_view name;            // the --generator value; a node's record names its generator so
  std::string_view help;            // one line: what the generator does
  SearchPolicyKind default_search;  // the policy of --search auto (optimize/optimize_settings.h)
  // InvalidInput when the inputs lack what the generator needs; the
  // generator's own errors otherwise. Precondition: inputs.task is set.
  Status (*make)(const GeneratorInputs& inputs, GeneratorParts& parts);
};

// Every generator once, in the order help lists them (scripted, the default, first).
std::span<const GeneratorEntry> GeneratorTable();

// The row of `kind`. Precondition: a GeneratorKind value (every value has a row).
const GeneratorEntry& GeneratorEntryOf(GeneratorKind kind);

// "scripted", "llm", "builtin".
std::string_view GeneratorKindName(GeneratorKind kind);

// Any row's name; else InvalidInput naming GeneratorNameList().
Result<GeneratorKind> ParseGeneratorKind(std::string_view text);

// The names in table order, "scripted, llm or builtin".
std::string GeneratorNameList();

// The row's factory (GeneratorEntry::make).
Result<GeneratorParts> MakeGenerator(GeneratorKind kind, const GeneratorInputs& inputs);

// The factories, one in each generator's file.
Status MakeScriptedGeneratorParts(const GeneratorInputs& inputs, GeneratorParts& parts);
Status MakeLlmGeneratorParts(const GeneratorInputs& inputs, GeneratorParts& parts);
Status MakeBuiltinGeneratorParts(const GeneratorInputs& inputs, GeneratorParts& parts);

}  // namespace kopt::agents
