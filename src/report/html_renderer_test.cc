#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "report/position_of_test_util.h"
#include "report/render_test_samples.h"
#include "report/renderer.h"
#include "report/svg_charts.h"

namespace kopt {
namespace {

std::string RenderHtml(const Diagnosis& diagnosis) {
  return MakeHtmlRenderer(RenderOptions{})->Render(diagnosis);
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t position = text.find(needle); position != std::string::npos;
       position = text.find(needle, position + 1)) {
    ++count;
  }
  return count;
}

TEST(HtmlRenderTest, SelfContainedPageWithCharts) {
  std::string html = RenderHtml(render_test::MemoryBoundSample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* forbidden : {"<script", "http://", "https://", "<link", " src=", "@import", "url(http"}) {
    EXPECT_EQ(html.find(forbidden), std::string::npos) << forbidden;
  }
  EXPECT_EQ(Count(html, "<svg"), 2u);
  EXPECT_EQ(Count(html, "<svg"), Count(html, "</svg>"));
  PositionOf(html, "<style>");
  PositionOf(html, "Roofline");
  PositionOf(html, "DRAM 4.81 TB/s");
  PositionOf(html, "L2 12.1 TB/s");
  PositionOf(html, "FP32 66.9 TFLOP/s");
  PositionOf(html, "this kernel: 0.167 FLOP/B, 641 GFLOP/s");
  PositionOf(html, "arithmetic intensity (FLOP/byte, log scale)");
  PositionOf(html, "100 TFLOP/s");  // a y tick with its unit
  PositionOf(html, ">long_scoreboard</text>");
  PositionOf(html, "88.7% · 88.7 cycles/inst");
}

TEST(HtmlRenderTest, VerdictBeforeDetailsAndFindingsRanked) {
  std::string html = RenderHtml(render_test::FindingSample());
  size_t verdict = PositionOf(html, "class=\"verdict class-memory\"");
  size_t top = PositionOf(html, "<strong>Top finding:</strong> <span class=\"badge sev-major\">major</span>");
  size_t roofline = PositionOf(html, "<svg class=\"chart roofline\"");
  size_t first = PositionOf(html, "<article class=\"finding sev-major\"><h4>1.");
  size_t second = PositionOf(html, "<article class=\"finding sev-moderate\"><h4>2.");
  EXPECT_LT(verdict, top);
  EXPECT_LT(top, roofline);
  EXPECT_LT(roofline, first);
  EXPECT_LT(first, second);
  PositionOf(html, "no floating-point work: the kernel has no point on this chart");
  PositionOf(html, "<code>transpose.cu:14</code>");
  PositionOf(html, "Expected effect: L2 traffic drops about 4×");
}

TEST(HtmlRenderTest, EscapesEverythingItEmbeds) {
  std::string html = RenderHtml(render_test::HostileSample());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<svg onload"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<x>"), std::string::npos);
  EXPECT_EQ(html.find("<shared>"), std::string::npos);
  PositionOf(html, "&lt;/style&gt;&lt;script&gt;alert(&#39;note&#39;)");
  EXPECT_EQ(html.find("\"quotes\""), std::string::npos);
  EXPECT_EQ(html.find("'apostrophes'"), std::string::npos);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  EXPECT_EQ(Count(html, "</title>"), 3u);  // the page's and the two charts' titles
  PositionOf(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;apostrophes&#39;");
  PositionOf(html, "<title>kopt diagnosis: &lt;script&gt;alert(1)");
  PositionOf(html, "&lt;img src=x onerror=alert(2)&gt; title");
  PositionOf(html, "&quot;&gt;&lt;svg onload=alert(3)&gt;");
  PositionOf(html, ">&lt;script&gt;stall&lt;/script&gt;</text>");  // inside the SVG
  PositionOf(html, "<code>&lt;script&gt;merged&lt;/script&gt;</code>");
  PositionOf(html, "<code>&lt;script&gt;skipped&lt;/script&gt;</code>");
  PositionOf(html, "<code>&lt;b&gt;metric&lt;/b&gt; | pipe</code>");
}

TEST(HtmlRenderTest, HealthyVerdictSkippedAndMergedTools) {
  std::string html = RenderHtml(render_test::HealthySkippedMergedSample());
  size_t verdict =
      PositionOf(html,
                 "<strong>Verdict:</strong> <span class=\"badge healthy\">healthy</span> — at 94% of "
                 "its FP32 ceiling; next-order gain ≤ 6%");
  EXPECT_LT(verdict, PositionOf(html, "<h3>Stage 1: roofline</h3>"));
  EXPECT_EQ(html.find("<strong>Top finding:</strong>"), std::string::npos);
  PositionOf(html, "<p>Next-order gain <span class=\"gain\">6.0% of kernel time</span>");
  // Identifiers may break after '_' and '.' (<wbr>): a narrow column wraps them there, not mid-word.
  PositionOf(html, "Also explains: <code>memory_<wbr>latency</code>");
  PositionOf(html, "<code>long_<wbr>scoreboard share of stall cycles</code>");
  size_t skipped = PositionOf(html, "<h3>Skipped tools (3)</h3>");
  EXPECT_LT(PositionOf(html, "Register spills to local memory"), skipped);
  PositionOf(html,
             "<td>ncu --set full</td><td><code>shared_<wbr>bank_<wbr>conflicts</code>, "
             "<code>uncoalesced_<wbr>global_<wbr>stores</code></td>");
  PositionOf(html,
             "<code>l1tex_<wbr>_<wbr>data_<wbr>bank_<wbr>conflicts_<wbr>pipe_<wbr>lsu_<wbr>mem_<wbr>shared_<"
             "wbr>op_<wbr>"
             "ld.<wbr>sum</code>");
}

TEST(HtmlRenderTest, ChartIdsAreUniquePerKernel) {
  Diagnosis diagnosis = render_test::MemoryBoundSample();
  diagnosis.kernels.push_back(render_test::TransposeKernel());
  std::string html = RenderHtml(diagnosis);
  PositionOf(html, "id=\"clip-roofline-1\"");
  PositionOf(html, "id=\"clip-roofline-2\"");
  PositionOf(html, "Kernels by duration");
  PositionOf(html, "<a href=\"#kernel-2\">2</a>");
}

TEST(HtmlRenderTest, MissingMetricsAndNoCeilings) {
  std::string html = RenderHtml(render_test::MissingMetricsSample());
  PositionOf(html, "No roofline chart: no compute or bandwidth ceiling is known");
  PositionOf(html, "Warp stalls not collected");
  PositionOf(html, "<h3>Missing metrics</h3>");
  PositionOf(html, "none, but the profile lacks metrics the analysis needs");
  PositionOf(html, "<code>dram__bytes.sum</code>");
}

TEST(HtmlRenderTest, StallChartOmittedWithoutStalls) {
  EXPECT_EQ(StallBarsSvg({}, 10), "");
}

// Writes the samples' reports to $KOPT_RENDER_SAMPLE_DIR when it is set, for
// scripts/render_html_to_png.sh and a person to look at.
TEST(HtmlRenderTest, WritesSamplesWhenAsked) {
  const char* directory = std::getenv("KOPT_RENDER_SAMPLE_DIR");
  if (directory == nullptr) GTEST_SKIP() << "KOPT_RENDER_SAMPLE_DIR not set";
  const std::vector<std::pair<std::string, Diagnosis>> samples = {
      {"memory_bound", render_test::MemoryBoundSample()},
      {"finding", render_test::FindingSample()},
      {"missing_metrics", render_test::MissingMetricsSample()},
      {"hostile", render_test::HostileSample()},
      {"several_kernels", render_test::SeveralKernelsSample()},
      {"healthy_skipped_merged", render_test::HealthySkippedMergedSample()}};
  for (const auto& [name, diagnosis] : samples) {
    for (ReportFormat format : {ReportFormat::kTerminal, ReportFormat::kMarkdown, ReportFormat::kJson,
                                ReportFormat::kHtml, ReportFormat::kFeedback}) {
      std::string suffix = format == ReportFormat::kFeedback ? ".feedback." : ".";
      std::ofstream file(std::string(directory) + "/" + name + suffix +
                         std::string(ReportFileExtension(format)));
      file << MakeRenderer(format, RenderOptions{})->Render(diagnosis);
    }
  }
}

}  // namespace
}  // namespace kopt
