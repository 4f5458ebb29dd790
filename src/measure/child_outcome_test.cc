#include "measure/child_outcome.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/fake_command_runner_test_util.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDevice =
    R"({"event":"device","name":"NVIDIA H200","compute_capability":"9.0","l2_bytes":1,"memory_bytes":1,)"
    R"("sm_clock_max_mhz":1980,"nvml":false})"
    "\n";
constexpr const char* kCheck = R"({"event":"check","seed":1,"passed":true,"outputs":[]})"
                               "\n";
constexpr const char* kTiming =
    R"({"event":"timing","samples":10,"median_s":1e-5,"q1_s":1e-5,"q3_s":1e-5,"mean_s":1e-5,"min_s":1e-5,)"
    R"("max_s":1e-5,"relative_stdev":0.01,"gpu_seconds":0.1,"stop_reason":"noise","cold":true,)"
    R"("input_sets":1,"device_wide_median_s":1e-5,"sm_clock_mean_mhz":1980,"throttled_samples_discarded":0})"
    "\n";
constexpr const char* kDone = R"({"event":"done","ok":true})"
                              "\n";

ChildExpectations TwoChecksAndTiming() {
  ChildExpectations expected;
  expected.check_rounds = 2;
  expected.timing = true;
  expected.timeout_seconds = 30;
  return expected;
}

ChildOutcome Classify(const CommandResult& result) {
  return ClassifyChildEnd(result, ParseRunnerEvents(result.stdout_text), TwoChecksAndTiming());
}

TEST(ClassifyChildEndTest, CompleteSuccessfulRunIsOk) {
  std::string out = std::string(kDevice) + kCheck + kCheck + kTiming + kDone;
  ChildOutcome outcome = Classify(ExitedWith(0, out));
  EXPECT_EQ(outcome.status, ChildOutcome::Status::kOk) << outcome.message;
  EXPECT_FALSE(outcome.kind);
  EXPECT_EQ(outcome.KindName(), "");
  EXPECT_TRUE(outcome.complete());
}

TEST(ClassifyChildEndTest, ExitZeroWithMissingEventsIsACrash) {
  ChildOutcome outcome = Classify(ExitedWith(0, std::string(kDevice) + kCheck + kDone));
  EXPECT_EQ(outcome.kind, FailureKind::kCrash);
  EXPECT_THAT(outcome.message, HasSubstr("check (1 of 2), timing"));
}

TEST(ClassifyChildEndTest, SignalIsACrashNamingTheSignal) {
  ChildOutcome outcome = Classify(KilledBySignal(11, kDevice, "Segmentation fault\n"));
  EXPECT_EQ(outcome.status, ChildOutcome::Status::kFailed);
  EXPECT_EQ(outcome.kind, FailureKind::kCrash);
  EXPECT_THAT(outcome.message, HasSubstr("SIGSEGV"));
  EXPECT_THAT(outcome.detail, HasSubstr("Segmentation fault"));
  EXPECT_TRUE(outcome.complete());
}

TEST(ClassifyChildEndTest, FailureEventBeforeASignalNamesTheKind) {
  std::string out = std::string(kDevice) + R"({"event":"failure","kind":"illegal_address","message":"oob"})";
  ChildOutcome outcome = Classify(KilledBySignal(6, out));
  EXPECT_EQ(outcome.kind, FailureKind::kIllegalAddress);
  EXPECT_THAT(outcome.message, HasSubstr("SIGABRT"));
}

TEST(ClassifyChildEndTest, WatchdogIsATimeout) {
  ChildOutcome outcome = Classify(TimedOutResult(kDevice));
  EXPECT_EQ(outcome.kind, FailureKind::kTimeout);
  EXPECT_THAT(outcome.message, HasSubstr("after 30 s"));
}

TEST(ClassifyChildEndTest, ExitThreeTakesTheFailureKind) {
  std::string out =
      std::string(kDevice) +
      R"({"event":"failure","kind":"wrong_output","message":"y: 12 mismatches","detail":"y[0]"})" + "\n" +
      R"({"event":"done","ok":false})";
  ChildOutcome outcome = Classify(ExitedWith(3, out));
  EXPECT_EQ(outcome.kind, FailureKind::kWrongOutput);
  EXPECT_EQ(outcome.message, "y: 12 mismatches");
  EXPECT_EQ(outcome.detail, "y[0]");
}

TEST(ClassifyChildEndTest, ExitThreeWithoutFailureEventIsACrash) {
  ChildOutcome outcome = Classify(ExitedWith(3, "garbage\n"));
  EXPECT_EQ(outcome.kind, FailureKind::kCrash);
  EXPECT_THAT(outcome.detail, HasSubstr("1 malformed output line(s)"));
}

TEST(ClassifyChildEndTest, UnknownFailureKindIsACrashWithTheNote) {
  ChildOutcome outcome = Classify(ExitedWith(3, R"({"event":"failure","kind":"cosmic_ray","message":""})"));
  EXPECT_EQ(outcome.kind, FailureKind::kCrash);
  EXPECT_THAT(outcome.detail, HasSubstr("cosmic_ray"));
}

TEST(ClassifyChildEndTest, ExitTwoIsAHarnessBugAndNotReusable) {
  ChildOutcome outcome = Classify(ExitedWith(2, "", "kopt-runner: request.json: field 'task' missing\n"));
  EXPECT_EQ(outcome.status, ChildOutcome::Status::kHarnessError);
  EXPECT_THAT(outcome.message, HasSubstr("field 'task' missing"));
  EXPECT_FALSE(outcome.complete());
}

TEST(ClassifyChildEndTest, OtherExitCodesAreCrashes) {
  ChildOutcome outcome = Classify(ExitedWith(1, kDevice));
  EXPECT_EQ(outcome.kind, FailureKind::kCrash);
  EXPECT_EQ(outcome.message, "exited with code 1");
}

TEST(ClassifyChildEndTest, DeviceUnavailableIsNotReusable) {
  ChildOutcome outcome =
      Classify(ExitedWith(3, R"({"event":"failure","kind":"device_unavailable","message":"no GPU"})"));
  EXPECT_EQ(outcome.kind, FailureKind::kDeviceUnavailable);
  EXPECT_FALSE(outcome.complete());
}

TEST(ClassifyChildEndTest, ExitFourIsNotTheCandidatesFault) {
  ChildOutcome outcome = Classify(ExitedWith(
      4, R"({"event":"failure","kind":"device_unavailable","message":"no CUDA device is visible"})"));
  EXPECT_EQ(outcome.status, ChildOutcome::Status::kHarnessError);
  EXPECT_THAT(outcome.message, HasSubstr("no CUDA device is visible"));
  EXPECT_FALSE(outcome.complete());
}

TEST(ClassifyChildEndTest, FailedCheckWithExitZeroIsNotOk) {
  std::string out = std::string(kDevice) + kCheck +
                    R"({"event":"check","seed":2,"passed":false,"outputs":[]})" + "\n" + kTiming + kDone;
  ChildOutcome outcome = Classify(ExitedWith(0, out));
  EXPECT_NE(outcome.status, ChildOutcome::Status::kOk);
}

TEST(SpeedupTest, IsReferenceOverCandidate) {
  EXPECT_DOUBLE_EQ(*Speedup(2e-3, 1e-3), 2.0);
  EXPECT_DOUBLE_EQ(*Speedup(1e-3, 4e-3), 0.25);
  EXPECT_FALSE(Speedup(0, 1e-3));
  EXPECT_FALSE(Speedup(1e-3, 0));
}

TEST(RooflineFloorTest, IsTheSlowerOfComputeAndMemory) {
  // 1 GFLOP at 1 TFLOP/s = 1 ms; 1 GB at 4 TB/s = 0.25 ms.
  EXPECT_DOUBLE_EQ(RooflineFloorSeconds(1e9, 1e9, 1e12, 4e12), 1e-3);
  EXPECT_DOUBLE_EQ(RooflineFloorSeconds(0, 1e9, 1e12, 4e12), 0.25e-3);
  EXPECT_DOUBLE_EQ(RooflineFloorSeconds(1e9, 1e9, 0, 0), 0);
}

TEST(RooflineFloorTest, SuspectOnlyBelowAKnownFloor) {
  EXPECT_TRUE(IsSuspectFast(0.9e-3, 1e-3));
  EXPECT_FALSE(IsSuspectFast(1.1e-3, 1e-3));
  EXPECT_FALSE(IsSuspectFast(1e-9, 0));
}

TEST(RooflineFloorTest, PeakUsesTheFastestPathForTheDtype) {
  const GpuSpec* h200 = FindGpu("h200");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(PeakFlopsForDtype(*h200, "f32"), std::max(h200->fp32_flops, h200->tf32_tensor_flops));
  EXPECT_DOUBLE_EQ(PeakFlopsForDtype(*h200, "bf16"), h200->bf16_tensor_flops);
  EXPECT_DOUBLE_EQ(PeakFlopsForDtype(*h200, "q4"), 0);
}

}  // namespace
}  // namespace kopt
