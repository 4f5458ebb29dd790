// Source-aware hypotheses: predictions of likely bottlenecks made before the
// profile is read, and their check against the diagnosis afterwards.
//
// Prediction has two passes:
//  - static (always): rules over the kernel source text, the SASS summary and
//    the ptxas report when present (spills, register pressure, strided or
//    column global access, unpadded shared tiles read by column, atomics in
//    loops, integer division in loops, FP64, MUFU use, __syncthreads in loops,
//    divergence on threadIdx, scalar loads, GEMM-like loops without tensor
//    cores). Deterministic.
//  - LLM (when a ChatClient is given): prompts/hypotheses/{system,user}.md ask
//    for JSON predictions restricted to the known finding ids; the answer is
//    parsed robustly; a failure (transport error, invalid JSON, unknown ids)
//    is reported in HypothesisSet::llm_error and the static pass still stands.
//
// Checking: each hypothesis names the finding ids (analysis/tool.h: tool ids
// and their documented variants) that would confirm it. Against a Diagnosis it
// becomes
//  - confirmed: a matching finding fired (its evidence rows are cited);
//  - refuted: every confirming tool ran and did not fire (stage-1 class and
//    roofline percentages cited), or a tool was skipped but stage 1
//    contradicts the hypothesis (a memory-traffic hypothesis on a
//    compute-bound kernel whose memory side is below 30% of peak, or an
//    instruction-cost one on a memory-bound kernel with compute below 30%);
//  - undecided: a confirming tool was skipped for missing inputs and stage 1
//    does not decide, no tool produces the finding ids, or no kernel of the
//    diagnosis matches.
//
// Files: hypotheses.cc (the static pass; the source model it reads is
// profile/cuda_source.h), hypothesis_llm.cc (the LLM pass),
// hypothesis_check.cc (the check against a Diagnosis).
//
// Thread safety: functions over values; PredictHypotheses calls the client.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/prompt_template.h"
#include "analysis/diagnosis.h"
#include "llm/chat.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt::agents {

enum class HypothesisOrigin { kStatic, kLlm };
std::string_view HypothesisOriginName(HypothesisOrigin origin);  // "static", "llm"

struct Hypothesis {
  std::string id;  // rule id ("strided_global_access"), or "llm_<n>" for the LLM pass
  HypothesisOrigin origin = HypothesisOrigin::kStatic;
  std::string title;   // "Strided or column-wise global access"
  std::string kernel;  // function name it concerns (FunctionNameOf form); empty: the whole file
  // Finding ids (Finding::tool) any of which confirms it: "uncoalesced_loads".
  std::vector<std::string> confirming_findings;
  std::string source_file;        // as given in HypothesisInputs
  std::vector<int> source_lines;  // 1-based lines it points at; may be empty (SASS/ptxas facts)
  std::string reason;             // one sentence, with the numbers or code it saw
};

struct HypothesisInputs {
  std::string source_file;             // name used in Hypothesis::source_file ("kernel.cu")
  std::string source;                  // kernel source text; may be empty
  const SassListing* sass = nullptr;   // may be null
  const PtxasReport* ptxas = nullptr;  // may be null
};

// The static pass. Hypotheses sorted by first source line, then id.
std::vector<Hypothesis> PredictStaticHypotheses(const HypothesisInputs& inputs);

struct HypothesisSet {
  std::vector<Hypothesis> hypotheses;  // static first, then the LLM's
  bool llm_attempted = false;
  std::optional<std::string> llm_error;  // why the LLM pass contributed nothing (or only part)
  std::vector<PromptRecord> prompts;     // templates the LLM pass used
};

// Both passes. `client` may be null (static pass only). `prompt_directory`
// is needed only with a client.
HypothesisSet PredictHypotheses(const HypothesisInputs& inputs, llm::ChatClient* client,
                                const std::string& prompt_directory);

struct LlmHypothesisParse {
  std::vector<Hypothesis> hypotheses;  // origin kLlm, ids "llm_1", "llm_2", ...
  int dropped = 0;                     // entries without any known finding id, or malformed
  std::vector<std::string> problems;   // why each dropped entry was dropped
};

// Parses the LLM's answer (a JSON array, or an object with a "hypotheses"
// array, possibly inside a ```json fence or surrounded by prose). Finding ids
// not in KnownFindingIds() are removed from an entry; an entry left with none
// is dropped and counted. Invalid JSON or no array is an error.
Result<LlmHypothesisParse> ParseLlmHypotheses(std::string_view answer, std::string_view source_file);

enum class HypothesisVerdict { kConfirmed, kRefuted, kUndecided };
std::string_view HypothesisVerdictName(HypothesisVerdict verdict);  // "confirmed", "refuted", "undecided"

struct CheckedHypothesis {
  Hypothesis hypothesis;
  HypothesisVerdict verdict = HypothesisVerdict::kUndecided;
  std::string kernel;              // the kernel diagnosis it was checked against (function name)
  std::string finding;             // the finding id that confirmed it; empty otherwise
  std::vector<Evidence> evidence;  // the confirming finding's rows, or the refuting numbers
  std::string explanation;         // one sentence with the numbers
};

// Checks each hypothesis against the kernels of `diagnosis` whose function
// name matches Hypothesis::kernel (all kernels when it is empty); confirmed if
// any matching kernel confirms, else refuted if all refute, else undecided.
std::vector<CheckedHypothesis> CheckHypotheses(const std::vector<Hypothesis>& hypotheses,
                                               const Diagnosis& diagnosis);

// The check against one kernel.
CheckedHypothesis CheckHypothesis(const Hypothesis& hypothesis, const KernelDiagnosis& kernel);

// All finding ids the analysis can produce (tool ids and their variants).
std::vector<std::string> KnownFindingIds();

// The finding ids the static rules name as confirming them, every rule's, in
// rule order (each must be a finding a registered tool produces: checked by
// hypotheses_test.cc).
std::vector<std::string> StaticRuleConfirmingFindingIds();

}  // namespace kopt::agents
