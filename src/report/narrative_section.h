// Shared pieces of the narrative and hypotheses sections every renderer adds
// after the deterministic report (`kopt explain --llm`): the narrative split
// into display blocks, the claim-check summary line, and hypothesis texts.
//
// The narrative is untrusted LLM text: these helpers only classify lines;
// each renderer escapes every piece for its format.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/narrative.h"
#include "report/text_document.h"

namespace kopt {

// The marker the explanation agent puts after an unsupported claim.
inline constexpr std::string_view kUnsupportedMarker = "[unsupported]";

enum class NarrativeBlockKind { kHeading, kBullet, kNumbered, kParagraph, kCode };

struct NarrativeBlock {
  NarrativeBlockKind kind = NarrativeBlockKind::kParagraph;
  std::string marker;  // "3." for a numbered item; empty otherwise
  std::string text;    // without the heading hashes or list marker; code blocks keep their lines
};

// Lines of the narrative as blocks: "## Why" a heading, "- x"/"* x" a bullet,
// "1. x"/"1) x" a numbered item, ``` fences a code block, other non-blank lines
// paragraphs (consecutive ones joined with a space).
std::vector<NarrativeBlock> SplitNarrative(std::string_view text);

// "12 numbers checked against the evidence: all supported" or
// "12 numbers checked against the evidence: 10 supported, 2 unsupported (marked [unsupported]): 3.5×, 12 µs".
std::string ClaimSummary(const Narrative& narrative);

// "model gpt-4o · prompts explain/system v1, explain/user v1 · 812 + 140 tokens · replayed".
std::string NarrativeProvenance(const Narrative& narrative);

// "regenerated once: the first answer had unsupported numbers (3.5×)"; empty when not regenerated.
std::string RegenerationText(const Narrative& narrative);

// The narrative section of a term/md/html report (TextDocument): `heading`,
// then the narrative's blocks, the claim summary, the regeneration line and the
// provenance; or "No narrative: <reason>". Nothing when `narrative` is empty
// (no --llm). Used by the diff, versions, sweep and plan reports.
void WriteNarrativeSection(TextDocument& doc, std::string_view heading,
                           const std::optional<Narrative>& narrative);

// The evidence of a hypothesis as "metric = value unit; …" (the first four rows, then "… N more").
std::string HypothesisEvidenceText(const HypothesisOutcome& hypothesis);

// "kernel.cu:12 · static" style origin/location line.
std::string HypothesisOriginText(const HypothesisOutcome& hypothesis);

}  // namespace kopt
