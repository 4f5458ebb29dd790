// What `kopt explain --llm` adds to a Diagnosis: the narrative an LLM wrote
// (checked number by number against the evidence) and the source-aware
// hypotheses (predictions, then confirmed or refuted by the diagnosis).
//
// Plain data the renderers show after the deterministic report. The agents
// (agents/explanation_agent.h, agents/hypotheses.h) fill it; nothing here
// calls an LLM. Units: every numeric field says its unit in its name or
// comment.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kopt {

// One number the narrative states, as written, and what it was checked against.
struct NumericClaim {
  std::string text;   // the claim as written, e.g. "2.1 TB/s", "45%", "3.5×"
  double value = 0;   // in the canonical unit below (2.1 TB/s → 2.1e12)
  std::string unit;   // canonical unit: "byte/s", "%", "s", "x", "line", "" (plain count), ...
  size_t offset = 0;  // byte offset of `text` in the unmarked narrative text
  bool supported = false;
  // When supported: the evidence that matched, e.g. "DRAM achieved bandwidth
  // (stage 1)", its value and canonical unit.
  std::string evidence_label;
  double evidence_value = 0;
  std::string evidence_unit;
};

// A prompt template used for the narrative (prompts/<id>), for the run record.
struct PromptTemplateUse {
  std::string id;    // "explain/system"
  int version = 0;   // the template header's version
  std::string hash;  // SHA-256 of the template file's bytes, lowercase hex
};

struct Narrative {
  // Empty when the LLM failed; then `missing_reason` says why in one line.
  std::string text;  // the narrative with every unsupported claim marked "[unsupported]"
  std::string missing_reason;
  std::vector<NumericClaim> claims;  // every numeric claim of the final text, in order
  bool regenerated = false;          // the first answer had unsupported claims and was redone
  std::vector<std::string> first_attempt_unsupported;  // the claims that caused the regeneration
  std::string regeneration_error;  // the regeneration call failed: why (the first answer is kept, marked)
  std::string model;               // the model the server says answered
  std::vector<PromptTemplateUse> templates;
  long long input_tokens = 0;  // summed over the calls, token
  long long output_tokens = 0;
  bool replayed = false;  // served from a recorded transcript

  bool present() const { return !text.empty(); }
  size_t UnsupportedCount() const {
    size_t count = 0;
    for (const NumericClaim& claim : claims) count += claim.supported ? 0 : 1;
    return count;
  }
};

// One bottleneck prediction made before the profile was read, and its fate.
struct HypothesisEvidence {
  std::string metric;
  double value = 0;
  std::string unit;
};

struct HypothesisOutcome {
  std::string kernel;       // function name it was checked against; empty: none matched
  std::string prediction;   // "Strided or column-wise global access"
  std::string origin;       // "static" (rules over source, SASS, ptxas) or "llm"
  std::string location;     // "kernel.cu:12, 14" when it points at source lines; may be empty
  std::string rationale;    // why it was predicted
  std::string verdict;      // "confirmed", "refuted", "undecided"
  std::string finding;      // the finding id that confirmed it; empty otherwise
  std::string explanation;  // why that verdict, with the numbers
  std::vector<HypothesisEvidence> evidence;
};

}  // namespace kopt
