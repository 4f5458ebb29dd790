// Comparisons made while the frames arrive: made only for whole frames, the
// same verdicts as the judge's own, used by JudgeOutputs only for the exact
// bytes they were made on, and forgotten when the bytes move.
#include "measure/output_prejudge.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kopt {
namespace {

using runner::RunnerRequest;

// One input x[n] and one output z[n], f32, with one size variant (n = 3).
RunnerRequest Request() {
  RunnerRequest request;
  request.task.name = "t";
  request.task.entry = "t";
  runner::TensorDecl x{"x", runner::Dtype::kF32, {4}, runner::TensorRole::kInput, {}};
  runner::TensorDecl z{"z", runner::Dtype::kF32, {4}, runner::TensorRole::kOutput, {}};
  request.task.tensors = {x, z};
  request.task.tolerances[runner::Dtype::kF32] = {1e-5, 1e-6};
  request.seeds = {11, 12};
  runner::CheckVariant variant;
  variant.shapes = {{"x", {3}}, {"z", {3}}};
  request.check_variants = {variant};
  request.timing = runner::TimingRequest{};
  return request;
}

std::string Frame(const std::string& round, int64_t index, std::vector<float> values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return EncodeFrame({round, index, "z"}, bytes);
}

OutputFrames Parse(std::string channel) {
  Result<OutputFrames> frames = OutputFrames::Parse(std::move(channel));
  EXPECT_TRUE(frames.ok()) << frames.status().message();
  return frames.ok() ? std::move(frames).value() : OutputFrames();
}

OutputFrames Expected() {
  return Parse(Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 8}) +
               Frame("variant", 0, {1, 1, 1}) + Frame("set", 0, {9, 9, 9, 9}) +
               Frame("fresh", 0, {4, 3, 2, 1}));
}

RunnerEvents Events() {
  RunnerEvents events;
  for (auto [round, index] : std::vector<std::pair<std::string, int64_t>>{
           {"check", 0}, {"check", 1}, {"variant", 0}, {"fresh", 0}}) {
    events.outputs.push_back(runner::OutputsEvent{round, index, 11, {"z"}, {}});
  }
  runner::TimingEvent timing;
  timing.samples = 20;
  timing.median_s = timing.q1_s = timing.q3_s = timing.min_s = timing.max_s = timing.mean_s = 1e-3;
  timing.gpu_seconds = 20e-3;
  timing.input_sets = 1;
  timing.verified = {{7, 0, 1e-3}};
  events.timing = timing;
  events.done_ok = true;
  return events;
}

// check 1 is wrong (one element): the verdict names it either way.
std::string Channel() {
  return Frame("check", 0, {1, 2, 3, 4}) + Frame("check", 1, {5, 6, 7, 80}) + Frame("variant", 0, {1, 1, 1}) +
         Frame("timed", 0, {9, 9, 9, 9}) + Frame("fresh", 0, {4, 3, 2, 1});
}

TEST(OutputPrejudgeTest, WholeFramesOnlyAndTheSameVerdict) {
  OutputFrames expected = Expected();
  RunnerRequest request = Request();
  std::string channel = Channel();
  OutputPrejudge prejudge(request, expected);
  std::string first = Frame("check", 0, {1, 2, 3, 4});
  prejudge.Received(std::string_view(channel).substr(0, first.size() - 1));  // not whole yet
  prejudge.Received(std::string_view(channel).substr(0, first.size() + 5));  // check 0 whole
  prejudge.Received(channel);
  prejudge.Received(channel);  // nothing twice
  PrecomputedOutputs precomputed = prejudge.Finish();
  EXPECT_EQ(precomputed.size(), 5u);  // check 0, 1, variant 0, timed 0 (the one set), fresh 0

  // The judge on the same bytes (the channel moved into the frames: the same allocation).
  const char* data = channel.data();
  OutputFrames got = Parse(std::move(channel));
  ASSERT_EQ(reinterpret_cast<const char*>(got.Find({"check", 0, "z"})->data()), data + first.size() - 16);
  ParentVerdict with = JudgeOutputs(request, Events(), got, expected, &precomputed);
  ParentVerdict without = JudgeOutputs(request, Events(), got, expected);
  ASSERT_TRUE(without.kind.has_value());
  EXPECT_EQ(with.kind, without.kind);
  EXPECT_EQ(with.message, without.message);
  ASSERT_EQ(with.checks.size(), without.checks.size());
  for (size_t index = 0; index < with.checks.size(); ++index) {
    EXPECT_EQ(with.checks[index].passed, without.checks[index].passed);
    EXPECT_EQ(with.checks[index].outputs[0].mismatches, without.checks[index].outputs[0].mismatches);
  }
}

TEST(OutputPrejudgeTest, AComparisonCountsOnlyForTheBytesItWasMadeOn) {
  OutputFrames expected = Expected();
  RunnerRequest request = Request();
  std::string wrong = Frame("check", 0, {1, 2, 3, 40});
  OutputPrejudge prejudge(request, expected);
  prejudge.Received(wrong);
  PrecomputedOutputs precomputed = prejudge.Finish();
  ASSERT_EQ(precomputed.size(), 1u);
  // The same values elsewhere in memory (another copy): not this comparison's bytes, judged again.
  std::span<const std::byte> theirs = *expected.Find({"check", 0, "z"});
  std::string copy = wrong;
  OutputFrames other = Parse(std::move(copy));
  runner::Tolerance tolerance = request.task.ToleranceFor(runner::Dtype::kF32);
  EXPECT_EQ(precomputed.Find("z", runner::Dtype::kF32, *other.Find({"check", 0, "z"}), theirs, tolerance),
            nullptr);
  // Its own bytes: found, and a failing verdict (the wrong element).
  OutputFrames same = Parse(std::move(wrong));
  const runner::OutputVerdict* found =
      precomputed.Find("z", runner::Dtype::kF32, *same.Find({"check", 0, "z"}), theirs, tolerance);
  ASSERT_NE(found, nullptr);
  EXPECT_TRUE(found->failure.has_value());
  // Another tolerance: not the same comparison.
  EXPECT_EQ(precomputed.Find("z", runner::Dtype::kF32, *same.Find({"check", 0, "z"}), theirs, {1, 1}),
            nullptr);
}

TEST(OutputPrejudgeTest, MovingForgetsEverythingAndFramesItCannotPlaceAreLeftToTheJudge) {
  OutputFrames expected = Expected();
  RunnerRequest request = Request();
  OutputPrejudge prejudge(request, expected);
  std::string channel = Frame("check", 0, {1, 2, 3, 4}) + Frame("variant", 5, {1, 1, 1}) +
                        Frame("check", 1, {5, 6, 7}) + Frame("other", 0, {1, 2, 3, 4});
  prejudge.Received(channel);
  prejudge.Moving();
  std::string moved = channel;  // where the bytes went
  prejudge.Received(moved);
  PrecomputedOutputs precomputed = prejudge.Finish();
  // Only check 0 (variant 5 does not exist, check 1 has the wrong size, "other" is no round), from `moved`.
  ASSERT_EQ(precomputed.size(), 1u);
  runner::Tolerance tolerance = request.task.ToleranceFor(runner::Dtype::kF32);
  std::span<const std::byte> theirs = *expected.Find({"check", 0, "z"});
  OutputFrames at_moved = Parse(std::move(moved));
  EXPECT_NE(precomputed.Find("z", runner::Dtype::kF32, *at_moved.Find({"check", 0, "z"}), theirs, tolerance),
            nullptr);
}

}  // namespace
}  // namespace kopt
