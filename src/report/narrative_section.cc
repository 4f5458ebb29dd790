#include "report/narrative_section.h"

#include <fmt/format.h>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "report/markup_escape.h"

namespace kopt {
namespace {

std::string_view TrimLeft(std::string_view text) {
  size_t first = text.find_first_not_of(" \t");
  return first == std::string_view::npos ? std::string_view() : text.substr(first);
}

bool IsDigit(char character) {
  return character >= '0' && character <= '9';
}

// "3. text" / "3) text": the marker length (digits + punctuation), 0 when none.
size_t NumberedMarkerLength(std::string_view line) {
  size_t digits = 0;
  while (digits < line.size() && IsDigit(line[digits])) ++digits;
  if (digits == 0 || digits + 1 >= line.size()) return 0;
  if ((line[digits] != '.' && line[digits] != ')') || line[digits + 1] != ' ') return 0;
  return digits + 1;
}

NarrativeBlock ClassifyLine(std::string_view line) {
  if (line.starts_with("#")) {
    size_t hashes = line.find_first_not_of('#');
    return {NarrativeBlockKind::kHeading, "",
            std::string(TrimLeft(line.substr(std::min(hashes, line.size()))))};
  }
  if (line.starts_with("- ") || line.starts_with("* ") || line.starts_with("• ")) {
    return {NarrativeBlockKind::kBullet, "", std::string(TrimLeft(line.substr(line.find(' '))))};
  }
  if (size_t length = NumberedMarkerLength(line)) {
    return {NarrativeBlockKind::kNumbered, std::string(line.substr(0, length)),
            std::string(TrimLeft(line.substr(length)))};
  }
  return {NarrativeBlockKind::kParagraph, "", std::string(line)};
}

}  // namespace

std::vector<NarrativeBlock> SplitNarrative(std::string_view text) {
  std::vector<NarrativeBlock> blocks;
  bool in_code = false, previous_blank = true;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    std::string_view line = TrimLeft(raw);
    if (line.starts_with("```")) {
      if (!in_code) blocks.push_back({NarrativeBlockKind::kCode, "", ""});
      in_code = !in_code;
      previous_blank = true;
    } else if (in_code) {
      blocks.back().text += std::string(raw) + "\n";
    } else if (line.empty()) {
      previous_blank = true;
    } else {
      NarrativeBlock block = ClassifyLine(line);
      bool continues = block.kind == NarrativeBlockKind::kParagraph && !previous_blank && !blocks.empty() &&
                       blocks.back().kind != NarrativeBlockKind::kHeading &&
                       blocks.back().kind != NarrativeBlockKind::kCode;
      if (continues) {
        blocks.back().text += " " + block.text;
      } else {
        blocks.push_back(std::move(block));
      }
      previous_blank = false;
    }
    if (end == text.size()) break;
  }
  return blocks;
}

std::string ClaimSummary(const Narrative& narrative) {
  size_t total = narrative.claims.size();
  size_t unsupported = narrative.UnsupportedCount();
  std::string summary =
      fmt::format("{} number{} checked against the evidence: ", total, total == 1 ? "" : "s");
  if (unsupported == 0) return summary + (total == 0 ? "none to check" : "all supported");
  std::string list;
  for (const NumericClaim& claim : narrative.claims) {
    if (!claim.supported) list += (list.empty() ? "" : ", ") + claim.text;
  }
  return summary + fmt::format("{} supported, {} unsupported (marked {}): {}", total - unsupported,
                               unsupported, kUnsupportedMarker, list);
}

std::string NarrativeProvenance(const Narrative& narrative) {
  std::string text = "model " + (narrative.model.empty() ? std::string("unknown") : narrative.model);
  if (!narrative.templates.empty()) {
    text += " · prompts ";
    for (size_t index = 0; index < narrative.templates.size(); ++index) {
      text += fmt::format("{}{} v{}", index ? ", " : "", narrative.templates[index].id,
                          narrative.templates[index].version);
    }
  }
  text += fmt::format(" · {} input + {} output tokens", narrative.input_tokens, narrative.output_tokens);
  if (narrative.replayed) text += " · replayed from a transcript";
  return text;
}

std::string RegenerationText(const Narrative& narrative) {
  if (!narrative.regenerated) return "";
  std::string list;
  for (const std::string& claim : narrative.first_attempt_unsupported)
    list += (list.empty() ? "" : ", ") + claim;
  std::string text = fmt::format("regenerated once: the first answer had unsupported numbers ({})", list);
  if (!narrative.regeneration_error.empty()) {
    text += "; the regeneration failed (" + narrative.regeneration_error + "), so the first answer is shown";
  }
  return text;
}

std::string HypothesisEvidenceText(const HypothesisOutcome& hypothesis) {
  constexpr size_t kShown = 4;
  std::string text;
  for (size_t index = 0; index < hypothesis.evidence.size() && index < kShown; ++index) {
    const HypothesisEvidence& evidence = hypothesis.evidence[index];
    text += fmt::format("{}{} = {}", text.empty() ? "" : "; ", evidence.metric,
                        FormatMeasurement(evidence.value, evidence.unit, QuantityStyle::kTrimmed));
  }
  if (hypothesis.evidence.size() > kShown)
    text += fmt::format("; … {} more", hypothesis.evidence.size() - kShown);
  return text;
}

std::string HypothesisOriginText(const HypothesisOutcome& hypothesis) {
  std::string text = hypothesis.origin;
  if (!hypothesis.location.empty()) text += " · " + hypothesis.location;
  if (!hypothesis.kernel.empty()) text += " · kernel " + hypothesis.kernel;
  return text;
}

void WriteNarrativeSection(TextDocument& doc, std::string_view heading,
                           const std::optional<Narrative>& narrative) {
  if (!narrative) return;
  doc.Heading(heading);
  if (!narrative->present()) {
    doc.Paragraph("No narrative: " + narrative->missing_reason);
    return;
  }
  for (const NarrativeBlock& block : SplitNarrative(narrative->text)) {
    if (block.kind == NarrativeBlockKind::kHeading)
      doc.Subheading(block.text);
    else if (block.kind == NarrativeBlockKind::kBullet || block.kind == NarrativeBlockKind::kNumbered)
      doc.Bullet(block.marker.empty() ? block.text : block.marker + " " + block.text);
    else
      doc.Paragraph(block.text);
  }
  doc.Paragraph(ClaimSummary(*narrative));
  std::string regeneration = RegenerationText(*narrative);
  if (!regeneration.empty()) doc.Paragraph(regeneration);
  doc.Paragraph(NarrativeProvenance(*narrative));
}

}  // namespace kopt
