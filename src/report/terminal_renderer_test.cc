#include <gtest/gtest.h>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "report/markup_escape.h"
#include "report/position_of_test_util.h"
#include "report/render_test_samples.h"
#include "report/renderer.h"

namespace kopt {
namespace {

std::string RenderTerminal(const Diagnosis& diagnosis, bool color = false, bool verbose = false) {
  RenderOptions options;
  options.color = color;
  options.verbose = verbose;
  return MakeTerminalRenderer(options)->Render(diagnosis);
}

TEST(TerminalRenderTest, ShowsStageOneStallsAndFinding) {
  std::string text = RenderTerminal(render_test::MemoryBoundSample());
  for (const char* needle : {"saxpy(float, const float *, float *, int)",
                             "ncu launch ID 0",
                             "grid 72226×1×1",
                             "block 256×1×1",
                             "16 registers/thread",
                             "0 B shared memory/block",
                             "57.7 µs",
                             "MEMORY-BOUND",
                             "DRAM is at 80% of its peak",
                             "4.81 TB/s",
                             "3.85 TB/s",
                             "80.0%",
                             "66.9 TFLOP/s",
                             "0.167 FLOP/B",
                             "13.9 FLOP/B",
                             "speed of light 80.4%",
                             "roofline floor 46.1 µs",
                             "long_scoreboard",
                             "88.7%",
                             "[MINOR]",
                             "Near the DRAM ceiling",
                             "est. gain 20.0% of kernel time",
                             "confidence 85.0%",
                             "Fuse saxpy",
                             "why:",
                             "effect:",
                             "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                             ">= 70.0%"}) {
    PositionOf(text, needle);
  }
  // The class's reason is not repeated after the class name.
  EXPECT_EQ(text.find("MEMORY-BOUND — Memory-bound:"), std::string::npos);
}

// A speed of light nothing measured is "not measured", never "0%" (issue 35).
TEST(TerminalRenderTest, UnmeasuredSpeedOfLightIsNotAPercent) {
  Diagnosis diagnosis = render_test::MemoryBoundSample();
  diagnosis.kernels[0].roofline.speed_of_light_percent = 0;
  diagnosis.kernels[0].roofline.speed_of_light_known = false;
  std::string text = RenderTerminal(diagnosis);
  PositionOf(text, "speed of light not measured");
  EXPECT_EQ(text.find("speed of light 0"), std::string::npos) << text;
}

TEST(TerminalRenderTest, VerdictComesBeforeTheDetails) {
  std::string text = RenderTerminal(render_test::FindingSample());
  size_t verdict = PositionOf(text, "BOTTLENECK");
  size_t top = PositionOf(text, "TOP FINDING  [MAJOR] Uncoalesced global loads");
  size_t stage1 = PositionOf(text, "STAGE 1");
  size_t first = PositionOf(text, "1. [MAJOR]");
  size_t second = PositionOf(text, "2. [MODERATE]");
  size_t third = PositionOf(text, "3. [INFO]");
  EXPECT_LT(verdict, top);
  EXPECT_LT(top, stage1);
  EXPECT_LT(stage1, first);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  PositionOf(text, "transpose.cu:14");
  PositionOf(text, "0x0090 LDG.E R2, desc[UR4][R2.64]");
  PositionOf(text, "71.0%");
  PositionOf(text, "32 sector/request");
  PositionOf(text, "no floating-point work");
}

TEST(TerminalRenderTest, NoEscapeCodesWithoutColour) {
  for (const Diagnosis& diagnosis : {render_test::MemoryBoundSample(), render_test::FindingSample(),
                                     render_test::MissingMetricsSample(), render_test::HostileSample()}) {
    std::string text = RenderTerminal(diagnosis);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos);
  }
}

TEST(TerminalRenderTest, ColoursSeverityAndClassWhenAsked) {
  std::string text = RenderTerminal(render_test::FindingSample(), /*color=*/true);
  EXPECT_NE(text.find("\x1b[1;31m[MAJOR]\x1b[0m"), std::string::npos);
  EXPECT_NE(text.find("\x1b[1;94mMEMORY-BOUND\x1b[0m"), std::string::npos);
}

TEST(TerminalRenderTest, UntrustedTextCannotEmitEscapes) {
  std::string text = RenderTerminal(render_test::HostileSample(), /*color=*/true);
  EXPECT_EQ(text.find("\x1b[31mred"), std::string::npos);
  EXPECT_EQ(text.find("\x1b[2J"), std::string::npos);
  EXPECT_NE(text.find("?[31mred"), std::string::npos);
  EXPECT_NE(text.find("ncu ?[31m<i>collect</i>"), std::string::npos);
  EXPECT_NE(text.find("also explains: <script>merged</script>"), std::string::npos);
}

TEST(TerminalRenderTest, FitsOneHundredColumns) {
  for (const Diagnosis& diagnosis :
       {render_test::MemoryBoundSample(), render_test::FindingSample(), render_test::MissingMetricsSample(),
        render_test::HostileSample(), render_test::HealthySkippedMergedSample()}) {
    std::string text = RenderTerminal(diagnosis, /*color=*/true, /*verbose=*/true);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      std::string line = text.substr(start, end - start);
      EXPECT_LE(DisplayWidth(line), 100u) << line;
      start = end + 1;
    }
  }
}

TEST(TerminalRenderTest, MissingMetricsAndNotes) {
  std::string text = RenderTerminal(render_test::MissingMetricsSample());
  PositionOf(text, "UNKNOWN");
  PositionOf(text, "MISSING METRICS");
  PositionOf(text, "dram__bytes.sum");
  PositionOf(text, "Warp-stall metrics are absent");
  PositionOf(text, "not collected");
  PositionOf(text, "--section LaunchStats only");
  PositionOf(text, "FINDINGS · none");
  PositionOf(text, "TOP FINDING  none, but the profile lacks metrics");
  EXPECT_EQ(text.find("registers/thread"), std::string::npos);
}

TEST(TerminalRenderTest, HealthyVerdictSkippedAndMergedTools) {
  std::string text = RenderTerminal(render_test::HealthySkippedMergedSample());
  size_t verdict =
      PositionOf(text, "VERDICT      healthy — at 94% of its FP32 ceiling; next-order gain ≤ 6%");
  EXPECT_LT(verdict, PositionOf(text, "STAGE 1"));
  EXPECT_EQ(text.find("TOP FINDING"), std::string::npos);
  PositionOf(text, "next-order gain 6.0% of kernel time");
  PositionOf(text, "est. gain 4.0% of kernel time");
  PositionOf(text, "also explains: memory_latency");
  // The merged finding's evidence stays visible.
  PositionOf(text, "long_scoreboard share of stall cycles");
  size_t skipped = PositionOf(text, "SKIPPED TOOLS · 3 could not run");
  EXPECT_LT(PositionOf(text, "2. [MINOR] Register spills"), skipped);
  PositionOf(text, "- collect: ncu --set full");
  PositionOf(text, "tools:   shared_bank_conflicts, uncoalesced_global_stores");
  PositionOf(text, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  PositionOf(text, "- collect: the SASS listing (cuobjdump -sass");
  PositionOf(text, "missing: SASS listing");
}

TEST(TerminalRenderTest, SummaryRanksKernelsByDuration) {
  Diagnosis diagnosis = render_test::MemoryBoundSample();
  diagnosis.kernels.push_back(render_test::TransposeKernel());
  std::string text = RenderTerminal(diagnosis);
  size_t summary = PositionOf(text, "SUMMARY");
  size_t transpose = text.find("transpose_naive", summary);
  size_t saxpy = text.find("saxpy", summary);
  EXPECT_LT(transpose, saxpy);  // 412 µs before 57.7 µs
  PositionOf(text, "KERNEL 2/2");
}

}  // namespace
}  // namespace kopt
