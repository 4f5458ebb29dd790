#include "profile/ncu_export.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_reader.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

TEST(RecognizeExport, NamesEveryFileANewcomerHas) {
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/details_default_with_stdout.csv")),
            ExportKind::kDetailsPage);
  EXPECT_EQ(RecognizeExport(ReadFixture("h200/uncoalesced_loads/details.csv")), ExportKind::kDetailsPage);
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/raw_with_stdout.csv")), ExportKind::kRawPage);
  EXPECT_EQ(RecognizeExport(ReadFixture("h200/uncoalesced_loads/raw.csv")), ExportKind::kRawPage);
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/source_page.csv")), ExportKind::kSourcePage);
  EXPECT_EQ(RecognizeExport(ReadFixture("h200/uncoalesced_loads/source.csv")), ExportKind::kSourcePage);
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/session.csv")), ExportKind::kSessionPage);
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/summary.csv")), ExportKind::kSummary);
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/summary_text.txt")), ExportKind::kSummary);
  EXPECT_EQ(RecognizeExport(ReadFixture("exports/text_output.txt")), ExportKind::kNcuText);
  EXPECT_EQ(RecognizeExport(ReadFixture("h200/uncoalesced_loads/sass.txt")), ExportKind::kSassListing);
  EXPECT_EQ(RecognizeExport(ReadFixture("sass/nvdisasm_lineinfo_sm90a_mix.txt")), ExportKind::kSassListing);
  EXPECT_EQ(RecognizeExport(ReadFixture("h200/uncoalesced_loads/ptxas.txt")), ExportKind::kPtxasReport);
  EXPECT_EQ(RecognizeExport("a,b\n1,2\n"), ExportKind::kUnknown);
  EXPECT_EQ(RecognizeExport(""), ExportKind::kUnknown);
}

TEST(ExplainUnreadableExport, SaysWhatTheFileIsAndTheCommandThatExportsTheRawPage) {
  std::string source = ExplainUnreadableExport(ExportKind::kSourcePage, "s.csv");
  EXPECT_THAT(source, HasSubstr("s.csv: this is an ncu source page"));
  EXPECT_THAT(source, HasSubstr("kopt explain raw.csv --source-page s.csv"));
  EXPECT_THAT(source, HasSubstr("--page raw --print-units base"));
  EXPECT_THAT(ExplainUnreadableExport(ExportKind::kNcuText, "t.txt"), HasSubstr("ncu's text output"));
  EXPECT_THAT(ExplainUnreadableExport(ExportKind::kSassListing, "x.txt"), HasSubstr("--sass x.txt"));
  EXPECT_THAT(ExplainUnreadableExport(ExportKind::kPtxasReport, "p.txt"), HasSubstr("--ptxas p.txt"));
  EXPECT_EQ(ExplainUnreadableExport(ExportKind::kRawPage, "r.csv"), "");
  EXPECT_EQ(ExplainUnreadableExport(ExportKind::kDetailsPage, "d.csv"), "");
}

}  // namespace
}  // namespace kopt
