#include "report/report_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::HasSubstr;

TEST(ResolveReportFormatTest, AGivenFormatWins) {
  EXPECT_EQ(*ResolveReportFormat("md", "report.html"), ReportFormat::kMarkdown);
  EXPECT_EQ(ResolveReportFormat("pdf", "report.html").status().kind(), ErrorKind::kInvalidInput);
}

TEST(ResolveReportFormatTest, WithoutOneTheOutputExtensionDecides) {
  EXPECT_EQ(*ResolveReportFormat("", "out/report.html"), ReportFormat::kHtml);
  EXPECT_EQ(*ResolveReportFormat("", "REPORT.HTM"), ReportFormat::kHtml);
  EXPECT_EQ(*ResolveReportFormat("", "r.md"), ReportFormat::kMarkdown);
  EXPECT_EQ(*ResolveReportFormat("", "r.markdown"), ReportFormat::kMarkdown);
  EXPECT_EQ(*ResolveReportFormat("", "r.json"), ReportFormat::kJson);
  EXPECT_EQ(*ResolveReportFormat("", "r.txt"), ReportFormat::kTerminal);
  EXPECT_EQ(*ResolveReportFormat("", "r"), ReportFormat::kTerminal);
  EXPECT_EQ(*ResolveReportFormat("", ""), ReportFormat::kTerminal);
}

TEST(ResolveReportFormatTest, AnExtensionTheCommandCannotWriteIsAnError) {
  Result<ReportFormat> format = ResolveReportFormat("", "bench.html", kTableFormats);
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(format.status().message(), HasSubstr("-o bench.html"));
  EXPECT_THAT(format.status().message(), HasSubstr("term, md, json"));
  EXPECT_EQ(*ResolveReportFormat("", "bench.json", kTableFormats), ReportFormat::kJson);
}

}  // namespace
}  // namespace kopt
