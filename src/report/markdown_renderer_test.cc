#include <gtest/gtest.h>

#include "report/position_of_test_util.h"
#include "report/render_test_samples.h"
#include "report/renderer.h"

namespace kopt {
namespace {

std::string RenderMarkdown(const Diagnosis& diagnosis) {
  return MakeMarkdownRenderer(RenderOptions{})->Render(diagnosis);
}

TEST(MarkdownRenderTest, HeadingsTablesAndVerdictFirst) {
  std::string text = RenderMarkdown(render_test::FindingSample());
  size_t title = PositionOf(text, "# kopt diagnosis\n");
  size_t kernel = PositionOf(text, "## Kernel 1: `transpose_naive<(int)32>`");
  size_t verdict = PositionOf(text, "> **Bottleneck: memory-bound** — L2 is at 43%");
  size_t top = PositionOf(text, "> **Top finding: [MAJOR] Uncoalesced global loads");
  size_t stage1 = PositionOf(text, "### Stage 1: roofline");
  size_t findings = PositionOf(text, "### Findings, ranked by estimated gain");
  size_t first = PositionOf(text, "#### 1. [MAJOR]");
  size_t second = PositionOf(text, "#### 2. [MODERATE]");
  EXPECT_LT(title, kernel);
  EXPECT_LT(kernel, verdict);
  EXPECT_LT(verdict, top);
  EXPECT_LT(top, stage1);
  EXPECT_LT(stage1, findings);
  EXPECT_LT(first, second);
  PositionOf(text, "| precision | work | achieved | peak | % of peak | peak source |");
  PositionOf(text, "| --- | ---: | ---: | ---: | ---: | --- |");
  PositionOf(text, "| DRAM | 537 MB | 1.3 TB/s | 4.81 TB/s | 27.1% |");
  PositionOf(text, "| `long_scoreboard` | 73.5% | 61 |");
  PositionOf(text, "- **Estimated gain:** 62.0% of kernel time (method: excess L2 sectors");
  PositionOf(text, "| 32 sector/request | &gt; 8 sector/request |");
  PositionOf(text, "1. **Stage a 32×32 tile through shared memory");
  PositionOf(text, "*Expected effect:* L2 traffic drops about 4×");
  PositionOf(text, "| `transpose.cu:14` | `0x0090  LDG.E R2, desc[UR4][R2.64]` | 71.0% |");
}

// The text outside code spans (CommonMark shows a code span's content
// literally, so markup inside one is harmless). Escaped backticks are text.
std::string OutsideCodeSpans(const std::string& text) {
  std::string outside;
  for (size_t position = 0; position < text.size();) {
    if (text[position] == '\\' && position + 1 < text.size()) {
      outside += text.substr(position, 2);
      position += 2;
      continue;
    }
    if (text[position] != '`') {
      outside += text[position++];
      continue;
    }
    size_t run = text.find_first_not_of('`', position) - position;
    std::string fence(run, '`');
    size_t close = text.find(fence, position + run);
    while (close != std::string::npos && close + run < text.size() && text[close + run] == '`') {
      close = text.find(fence, text.find_first_not_of('`', close));
    }
    position = close == std::string::npos ? text.size() : close + run;
  }
  return outside;
}

TEST(MarkdownRenderTest, EscapesUntrustedText) {
  std::string text = RenderMarkdown(render_test::HostileSample());
  std::string outside = OutsideCodeSpans(text);
  EXPECT_EQ(outside.find('<'), std::string::npos) << outside;
  PositionOf(text, "`<script>alert(1)</script> & \"quotes\" 'apostrophes'`");
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  PositionOf(text, "&lt;img src=x onerror=alert(2)&gt; title");
  PositionOf(text, "\\| pipes \\|");
  // Names go into code spans, where markup is shown literally; table pipes are escaped.
  PositionOf(text, "`a<b && c>d \\| e`");
}

TEST(MarkdownRenderTest, HealthyVerdictSkippedAndMergedTools) {
  std::string text = RenderMarkdown(render_test::HealthySkippedMergedSample());
  size_t verdict =
      PositionOf(text, "> **Verdict:** healthy — at 94% of its FP32 ceiling; next-order gain ≤ 6%");
  EXPECT_LT(verdict, PositionOf(text, "### Stage 1"));
  EXPECT_EQ(text.find("**Top finding"), std::string::npos);
  PositionOf(text, "- **Next-order gain:** 6.0% of kernel time");
  PositionOf(text, "- **Estimated gain:** 4.0% of kernel time");
  PositionOf(text, "- **Also explains:** `memory_latency`");
  PositionOf(text, "`long_scoreboard share of stall cycles`");
  size_t skipped = PositionOf(text, "### Skipped tools (3)");
  EXPECT_LT(PositionOf(text, "#### 2. [MINOR] Register spills"), skipped);
  PositionOf(
      text, "- **Collect:** ncu --set full\n  - tools: `shared_bank_conflicts`, `uncoalesced_global_stores`");
  PositionOf(text, "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`");
  PositionOf(text, "  - missing: `SASS listing`");
}

TEST(MarkdownRenderTest, MissingMetrics) {
  std::string text = RenderMarkdown(render_test::MissingMetricsSample());
  PositionOf(text, "### Missing metrics");
  PositionOf(text, "- `dram__bytes.sum`");
  PositionOf(text, "### Notes");
  PositionOf(text, "## Notes on the profile");
  PositionOf(text, "Not collected");
}

}  // namespace
}  // namespace kopt
