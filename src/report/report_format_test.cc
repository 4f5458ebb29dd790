#include "report/report_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::HasSubstr;

TEST(ResolveReportFormatTest, AGivenFormatWinsOverAPlainOrUnknownName) {
  EXPECT_EQ(*ResolveReportFormat("md", "report.txt"), ReportFormat::kMarkdown);
  EXPECT_EQ(*ResolveReportFormat("json", "/dev/null"), ReportFormat::kJson);
  EXPECT_EQ(*ResolveReportFormat("html", "report.view"), ReportFormat::kHtml);
  EXPECT_EQ(*ResolveReportFormat("HTML", ""), ReportFormat::kHtml);
  EXPECT_EQ(ResolveReportFormat("pdf", "report.txt").status().kind(), ErrorKind::kInvalidInput);
}

TEST(ResolveReportFormatTest, AGivenFormatThatTheExtensionContradictsIsRefused) {
  Result<ReportFormat> format = ResolveReportFormat("json", "x.html");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(format.status().message(), HasSubstr("-f json -o x.html: the extension .html is for html"));
  EXPECT_THAT(format.status().message(), HasSubstr("*.json"));
  EXPECT_EQ(*ResolveReportFormat("json", "X.JSON"), ReportFormat::kJson);
}

TEST(ResolveReportFormatTest, AnUnknownExtensionWithoutAFormatIsRefused) {
  Result<ReportFormat> format = ResolveReportFormat("", "report.pdf");
  ASSERT_FALSE(format.ok());
  EXPECT_THAT(format.status().message(), HasSubstr("-o report.pdf: kopt does not write .pdf files"));
  EXPECT_THAT(format.status().message(), HasSubstr("give -f FORMAT"));
  EXPECT_EQ(*ResolveReportFormat("", "run.log"), ReportFormat::kTerminal);
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
