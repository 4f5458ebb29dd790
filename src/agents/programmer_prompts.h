// The programmer agent's prompts: one chat request per mode, each built from a
// system and a user template (prompts/programmer/, docs/prompts.md).
//
//   generate: a first candidate from the task (task.toml text, reference.cu,
//             entry-point signature, the harness contract's rules); for a
//             task imported from KernelBench the problem file and the
//             argument mapping instead of reference.cu (the bridge to
//             PyTorch is no kernel to start from), and in every mode;
//   repair:   the previous source plus the compiler output verbatim, or the
//             correctness failure (kind, message, max errors);
//   optimize: the previous source plus the semantic feedback text
//             (`kopt explain --format feedback`), timings so far and notes
//             from search memory ("tried X: result").
//
// The caller sends the request through an llm::ChatClient and passes the
// answer to agents/code_extraction.h. Nothing here does I/O except reading the
// templates from the prompt directory.
//
// Thread safety: functions over values (plus template file reads).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agents/prompt_template.h"
#include "core/status.h"
#include "harness/kernelbench_task.h"
#include "llm/chat.h"

namespace kopt::agents {

// What every mode says about the task.
struct ProgrammerTask {
  std::string name;              // task name ("softmax")
  std::string entry_point;       // C name of the entry point ("softmax")
  std::string entry_signature;   // extern "C" void softmax(const float* x, ..., cudaStream_t stream);
  std::string task_toml;         // the task.toml text verbatim
  std::string reference_source;  // reference.cu verbatim
  std::string architecture;      // "sm_90a"; empty when unknown
  // Set for a task imported from KernelBench: the PyTorch problem, rendered
  // by prompts/programmer/kernelbench_problem.md into every mode's request.
  std::optional<KernelBenchStatement> kernelbench;
};

// A correctness or runtime failure reported by the harness (docs/harness-protocol.md §4).
struct CorrectnessFailure {
  std::string kind;     // "wrong_output", "illegal_address", ...
  std::string message;  // the runner's message
  std::optional<double> max_abs_error;
  std::optional<double> max_rel_error;
  std::optional<long long> mismatches;  // elements
};

struct RepairInput {
  std::string previous_source;
  // Exactly one of the two is set.
  std::optional<std::string> compiler_output;  // nvcc's text verbatim
  std::optional<CorrectnessFailure> correctness_failure;
};

struct OptimizeInput {
  std::string previous_source;
  std::string feedback_text;  // `kopt explain --format feedback` output for the previous source
  std::optional<double> reference_time_seconds;
  std::optional<double> previous_time_seconds;
  std::optional<double> best_time_seconds;  // best candidate so far
  std::vector<std::string> memory_notes;    // "tried X: result", oldest first
  // What the previous source's own change did: the profile diff against its
  // parent (report/comparison_renderer.h ComparisonDigest); empty: none.
  std::string last_change_text;
};

struct ProgrammerRequest {
  llm::ChatRequest request;           // purpose "generate", "repair" or "optimize"
  std::vector<PromptRecord> prompts;  // system, contract, user templates: for the run record
};

// Template ids used (each mode has "<mode>_system" and "<mode>_user").
inline constexpr const char* kProgrammerPromptGroup = "programmer";

Result<ProgrammerRequest> BuildGenerateRequest(const std::string& prompt_directory,
                                               const ProgrammerTask& task);
Result<ProgrammerRequest> BuildRepairRequest(const std::string& prompt_directory, const ProgrammerTask& task,
                                             const RepairInput& input);
Result<ProgrammerRequest> BuildOptimizeRequest(const std::string& prompt_directory,
                                               const ProgrammerTask& task, const OptimizeInput& input);

// When the programmer may call the source-search tools
// (agents/source_search_tool.h): appends prompts/programmer/tools.md to the
// request's system prompt (after a blank line) and its record to `prompts`.
// Requests without tools are untouched (their text and hash stay as they were).
Status AddToolInstructions(const std::string& prompt_directory, const std::string& tree_description,
                           int max_rounds, ProgrammerRequest& request);

}  // namespace kopt::agents
