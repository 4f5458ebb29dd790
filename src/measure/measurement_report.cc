#include "measure/measurement_report.h"

namespace kopt {

std::string_view EntryRoleName(EntryRole role) {
  switch (role) {
    case EntryRole::kReference: return "reference";
    case EntryRole::kCandidate: return "candidate";
    case EntryRole::kReferenceAgain: return "reference_end";
  }
  return "candidate";
}

std::string_view MeasureStatusName(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kPending: return "";
    case MeasureStatus::kOk: return "ok";
    case MeasureStatus::kFailed: return "failed";
    case MeasureStatus::kHarnessError: return "harness_error";
    case MeasureStatus::kCompiled: return "compiled";
    case MeasureStatus::kSkipped: return "skipped";
  }
  return "";
}

std::string MeasurementEntry::KindName() const {
  if (status == MeasureStatus::kHarnessError) return "harness_error";
  return failure ? std::string(FailureKindName(*failure)) : std::string();
}

}  // namespace kopt
