#include "report/renderer.h"

#include <gtest/gtest.h>

#include "report/render_test_samples.h"

namespace kopt {
namespace {

TEST(RenderFactoryTest, ParsesFormatNames) {
  EXPECT_EQ(*ParseReportFormat("term"), ReportFormat::kTerminal);
  EXPECT_EQ(*ParseReportFormat("terminal"), ReportFormat::kTerminal);
  EXPECT_EQ(*ParseReportFormat("md"), ReportFormat::kMarkdown);
  EXPECT_EQ(*ParseReportFormat("markdown"), ReportFormat::kMarkdown);
  EXPECT_EQ(*ParseReportFormat("json"), ReportFormat::kJson);
  EXPECT_EQ(*ParseReportFormat("html"), ReportFormat::kHtml);
  EXPECT_EQ(*ParseReportFormat("feedback"), ReportFormat::kFeedback);
  EXPECT_EQ(ReportFileExtension(ReportFormat::kFeedback), "txt");
}

TEST(RenderFactoryTest, RejectsUnknownFormatWithTheChoices) {
  Result<ReportFormat> format = ParseReportFormat("pdf");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(format.status().message().find("pdf"), std::string::npos);
  EXPECT_NE(format.status().message().find("term, md, json, html, feedback"), std::string::npos);
}

TEST(RenderFactoryTest, EveryFormatRendersEverySample) {
  for (ReportFormat format : {ReportFormat::kTerminal, ReportFormat::kMarkdown, ReportFormat::kJson,
                              ReportFormat::kHtml, ReportFormat::kFeedback}) {
    std::unique_ptr<Renderer> renderer = MakeRenderer(format, RenderOptions{});
    ASSERT_NE(renderer, nullptr);
    for (const Diagnosis& diagnosis :
         {render_test::MemoryBoundSample(), render_test::FindingSample(), render_test::MissingMetricsSample(),
          render_test::HostileSample(), render_test::HealthySkippedMergedSample(),
          render_test::SeveralKernelsSample(), Diagnosis{}}) {
      std::string text = renderer->Render(diagnosis);
      EXPECT_FALSE(text.empty());
      // Deterministic: the same diagnosis renders to the same bytes.
      EXPECT_EQ(text, renderer->Render(diagnosis));
    }
  }
}

}  // namespace
}  // namespace kopt
