#include "report/narrative_section.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/render_test_samples.h"
#include "report/renderer.h"

namespace kopt {
namespace {

using render_test::MemoryBoundSample;

Narrative SampleNarrative() {
  Narrative narrative;
  narrative.text =
      "## What limits it\nDRAM at 80% <script>alert(1)</script>.\n\n- a 3.5× [unsupported] speedup\n1. Fix "
      "`a[i]`\n```\nint x = 1;\n```";
  NumericClaim supported;
  supported.text = "80%";
  supported.value = 80;
  supported.unit = "%";
  supported.supported = true;
  supported.evidence_label = "saxpy: DRAM percent of peak";
  supported.evidence_value = 80.1;
  supported.evidence_unit = "%";
  NumericClaim unsupported;
  unsupported.text = "3.5×";
  unsupported.value = 3.5;
  unsupported.unit = "x";
  unsupported.offset = 60;
  narrative.claims = {supported, unsupported};
  narrative.model = "test-model";
  narrative.templates = {{"explain/system", 1, std::string(64, 'a')},
                         {"explain/user", 1, std::string(64, 'b')}};
  narrative.regenerated = true;
  narrative.first_attempt_unsupported = {"7×"};
  narrative.input_tokens = 812;
  narrative.output_tokens = 140;
  return narrative;
}

HypothesisOutcome SampleHypothesis() {
  HypothesisOutcome hypothesis;
  hypothesis.prediction = "Strided <global> loads";
  hypothesis.origin = "static";
  hypothesis.location = "saxpy.cu:12";
  hypothesis.kernel = "saxpy";
  hypothesis.rationale = "x[i * 32]";
  hypothesis.verdict = "refuted";
  hypothesis.explanation = "uncoalesced_loads ran and did not fire";
  hypothesis.evidence = {{"bytes per sector", 32, "byte/sector"}};
  return hypothesis;
}

Diagnosis SampleWithExtras() {
  Diagnosis diagnosis = MemoryBoundSample();
  diagnosis.narrative = SampleNarrative();
  diagnosis.hypotheses = {SampleHypothesis()};
  diagnosis.hypotheses_run = true;
  return diagnosis;
}

std::string Render(ReportFormat format, const Diagnosis& diagnosis) {
  return MakeRenderer(format, RenderOptions{})->Render(diagnosis);
}

TEST(NarrativeSectionTest, SplitsHeadingsListsParagraphsAndCode) {
  std::vector<NarrativeBlock> blocks =
      SplitNarrative("## Why\nline one\nline two\n\n- bullet\n2) numbered\n```\ncode 1\n```\n");
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].kind, NarrativeBlockKind::kHeading);
  EXPECT_EQ(blocks[0].text, "Why");
  EXPECT_EQ(blocks[1].text, "line one line two");
  EXPECT_EQ(blocks[2].kind, NarrativeBlockKind::kBullet);
  EXPECT_EQ(blocks[3].marker, "2)");
  EXPECT_EQ(blocks[4].kind, NarrativeBlockKind::kCode);
  EXPECT_EQ(blocks[4].text, "code 1\n");
}

TEST(NarrativeSectionTest, SummaryProvenanceAndRegeneration) {
  Narrative narrative = SampleNarrative();
  EXPECT_EQ(
      ClaimSummary(narrative),
      "2 numbers checked against the evidence: 1 supported, 1 unsupported (marked [unsupported]): 3.5×");
  EXPECT_EQ(NarrativeProvenance(narrative),
            "model test-model · prompts explain/system v1, explain/user v1 · 812 input + 140 output tokens");
  EXPECT_EQ(RegenerationText(narrative), "regenerated once: the first answer had unsupported numbers (7×)");
  narrative.claims.pop_back();
  EXPECT_EQ(ClaimSummary(narrative), "1 number checked against the evidence: all supported");
}

TEST(NarrativeSectionTest, TerminalShowsHypothesesThenNarrativeAfterTheReport) {
  std::string text = Render(ReportFormat::kTerminal, SampleWithExtras());
  size_t findings = text.find("FINDINGS");
  size_t hypotheses = text.find("HYPOTHESES · 1 predicted");
  size_t narrative = text.find("NARRATIVE · written by an LLM");
  ASSERT_NE(hypotheses, std::string::npos) << text;
  ASSERT_NE(narrative, std::string::npos) << text;
  EXPECT_LT(findings, hypotheses);
  EXPECT_LT(hypotheses, narrative);
  EXPECT_NE(text.find("[REFUTED] Strided <global> loads"), std::string::npos) << text;
  EXPECT_NE(text.find("  - a 3.5× [unsupported] speedup"), std::string::npos) << text;
  EXPECT_NE(text.find("      int x = 1;"), std::string::npos) << text;
  EXPECT_NE(text.find("checked: 2 numbers checked"), std::string::npos) << text;
}

TEST(NarrativeSectionTest, MissingNarrativeIsOneClearLine) {
  Diagnosis diagnosis = MemoryBoundSample();
  Narrative missing;
  missing.missing_reason = "no LLM narrative: http://127.0.0.1:9: connection refused";
  diagnosis.narrative = missing;
  std::string text = Render(ReportFormat::kTerminal, diagnosis);
  EXPECT_NE(
      text.find("NARRATIVE · not available\n  no LLM narrative: http://127.0.0.1:9: connection refused"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("(the deterministic report above is"), std::string::npos) << text;
  EXPECT_NE(Render(ReportFormat::kMarkdown, diagnosis).find("Not available: no LLM narrative"),
            std::string::npos);
  EXPECT_EQ(Render(ReportFormat::kTerminal, MemoryBoundSample()).find("NARRATIVE"), std::string::npos);
}

TEST(NarrativeSectionTest, HtmlEscapesEverythingAndHighlightsMarkers) {
  std::string html = Render(ReportFormat::kHtml, SampleWithExtras());
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Strided &lt;global&gt; loads"), std::string::npos);
  EXPECT_NE(html.find("3.5× <mark class=\"unsupported\">[unsupported]</mark>"), std::string::npos);
  EXPECT_NE(html.find("<h4>What limits it</h4>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge verdict-refuted\">refuted</span>"), std::string::npos);
}

TEST(NarrativeSectionTest, MarkdownEscapesTheNarrative) {
  std::string markdown = Render(ReportFormat::kMarkdown, SampleWithExtras());
  EXPECT_NE(markdown.find("## Hypotheses"), std::string::npos);
  EXPECT_NE(markdown.find("## Narrative"), std::string::npos);
  EXPECT_NE(markdown.find("#### What limits it"), std::string::npos);
  EXPECT_EQ(markdown.find("<script>"), std::string::npos);
  EXPECT_NE(markdown.find("\\[unsupported\\]"), std::string::npos) << markdown;
}

TEST(NarrativeSectionTest, JsonCarriesClaimsTemplatesAndHypotheses) {
  nlohmann::json json = nlohmann::json::parse(Render(ReportFormat::kJson, SampleWithExtras()));
  const nlohmann::json& narrative = json["narrative"];
  EXPECT_EQ(narrative["model"], "test-model");
  EXPECT_EQ(narrative["prompt_templates"][0]["id"], "explain/system");
  EXPECT_EQ(narrative["prompt_templates"][0]["version"], 1);
  EXPECT_EQ(narrative["claims"].size(), 2u);
  EXPECT_EQ(narrative["claims"][0]["evidence"]["label"], "saxpy: DRAM percent of peak");
  EXPECT_EQ(narrative["claims"][1]["supported"], false);
  EXPECT_TRUE(narrative["claims"][1]["evidence"].is_null());
  EXPECT_EQ(narrative["unsupported_claims"]["value"], 1.0);
  EXPECT_EQ(narrative["unsupported_claims"]["unit"], "claim");
  EXPECT_EQ(json["hypotheses"][0]["verdict"], "refuted");
  EXPECT_EQ(json["hypotheses"][0]["evidence"][0]["value"]["unit"], "byte/sector");

  nlohmann::json plain = nlohmann::json::parse(Render(ReportFormat::kJson, MemoryBoundSample()));
  EXPECT_TRUE(plain["narrative"].is_null());
  EXPECT_TRUE(plain["hypotheses"].is_null());
}

}  // namespace
}  // namespace kopt
