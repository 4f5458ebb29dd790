#include "measure/measurement_report.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(MeasurementReportTest, RolesAndStatusesKeepTheirProtocolSpellings) {
  EXPECT_EQ(EntryRoleName(EntryRole::kReference), "reference");
  EXPECT_EQ(EntryRoleName(EntryRole::kCandidate), "candidate");
  EXPECT_EQ(EntryRoleName(EntryRole::kReferenceAgain), "reference_end");
  EXPECT_EQ(MeasureStatusName(MeasureStatus::kPending), "");
  EXPECT_EQ(MeasureStatusName(MeasureStatus::kOk), "ok");
  EXPECT_EQ(MeasureStatusName(MeasureStatus::kFailed), "failed");
  EXPECT_EQ(MeasureStatusName(MeasureStatus::kHarnessError), "harness_error");
  EXPECT_EQ(MeasureStatusName(MeasureStatus::kCompiled), "compiled");
  EXPECT_EQ(MeasureStatusName(MeasureStatus::kSkipped), "skipped");
}

TEST(MeasurementReportTest, KindNameIsTheFailureKindOrHarnessError) {
  MeasurementEntry entry;
  EXPECT_EQ(entry.KindName(), "");
  entry.status = MeasureStatus::kFailed;
  entry.failure = FailureKind::kWrongOutput;
  EXPECT_EQ(entry.KindName(), "wrong_output");
  entry.status = MeasureStatus::kHarnessError;
  EXPECT_EQ(entry.KindName(), "harness_error");
}

}  // namespace
}  // namespace kopt
