// The settings of one `kopt optimize` run (docs/optimize.md): plain structs
// with documented defaults; the CLI fills them, the core never sees argv.
//
// Units: seconds (s), US dollars (USD), tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/candidate_generator.h"
#include "agents/generator_table.h"
#include "core/status.h"
#include "measure/measure.h"
#include "search/reward.h"
#include "search/search_policy.h"

namespace kopt {

// What the generator is shown about a verified parent (`--feedback`): kopt's
// semantic feedback (the findings), the raw metric table of its profile,
// nothing (the ablation KernelPro ran), the explanation agent's checked
// narrative of its profile (KEET's claim), or the findings followed by it.
// The explanation modes make one or two more LLM calls per profiled node,
// counted in the run's tokens and dollars.
enum class FeedbackMode { kDiagnosis, kRaw, kNone, kExplanation, kDiagnosisExplanation };
// "diagnosis", "raw", "none", "explanation", "diagnosis+explanation"
std::string_view FeedbackModeName(FeedbackMode mode);
Result<FeedbackMode> ParseFeedbackMode(std::string_view text);
inline bool FeedbackExplains(FeedbackMode mode) {
  return mode == FeedbackMode::kExplanation || mode == FeedbackMode::kDiagnosisExplanation;
}

// When a run stops. An unset limit is no limit; a limit of 0 is refused
// (InvalidInput: it would allow nothing).
struct OptimizeBudget {
  std::optional<int64_t> max_evaluations = 20;  // candidates evaluated (generated + measured), seeds included
  std::optional<double> max_seconds;      // wall time of the run, s (a resumed run counts its earlier time)
  std::optional<double> max_gpu_seconds;  // kopt-runner children's wall time, s (measurement + profiling)
  std::optional<double>
      max_llm_cost_usd;  // LLM cost, USD (calls whose model is not priced count 0 and are noted)
  std::optional<int64_t> max_llm_tokens;  // LLM input + output tokens
};

// InvalidInput naming the option when a limit is 0 or negative.
Status ValidateBudget(const OptimizeBudget& budget);

// The search policy a run gets when the user names none (`--search auto`):
// the generator's row says (agents/generator_table.h): greedy for the
// builtin generator, MCTS for the others. In simulation over
// three exhaustively measured and profiled H200 spaces (bench/results/
// builtin_tuning/simulation.md), guided moves under greedy reached the
// optimum within random search's budget on all three, under MCTS on one:
// the builtin generator's moves are good enough to follow, while MCTS's
// random restarts at the root and per-node child limits spend the budget on
// exploration that LLM candidates need and configuration moves do not.
inline SearchPolicyKind DefaultSearchPolicy(agents::GeneratorKind generator) {
  return agents::GeneratorEntryOf(generator).default_search;
}

struct OptimizeSettings {
  std::string task_directory;
  std::vector<std::string> seed_candidate_paths;  // evaluated first, as children of the reference
  agents::GeneratorKind generator = agents::GeneratorKind::kScripted;
  std::string script_directory;  // --script: the scripted generator's answers (agents/scripted_generator.h)
  std::string llm_config_path;   // --llm-config (llm/config.h); empty: environment only
  std::string llm_record_path;   // --llm-record: transcript to write
  std::string llm_replay_path;   // --llm-replay: transcript to serve instead of the endpoint
  std::string prompt_directory;  // empty: the installed prompts (agents/prompt_template.h)
  SearchPolicyKind search = SearchPolicyKind::kMcts;
  SearchSettings search_settings;          // search/search_policy.h defaults
  Objective objective = Objective::kTime;  // kTimeEnergy turns measure.energy on (RunOptimization)
  // The proxy model's coefficients (hw/energy_coefficients.h): a file or a
  // directory; "": the calibrated tables, else the built-in one.
  std::string energy_model_path;
  OptimizeBudget budget;
  std::optional<uint64_t> seed;    // the run's seed: policy randomness and check seeds; else drawn and stored
  std::vector<int> devices = {0};  // CUDA ordinals: one evaluation per GPU at a time
  std::optional<int64_t> resume_run;  // continue this run of the workspace
  FeedbackMode feedback = FeedbackMode::kDiagnosis;
  bool profile = true;  // profile a verified node (ncu) before its first optimize child; false: no feedback
  MeasureSettings measure;  // the harness settings (workspace, timing, energy, arch, ...)
};

}  // namespace kopt
