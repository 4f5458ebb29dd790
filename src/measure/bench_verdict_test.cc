#include "measure/bench_verdict.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kopt {
namespace {

using runner::RunnerRequest;

// A task of one input x[n] and one output z[n], f32, with one size variant (n = 3).
RunnerRequest Request(int n = 4) {
  RunnerRequest request;
  request.task.name = "t";
  request.task.entry = "t";
  runner::TensorDecl x{"x", runner::Dtype::kF32, {n}, runner::TensorRole::kInput, {}};
  runner::TensorDecl z{"z", runner::Dtype::kF32, {n}, runner::TensorRole::kOutput, {}};
  request.task.tensors = {x, z};
  request.task.tolerances[runner::Dtype::kF32] = {1e-5, 1e-6};
  request.seeds = {11, 12};
  runner::CheckVariant variant;
  variant.shapes = {{"x", {3}}, {"z", {3}}};
  request.check_variants = {variant};
  request.timing = runner::TimingRequest{};
  return request;
}

std::vector<std::byte> Floats(std::vector<float> values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string Frame(const std::string& round, int64_t index, std::vector<float> values) {
  return EncodeFrame({round, index, "z"}, Floats(std::move(values)));
}

OutputFrames Parse(const std::string& channel) {
  Result<OutputFrames> frames = OutputFrames::Parse(channel);
  EXPECT_TRUE(frames.ok()) << frames.status().message();
  return frames.ok() ? std::move(frames).value() : OutputFrames();
}

// The reference child's frames: seed-dependent values.
OutputFrames Expected() {
  return Parse(Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) +
               Frame("variant", 0, {1, 1, 1}) + Frame("set", 0, {9, 9, 9, 9}) +
               Frame("set", 1, {8, 8, 8, 8}) + Frame("fresh", 0, {4, 3, 2, 1}));
}

runner::OutputsEvent Outputs(const std::string& round, int64_t index, uint64_t seed) {
  return runner::OutputsEvent{round, index, seed, {"z"}, {}};
}

// The events of a child that ran everything, with verified sample on set 1.
RunnerEvents Events(double median = 1e-3, double verified_seconds = 1e-3) {
  RunnerEvents events;
  events.outputs = {Outputs("check", 0, 11), Outputs("check", 1, 12), Outputs("variant", 0, 13),
                    Outputs("fresh", 0, 14)};
  runner::TimingEvent timing;
  timing.samples = 20;
  timing.median_s = timing.q1_s = timing.q3_s = timing.min_s = timing.max_s = timing.mean_s = median;
  timing.gpu_seconds = 20 * median;
  timing.cold = false;
  timing.input_sets = 1;
  timing.verified = {{7, 1, verified_seconds}};
  events.timing = timing;
  events.done_ok = true;
  return events;
}

std::string Honest() {
  return Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) + Frame("variant", 0, {1, 1, 1}) +
         Frame("timed", 0, {8, 8, 8, 8}) + Frame("fresh", 0, {4, 3, 2, 1});
}

TEST(JudgeOutputsTest, AnHonestChildPassesEveryRound) {
  OutputFrames expected = Expected();
  ParentVerdict verdict = JudgeOutputs(Request(), Events(), Parse(Honest()), expected);
  EXPECT_FALSE(verdict.kind.has_value()) << verdict.message;
  ASSERT_EQ(verdict.checks.size(), 3u);
  EXPECT_TRUE(verdict.checks[0].passed);
  EXPECT_EQ(verdict.checks[1].seed, 12u);
  EXPECT_EQ(verdict.checks[2].variant, 0);
}

TEST(JudgeOutputsTest, WrongAndUnwrittenOutputsAreTheParentsFindings) {
  OutputFrames expected = Expected();
  std::string wrong =
      Frame("check", 0, {1, 2, 3, 5}) + Honest().substr(Frame("check", 0, {1, 2, 3, 4}).size());
  ParentVerdict verdict = JudgeOutputs(Request(), Events(), Parse(wrong), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kWrongOutput) << verdict.message;
  ASSERT_EQ(verdict.checks.size(), 1u);
  EXPECT_FALSE(verdict.checks[0].passed);
  float poison;
  std::memset(&poison, 0xFF, sizeof poison);
  std::string unwritten = Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, poison, poison});
  verdict = JudgeOutputs(Request(), Events(), Parse(unwritten), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kUnwrittenOutput) << verdict.message;
  // A wrong size variant names it.
  std::string variant =
      Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) + Frame("variant", 0, {1, 1, 2});
  verdict = JudgeOutputs(Request(), Events(), Parse(variant), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kWrongOutput);
  EXPECT_NE(verdict.message.find("size variant 0"), std::string::npos) << verdict.message;
}

TEST(JudgeOutputsTest, ConstantOutputAcrossSeedsIsFound) {
  OutputFrames expected =
      Parse(Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {1, 2, 3, 4.000001f}) +
            Frame("variant", 0, {1, 1, 1}) + Frame("set", 1, {8, 8, 8, 8}) + Frame("fresh", 0, {4, 3, 2, 1}));
  std::string same = Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {1, 2, 3, 4}) +
                     Frame("variant", 0, {1, 1, 1}) + Frame("timed", 0, {8, 8, 8, 8}) +
                     Frame("fresh", 0, {4, 3, 2, 1});
  ParentVerdict verdict = JudgeOutputs(Request(), Events(), Parse(same), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kConstantOutput) << verdict.message;
}

TEST(JudgeOutputsTest, AVerifiedTimedSampleOrTheFreshRoundThatIsWrongIsStale) {
  OutputFrames expected = Expected();
  std::string timed_wrong = Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) +
                            Frame("variant", 0, {1, 1, 1}) + Frame("timed", 0, {9, 9, 9, 9}) +
                            Frame("fresh", 0, {4, 3, 2, 1});
  ParentVerdict verdict = JudgeOutputs(Request(), Events(), Parse(timed_wrong), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kStaleOutput) << verdict.message;
  EXPECT_NE(verdict.message.find("input set 1"), std::string::npos) << verdict.message;
  std::string fresh_wrong = Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) +
                            Frame("variant", 0, {1, 1, 1}) + Frame("timed", 0, {8, 8, 8, 8}) +
                            Frame("fresh", 0, {5, 6, 7, 8});
  verdict = JudgeOutputs(Request(), Events(), Parse(fresh_wrong), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kStaleOutput) << verdict.message;
}

TEST(JudgeOutputsTest, MissingOrForgedFramesAreProtocolViolations) {
  OutputFrames expected = Expected();
  // Announced but not sent.
  std::string missing = Frame("check", 0, {1, 2, 3, 4});
  ParentVerdict verdict = JudgeOutputs(Request(), Events(), Parse(missing), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kProtocolViolation) << verdict.message;
  // Claims success without having announced every round.
  RunnerEvents events = Events();
  events.outputs.pop_back();
  verdict = JudgeOutputs(Request(), events, Parse(Honest()), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kProtocolViolation) << verdict.message;
  // Wrong size.
  std::string short_frame = Frame("check", 0, {1, 2, 3});
  verdict = JudgeOutputs(Request(), Events(), Parse(short_frame), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kProtocolViolation) << verdict.message;
  // No verified sample, or one on a set the run does not have.
  events = Events();
  events.timing->verified.clear();
  verdict = JudgeOutputs(Request(), events, Parse(Honest()), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kProtocolViolation) << verdict.message;
  events = Events();
  events.timing->verified[0].set = 5;
  verdict = JudgeOutputs(Request(), events, Parse(Honest()), expected);
  EXPECT_EQ(verdict.kind, FailureKind::kProtocolViolation) << verdict.message;
}

TEST(JudgeOutputsTest, AFrameTheReferenceLacksIsAHarnessError) {
  OutputFrames expected = Parse(Frame("check", 0, {1, 2, 3, 4}));
  ParentVerdict verdict = JudgeOutputs(Request(), Events(), Parse(Honest()), expected);
  EXPECT_TRUE(IsHarnessVerdict(verdict)) << verdict.message;
}

TEST(JudgeOutputsTest, AChildThatFailedEarlyIsJudgedOnWhatItSent) {
  RunnerEvents events;
  events.outputs = {Outputs("check", 0, 11)};
  events.done_ok = false;
  OutputFrames expected = Expected();
  ParentVerdict verdict = JudgeOutputs(Request(), events, Parse(Frame("check", 0, {1, 2, 3, 4})), expected);
  EXPECT_FALSE(verdict.kind.has_value()) << verdict.message;
  EXPECT_EQ(verdict.checks.size(), 1u);
}

TEST(CheckTimingClaimsTest, AcceptsAConsistentTiming) {
  EXPECT_EQ(CheckTimingClaims(Request(), *Events().timing, 0.5, 0), "");
}

TEST(CheckTimingClaimsTest, AVerifiedLaunchFarSlowerThanTheMedianIsInconsistent) {
  std::string why = CheckTimingClaims(Request(), *Events(1e-5, 1e-3).timing, 0.5, 0);
  EXPECT_NE(why.find("verified timed sample 7"), std::string::npos) << why;
  EXPECT_EQ(CheckTimingClaims(Request(), *Events(1e-3, 1.5e-3).timing, 0.5, 0), "");
}

TEST(CheckTimingClaimsTest, MoreGpuTimeThanThePhaseTookOrOtherSettingsAreInconsistent) {
  runner::TimingEvent timing = *Events(1e-2).timing;  // 20 x 10 ms claimed
  EXPECT_NE(CheckTimingClaims(Request(), timing, 0.05, 0), "");
  EXPECT_EQ(CheckTimingClaims(Request(), timing, 0.25, 0), "");
  timing = *Events().timing;
  timing.cold = true;
  EXPECT_NE(CheckTimingClaims(Request(), timing, -1, 0), "");
  timing = *Events().timing;
  timing.samples = 5000;
  EXPECT_NE(CheckTimingClaims(Request(), timing, -1, 0), "");
  timing = *Events().timing;
  timing.input_sets = 3;  // 32 bytes per set, 1 MiB of L2: the runner would use 64
  EXPECT_NE(CheckTimingClaims(Request(), timing, -1, 1 << 20), "");
  timing.input_sets = 64;
  EXPECT_EQ(CheckTimingClaims(Request(), timing, -1, 1 << 20), "");
}

TEST(ExpectedInputSetsTest, FollowsTheRunnersRule) {
  RunnerRequest request = Request(1 << 20);  // 8 MiB per set
  EXPECT_EQ(ExpectedInputSets(request, 60 << 20), 15);
  EXPECT_EQ(ExpectedInputSets(request, 1 << 20), 1);
  request.timing->rotate_input_sets = false;
  EXPECT_EQ(ExpectedInputSets(request, 60 << 20), 1);
}

TEST(ExpectedOutputBytesTest, EveryFrameOfAHonestChild) {
  RunnerRequest request = Request();
  request.timing->verified_samples = 1;
  EXPECT_EQ(ExpectedOutputBytes(request, 0), Honest().size());
  // A reference child sends one frame per input set instead of the verified samples.
  request.role = runner::RunnerRole::kReference;
  std::string reference = Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) +
                          Frame("variant", 0, {1, 1, 1}) + Frame("set", 0, {9, 9, 9, 9}) +
                          Frame("set", 1, {8, 8, 8, 8}) + Frame("fresh", 0, {4, 3, 2, 1});
  EXPECT_EQ(ExpectedOutputBytes(request, 24), reference.size());  // 32-byte sets, 24-byte L2: 2 sets
  request.check = false;
  request.timing.reset();
  EXPECT_EQ(ExpectedOutputBytes(request, 8), 0u);
}

TEST(RooflineFloorTest, TheCeilingsTheTaskAllows) {
  const GpuSpec* h200 = FindGpu("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(AllowedPeakFlops(*h200, DataType::kF32, 1e-4), h200->fp32_flops);
  EXPECT_DOUBLE_EQ(AllowedPeakFlops(*h200, DataType::kF32, 1e-3), h200->tf32_tensor_flops);
  EXPECT_DOUBLE_EQ(AllowedPeakFlops(*h200, DataType::kBF16, 1e-2), h200->bf16_tensor_flops);
  EXPECT_DOUBLE_EQ(AllowedPeakFlops(*h200, DataType::kF16, 1e-2), h200->fp16_tensor_flops);
  EXPECT_DOUBLE_EQ(AllowedPeakFlops(*h200, DataType::kF64, 1e-9), h200->fp64_tensor_flops);

  TaskSpec gemm;
  TensorSpec a;
  a.dtype = DataType::kF32;
  gemm.tensors = {a};
  gemm.tolerances[static_cast<int>(DataType::kF32)] = {1e-4, 1e-3};
  gemm.flops = 2.0 * 2048 * 2048 * 2048;
  gemm.min_bytes = 3.0 * 2048 * 2048 * 4;
  // An f32 GEMM whose tolerance excludes TF32: floored by the FP32 rate (0.26 ms), not TF32's (35 us).
  EXPECT_NEAR(TaskFloorSeconds(gemm, *h200), *gemm.flops / h200->fp32_flops, 1e-9);
  TensorSpec b = a;
  b.dtype = DataType::kBF16;
  gemm.tensors = {b, a};
  EXPECT_NEAR(TaskFloorSeconds(gemm, *h200), *gemm.flops / h200->bf16_tensor_flops, 1e-9);
  // Memory-bound: DRAM bandwidth.
  gemm.flops = 1;
  EXPECT_NEAR(TaskFloorSeconds(gemm, *h200), gemm.min_bytes / h200->dram_bytes_per_second, 1e-12);
}

}  // namespace
}  // namespace kopt
