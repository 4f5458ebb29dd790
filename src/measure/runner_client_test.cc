#include "measure/runner_client.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

std::vector<StoredEvent> StoredRun(const nlohmann::json& outcome) {
  return {{"device",
           {{"event", "device"},
            {"name", "NVIDIA H200"},
            {"compute_capability", "9.0"},
            {"l2_bytes", 52428800},
            {"memory_bytes", 150000000000},
            {"sm_clock_max_mhz", 1980},
            {"nvml", true},
            {"elapsed_s", 0.31}}},
          {"done", {{"event", "done"}, {"ok", false}, {"elapsed_s", 0.9}}},
          {"outcome", outcome}};
}

TEST(ChildRunFromStoredTest, KeepsTheVerdictAndTheChildsWallTime) {
  ChildOutcome outcome;
  outcome.status = ChildOutcome::Status::kFailed;
  outcome.kind = FailureKind::kWrongOutput;
  outcome.message = "z: 3 of 8 elements differ";
  Result<ChildRun> run = ChildRunFromStored(StoredRun(OutcomeToJson(outcome, "exit code 3", 0.875)));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->outcome.status, ChildOutcome::Status::kFailed);
  EXPECT_EQ(run->outcome.kind, FailureKind::kWrongOutput);
  EXPECT_EQ(run->outcome.message, "z: 3 of 8 elements differ");
  EXPECT_EQ(run->end, "exit code 3");
  EXPECT_DOUBLE_EQ(run->seconds, 0.875);
  ASSERT_TRUE(run->events.device.has_value());
  EXPECT_EQ(run->events.device->name, "NVIDIA H200");
}

TEST(ChildRunFromStoredTest, AnOutcomeStoredBeforeTheWallTimeWasKeptReadsAsZero) {
  nlohmann::json outcome = OutcomeToJson(ChildOutcome{ChildOutcome::Status::kOk}, "exit code 0", 1.5);
  outcome.erase("seconds");
  Result<ChildRun> run = ChildRunFromStored(StoredRun(outcome));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->seconds, 0);
}

TEST(ChildRunFromStoredTest, RejectsAMeasurementWithoutAnOutcomeOrWithAMalformedOne) {
  std::vector<StoredEvent> no_outcome = StoredRun({});
  no_outcome.pop_back();
  EXPECT_FALSE(ChildRunFromStored(no_outcome).ok());
  nlohmann::json wrong_type = OutcomeToJson(ChildOutcome{ChildOutcome::Status::kOk}, "exit code 0", 1);
  wrong_type["seconds"] = "fast";
  Result<ChildRun> run = ChildRunFromStored(StoredRun(wrong_type));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("malformed"), std::string::npos) << run.status().message();
  nlohmann::json unknown_status = OutcomeToJson(ChildOutcome{ChildOutcome::Status::kOk}, "exit code 0", 1);
  unknown_status["status"] = "great";
  EXPECT_FALSE(ChildRunFromStored(StoredRun(unknown_status)).ok());
}

}  // namespace
}  // namespace kopt
