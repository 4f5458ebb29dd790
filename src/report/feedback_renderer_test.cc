#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "report/position_of_test_util.h"
#include "report/render_test_samples.h"
#include "report/renderer.h"

namespace kopt {
namespace {

std::string RenderFeedback(const Diagnosis& diagnosis) {
  return MakeFeedbackRenderer(RenderOptions{})->Render(diagnosis);
}

// The text of each kernel section ("## Kernel ..." up to the next one).
std::vector<std::string> KernelSections(const std::string& text) {
  std::vector<std::string> sections;
  size_t start = text.find("## Kernel ");
  while (start != std::string::npos) {
    size_t next = text.find("\n## Kernel ", start + 1);
    sections.push_back(text.substr(start, next == std::string::npos ? std::string::npos : next + 1 - start));
    start = next == std::string::npos ? next : next + 1;
  }
  return sections;
}

size_t LineCount(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Every ncu-style metric name (a word with a double underscore) in `text`.
std::set<std::string> MetricNames(const std::string& text) {
  static const std::regex kMetric(R"([A-Za-z0-9_]+__[A-Za-z0-9_.]+)");
  std::set<std::string> names;
  for (auto match = std::sregex_iterator(text.begin(), text.end(), kMetric); match != std::sregex_iterator();
       ++match) {
    names.insert(match->str());
  }
  return names;
}

TEST(FeedbackRenderTest, ClassFindingsActionsAndHotSpots) {
  std::string text = RenderFeedback(render_test::FindingSample());
  size_t kernel = PositionOf(text, "## Kernel 1 of 1: transpose_naive<(int)32> — 412 µs");
  size_t class_line = PositionOf(text, "Class: memory-bound — L2 is at 43% of its peak");
  size_t first = PositionOf(text,
                            "1. [major] Uncoalesced global loads: 32 sectors per request instead of 4 — est. "
                            "gain 62.0% of kernel time, confidence 90.0%");
  size_t second = PositionOf(text, "2. [moderate] Achieved occupancy 41%");
  size_t third = PositionOf(text, "3. [info] Partial last wave");
  EXPECT_LT(kernel, class_line);
  EXPECT_LT(class_line, first);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  PositionOf(text, "   Root cause: Consecutive threads of a warp read floats one row apart");
  PositionOf(text, "   - long_scoreboard share of stall cycles: 71.0% (threshold >= 40.0%)");
  PositionOf(text, "   1. Stage a 32×32 tile through shared memory");
  PositionOf(text, "→ expected: L2 traffic drops about 4×; kernel time −55% to −65%");
  PositionOf(text, "   2. Pad the shared tile to 33 columns → expected: Shared-memory wavefronts");
  PositionOf(text,
             "   Hot spots: transpose.cu:14 SASS 0x0090 LDG.E R2, desc[UR4][R2.64] (71.0% of stalls); "
             "transpose.cu:14 SASS 0x00b0");
  // The "why" of a recommendation and the gain method are left to the full reports.
  EXPECT_EQ(text.find("Reads and writes both become coalesced"), std::string::npos);
  EXPECT_EQ(text.find("excess L2 sectors"), std::string::npos);
}

TEST(FeedbackRenderTest, NoRawMetricDumps) {
  for (const Diagnosis& diagnosis :
       {render_test::FindingSample(), render_test::MemoryBoundSample(), render_test::MissingMetricsSample(),
        render_test::SeveralKernelsSample(), render_test::HealthySkippedMergedSample(),
        render_test::ManyFindingsSample(12)}) {
    std::string text = RenderFeedback(diagnosis);
    // Metric names appear only inside the evidence rows chosen ("   - name: value").
    std::string evidence_rows;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      std::string line = text.substr(start, end - start);
      if (line.rfind("   - ", 0) == 0) evidence_rows += line + "\n";
      start = end == std::string::npos ? text.size() : end + 1;
    }
    std::set<std::string> allowed = MetricNames(evidence_rows);
    for (const std::string& name : MetricNames(text))
      EXPECT_TRUE(allowed.count(name)) << name << "\n" << text;
    // No tables, no stall breakdown, no stage-1 metric lists.
    EXPECT_EQ(text.find('|'), std::string::npos) << text;
    EXPECT_EQ(text.find("peak source"), std::string::npos);
    EXPECT_EQ(text.find("lg_throttle"), std::string::npos);
    EXPECT_EQ(text.find("dram__bytes.sum"), std::string::npos);
  }
}

TEST(FeedbackRenderTest, BoundedLengthAndOmittedFindingsNamed) {
  std::string text = RenderFeedback(render_test::ManyFindingsSample(12));
  std::vector<std::string> sections = KernelSections(text);
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_LE(LineCount(sections[0]), 40u) << sections[0];
  PositionOf(text, "1. [major] Finding number 1");
  PositionOf(text, "more findings omitted, each with a gain of at most");
  EXPECT_EQ(text.find("Finding number 12"), std::string::npos);
  // At most three evidence rows and three actions per finding.
  EXPECT_EQ(text.find("extra_metric_"), std::string::npos);
  PositionOf(text, "(1 further actions omitted)");
  EXPECT_EQ(text.find("   4. "), std::string::npos);
}

TEST(FeedbackRenderTest, SkippedToolsCountAgainstTheBudget) {
  Diagnosis diagnosis = render_test::ManyFindingsSample(12);
  for (int index = 0; index < 6; ++index) {
    diagnosis.kernels[0].skipped_tools.push_back(
        {"tool_skipped_" + std::to_string(index), {"metric"}, "way " + std::to_string(index)});
  }
  std::string text = RenderFeedback(diagnosis);
  EXPECT_LE(LineCount(KernelSections(text)[0]), 40u) << text;
  PositionOf(text, "- tool_skipped_2 — collect with way 2\n- and 3 more\n");
}

TEST(FeedbackRenderTest, KernelsByDurationEachWithinBudget) {
  std::string text = RenderFeedback(render_test::SeveralKernelsSample());
  size_t transpose =
      PositionOf(text, "## Kernel 1 of 3: transpose_naive<(int)32> — 412 µs (64.3% of profiled time)");
  size_t gemm = PositionOf(text, "## Kernel 2 of 3: gemm_wgmma<128, 256, 64>");
  size_t saxpy = PositionOf(text, "## Kernel 3 of 3: saxpy");
  EXPECT_LT(transpose, gemm);
  EXPECT_LT(gemm, saxpy);
  PositionOf(text, "Findings: none; no tool found a problem.");
  for (const std::string& section : KernelSections(text)) EXPECT_LE(LineCount(section), 40u) << section;
}

TEST(FeedbackRenderTest, HealthyVerdictMergedAndSkippedTools) {
  std::string text = RenderFeedback(render_test::HealthySkippedMergedSample());
  size_t verdict = PositionOf(text, "Verdict: healthy — at 94% of its FP32 ceiling; next-order gain ≤ 6%");
  size_t first =
      PositionOf(text, "1. [info] Healthy: at 94% of its SM throughput ceiling — next-order gain 6.0%");
  size_t second = PositionOf(text, "2. [minor] Register spills to local memory — est. gain 4.0%");
  EXPECT_LT(verdict, first);
  EXPECT_LT(first, second);
  PositionOf(text, "   Same root cause, also explains: memory_latency");
  // Two own rows, then the merged finding's row (evidence is appended on merging).
  PositionOf(text, "   - ptxas spill stores: 48 B (threshold > 0 B)");
  PositionOf(text, "   - long_scoreboard share of stall cycles: 22.0%");
  EXPECT_EQ(text.find("local share of L1 sectors"), std::string::npos);
  PositionOf(text, "   Hot spots: fma.cu:31 SASS 0x01f0 LDL.64 R8, [R1+0x10] (12.0% of stalls)");
  PositionOf(text,
             "Not checked (3 tools lacked inputs):\n- shared_bank_conflicts, uncoalesced_global_stores — "
             "collect with "
             "ncu --set full\n- fp64_in_float_code — collect with the SASS listing (cuobjdump -sass;");
}

TEST(FeedbackRenderTest, MissingMetricsSaidWithoutListingThem) {
  std::string text = RenderFeedback(render_test::MissingMetricsSample());
  PositionOf(text, "Stage 1 lacked 3 metrics; the class may be incomplete (collect with ncu --set full).");
  PositionOf(text, "Findings: none; the profile lacks metrics the tools need");
}

TEST(FeedbackRenderTest, NoAnsiNoControlCharactersDeterministic) {
  Diagnosis diagnosis = render_test::HostileSample();
  std::string text = RenderFeedback(diagnosis);
  for (char character : text) {
    EXPECT_TRUE(character == '\n' || static_cast<unsigned char>(character) >= 0x20) << int(character);
  }
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  PositionOf(text, "use <shared> & ?[2Jclear");
  EXPECT_EQ(text, RenderFeedback(diagnosis));
}

TEST(FeedbackRenderTest, ManyKernelsAreCut) {
  Diagnosis diagnosis = render_test::FindingSample();
  for (int index = 0; index < 11; ++index) diagnosis.kernels.push_back(render_test::SaxpyKernel());
  std::string text = RenderFeedback(diagnosis);
  EXPECT_EQ(KernelSections(text).size(), 8u);
  PositionOf(text, "4 shorter kernels omitted");
}

TEST(FeedbackRenderTest, EmptyDiagnosis) {
  PositionOf(RenderFeedback(Diagnosis{}), "No kernel launches were profiled.");
}

}  // namespace
}  // namespace kopt
