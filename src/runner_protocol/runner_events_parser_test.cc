#include "runner_protocol/runner_events_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDevice =
    R"({"event":"device","name":"NVIDIA H200","compute_capability":"9.0","l2_bytes":52428800,)"
    R"("memory_bytes":150000000000,"sm_clock_max_mhz":1980,"nvml":true})";
constexpr const char* kCheck =
    R"({"event":"check","seed":11,"passed":true,"outputs":[{"name":"y","max_abs_error":0,"max_rel_error":0,)"
    R"("mismatches":0,"nan_count":0,"unwritten":0}]})";
constexpr const char* kTiming =
    R"({"event":"timing","samples":40,"median_s":1.5e-5,"q1_s":1.4e-5,"q3_s":1.6e-5,"mean_s":1.5e-5,)"
    R"("min_s":1.3e-5,"max_s":1.9e-5,"relative_stdev":0.02,"gpu_seconds":0.5,"stop_reason":"noise",)"
    R"("cold":true,"input_sets":1,"device_wide_median_s":1.5e-5,"sm_clock_mean_mhz":1980,)"
    R"("throttled_samples_discarded":0})";
constexpr const char* kEnergy =
    R"({"event":"energy","available":true,"joules_per_launch":0.002,"joules_per_launch_stdev":0.0001,)"
    R"("dynamic_joules_per_launch":0.001,"idle_watts":90,"mean_watts":300,"power_sample_watts":310,)"
    R"("windows":3,"launches_per_window":60000})";
constexpr const char* kDone = R"({"event":"done","ok":true})";

std::string Lines(std::initializer_list<std::string> lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

TEST(RunnerEventsParserTest, ReadsEveryEventOfAGoodStream) {
  RunnerEvents events = ParseRunnerEvents(Lines({kDevice, kCheck, kTiming, kEnergy, kDone}));
  EXPECT_TRUE(events.malformed.empty()) << events.malformed[0];
  EXPECT_EQ(events.events.size(), 5u);
  ASSERT_TRUE(events.device);
  EXPECT_EQ(events.device->name, "NVIDIA H200");
  EXPECT_EQ(events.device->memory_bytes, 150000000000);
  ASSERT_EQ(events.checks.size(), 1u);
  EXPECT_TRUE(events.checks[0].passed);
  EXPECT_EQ(events.checks[0].seed, 11u);
  ASSERT_TRUE(events.timing);
  EXPECT_EQ(events.timing->samples, 40);
  EXPECT_DOUBLE_EQ(events.timing->median_s, 1.5e-5);
  ASSERT_TRUE(events.energy);
  EXPECT_DOUBLE_EQ(events.energy->joules_per_launch, 0.002);
  ASSERT_TRUE(events.done_ok);
  EXPECT_TRUE(*events.done_ok);
  EXPECT_FALSE(events.failure);
  EXPECT_EQ(events.events[2]["median_s"], 1.5e-5);
}

TEST(RunnerEventsParserTest, ACheckEventCarriesItsStepTimesAndReadersIgnoreThem) {
  runner::CheckEvent check;
  check.seed = 7;
  check.passed = true;
  check.phase_seconds = {{"generate", 0.25}, {"candidate", 0.001}};
  nlohmann::json json = runner::RunnerEventToJson(check);
  EXPECT_EQ(json["phase_s"], nlohmann::json::parse(R"({"generate": 0.25, "candidate": 0.001})"));
  json["elapsed_s"] = 1.5;  // the runner stamps every line
  RunnerEvents events = ParseRunnerEvents(json.dump() + "\n");
  EXPECT_TRUE(events.malformed.empty()) << events.malformed[0];
  ASSERT_EQ(events.checks.size(), 1u);
  EXPECT_EQ(events.checks[0].seed, 7u);
  check.phase_seconds.clear();
  EXPECT_FALSE(runner::RunnerEventToJson(check).contains("phase_s"));
}

TEST(RunnerEventsParserTest, KeepsWhatArrivedBeforeGarbage) {
  RunnerEvents events =
      ParseRunnerEvents(std::string(kDevice) + "\nSegmentation fault\n{\"event\":\"timing\",\"samp");
  ASSERT_TRUE(events.device);
  EXPECT_FALSE(events.timing);
  EXPECT_EQ(events.events.size(), 1u);
  EXPECT_EQ(events.malformed_lines, 2u);
  ASSERT_EQ(events.malformed.size(), 2u);
  EXPECT_THAT(events.malformed[0], HasSubstr("line 2: "));
  EXPECT_THAT(events.malformed[0], HasSubstr("Segmentation fault"));
  EXPECT_THAT(events.malformed[1], HasSubstr("line 3: "));
}

TEST(RunnerEventsParserTest, RejectsWrongTypesUnknownEventsAndImplausibleValues) {
  std::string negative_median = kTiming;
  negative_median.replace(negative_median.find("\"median_s\":1.5e-5"), 17, "\"median_s\":-1.0");
  RunnerEvents events = ParseRunnerEvents(Lines({
      R"({"event":"timing","samples":"many"})",
      negative_median,
      R"({"event":"launch_missiles"})",
      "[1,2,3]",
      R"({"event":"failure","kind":"cosmic_ray","message":"x"})",
      R"({"event":"done","ok":1})",
      R"({"event":"timing","samples":1,"median_s":1e999})",
  }));
  EXPECT_FALSE(events.timing);
  EXPECT_FALSE(events.failure);
  EXPECT_FALSE(events.done_ok);
  EXPECT_TRUE(events.events.empty());
  EXPECT_EQ(events.malformed_lines, 7u);
  ASSERT_EQ(events.malformed.size(), 7u);
  EXPECT_THAT(events.malformed[0], HasSubstr("samples"));
  EXPECT_THAT(events.malformed[1], HasSubstr("negative or infinite time"));
  EXPECT_THAT(events.malformed[2], HasSubstr("launch_missiles"));
  EXPECT_THAT(events.malformed[4], HasSubstr("cosmic_ray"));
}

TEST(RunnerEventsParserTest, FirstFailureWinsAndBlankLinesAreIgnored) {
  RunnerEvents events = ParseRunnerEvents(
      "\n  \r\n{\"event\":\"failure\",\"kind\":\"wrong_output\",\"message\":\"y[3] differs\"}\r\n"
      "{\"event\":\"failure\",\"kind\":\"crash\",\"message\":\"\"}\n{\"event\":\"done\",\"ok\":false}\n");
  ASSERT_TRUE(events.failure);
  EXPECT_EQ(events.failure->kind, FailureKind::kWrongOutput);
  EXPECT_EQ(events.failure->message, "y[3] differs");
  EXPECT_EQ(events.events.size(), 3u);
  EXPECT_TRUE(events.malformed.empty());
  ASSERT_TRUE(events.done_ok);
  EXPECT_FALSE(*events.done_ok);
}

TEST(RunnerEventsParserTest, BoundsNotesAndExcerptsOfHostileOutput) {
  std::string hostile;
  for (int i = 0; i < 100; ++i)
    hostile += std::string("\x01\xff garbage line ") + std::string(300, 'z') + "\n";
  hostile += std::string(kMaxRunnerLineBytes + 10, '{') + "\n";
  RunnerEvents events = ParseRunnerEvents(hostile);
  EXPECT_EQ(events.malformed_lines, 101u);
  EXPECT_EQ(events.malformed.size(), kMaxMalformedNotes);
  for (const std::string& note : events.malformed) {
    EXPECT_LT(note.size(), 120u);
    for (char c : note) EXPECT_TRUE(c >= 0x20 && c < 0x7f);
  }
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

std::string Bound(const std::string& body, int seq, const std::string& token = "t0k3n") {
  return "{" + body + ",\"seq\":" + std::to_string(seq) + ",\"token\":\"" + token + "\"}\n";
}

const char* kBoundDevice =
    R"("event":"device","name":"NVIDIA H200","compute_capability":"9.0","l2_bytes":1,"memory_bytes":1,"sm_clock_max_mhz":1980,"nvml":false)";

TEST(EventBindingTest, AcceptsTheRunnersOwnSequence) {
  RunnerEvents events =
      ParseRunnerEvents(Bound(kBoundDevice, 0) +
                        Bound(R"("event":"outputs","round":"check","index":0,"seed":1,"tensors":["z"])", 1) +
                        Bound(R"("event":"done","ok":true)", 2));
  EXPECT_EQ(CheckEventBinding(events, "t0k3n"), "");
  ASSERT_EQ(events.outputs.size(), 1u);
  ASSERT_EQ(events.event_end_offsets.size(), 3u);
}

TEST(EventBindingTest, RejectsForgedLinesWrongTokensGapsAndLinesAfterDone) {
  std::string good = Bound(kBoundDevice, 0);
  EXPECT_NE(CheckEventBinding(ParseRunnerEvents(good + "{\"event\":\"done\",\"ok\":true}\n"), "t0k3n"), "");
  EXPECT_NE(
      CheckEventBinding(ParseRunnerEvents(good + Bound(R"("event":"done","ok":true)", 1, "guess")), "t0k3n"),
      "");
  EXPECT_NE(CheckEventBinding(ParseRunnerEvents(good + Bound(R"("event":"done","ok":true)", 2)), "t0k3n"),
            "");
  EXPECT_NE(CheckEventBinding(ParseRunnerEvents(good + Bound(R"("event":"done","ok":true)", 1) +
                                                Bound(R"("event":"done","ok":true)", 2)),
                              "t0k3n"),
            "");
  EXPECT_NE(CheckEventBinding(ParseRunnerEvents(good + "hello from the candidate\n"), "t0k3n"), "");
  EXPECT_NE(CheckEventBinding(ParseRunnerEvents(Bound(R"("event":"done","ok":true)", 0)), "t0k3n"), "");
}

}  // namespace
}  // namespace kopt
