#include "runner_protocol/runner_request.h"

#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "harness/task_spec.h"

namespace kopt::runner {
namespace {

using nlohmann::json;

json SoftmaxRequest() {
  return json::parse(R"({
    "schema": "kopt.runner.request/1",
    "task": {"name": "softmax", "entry": "softmax",
             "tensors": [{"name": "x", "dtype": "f32", "shape": [4, 8], "role": "input",
                          "init": {"kind": "normal", "mean": 0.0, "stddev": 1.0}},
                         {"name": "y", "dtype": "f32", "shape": [4, 8], "role": "output", "init": {"kind": "none"}}],
             "scalars": [{"name": "rows", "type": "i32", "value": 4}, {"name": "cols", "type": "i32", "value": 8}],
             "tolerances": {"f32": {"rtol": 1e-3, "atol": 1e-4}}},
    "candidate_library": "/tmp/c.so", "reference_library": "/tmp/r.so",
    "seeds": [1, 2, 18446744073709551615],
    "check_variants": [{"scalars": {"rows": 3, "cols": 5}, "shapes": {"x": [3, 5], "y": [3, 5]}}],
    "check": true,
    "timing": {"warmup_seconds": 0.2, "min_samples": 5, "max_samples": 50, "max_relative_stdev": 0.01,
               "min_gpu_seconds": 0.1, "timeout_seconds": 3, "cold": true, "rotate_input_sets": false},
    "energy": null, "device": 0})");
}

std::string ErrorOf(const json& request) {
  Result<RunnerRequest> parsed = RunnerRequestFromJson(request, "request.json");
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(RunnerRequest, ParsesTheProtocolExample) {
  Result<RunnerRequest> parsed = RunnerRequestFromJson(SoftmaxRequest(), "request.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const RunnerRequest& request = *parsed;
  EXPECT_EQ(request.task.entry, "softmax");
  ASSERT_EQ(request.task.tensors.size(), 2u);
  EXPECT_EQ(request.task.tensors[1].role, TensorRole::kOutput);
  EXPECT_EQ(request.task.tensors[0].ByteCount(), 4 * 8 * 4);
  EXPECT_DOUBLE_EQ(request.task.ToleranceFor(Dtype::kF32).rtol, 1e-3);
  EXPECT_DOUBLE_EQ(request.task.ToleranceFor(Dtype::kF16).rtol, 1e-2);  // default
  EXPECT_EQ(request.seeds.back(), 18446744073709551615ull);
  ASSERT_TRUE(request.timing.has_value());
  EXPECT_TRUE(request.timing->cold);
  EXPECT_EQ(request.timing->max_samples, 50);
  EXPECT_FALSE(request.energy.has_value());
  ASSERT_EQ(request.check_variants.size(), 1u);
  RunnerTask small = ApplyVariant(request.task, request.check_variants[0]);
  EXPECT_EQ(small.tensors[0].shape, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(small.scalars[1].integer_value, 5);
  EXPECT_EQ(request.task.scalars[1].integer_value, 8);  // the task itself is unchanged
}

TEST(RunnerRequest, KeepsTheTasksInformationalFields) {
  json request = SoftmaxRequest();
  request["task"].update(
      {{"description", "row softmax"}, {"min_bytes", 256.0}, {"check_seeds", 3}, {"flops", 160.0}});
  Result<RunnerRequest> parsed = RunnerRequestFromJson(request, "request.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->task.description, "row softmax");
  EXPECT_EQ(parsed->task.check_seeds, 3);
  EXPECT_EQ(RunnerRequestToJson(*parsed)["task"], request["task"]);

  request["task"].update(
      {{"description", 5}, {"min_bytes", "many"}, {"check_seeds", 2.5}, {"flops", nullptr}});
  parsed = RunnerRequestFromJson(request, "request.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_FALSE(parsed->task.description || parsed->task.min_bytes || parsed->task.check_seeds ||
               parsed->task.flops);
  EXPECT_FALSE(RunnerRequestToJson(*parsed)["task"].contains("description"));
}

TEST(RunnerRequest, RoundTripsThroughJson) {
  RunnerRequest request = *RunnerRequestFromJson(SoftmaxRequest(), "request.json");
  request.energy = EnergyRequest{2.0, 0.5};
  request.cpu_seconds = 30;
  json written = RunnerRequestToJson(request);
  Result<RunnerRequest> again = RunnerRequestFromJson(written, "again");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(RunnerRequestToJson(*again), written);
  EXPECT_DOUBLE_EQ(again->energy->window_seconds, 2.0);
  EXPECT_DOUBLE_EQ(*again->cpu_seconds, 30);
}

TEST(RunnerRequest, ErrorsNameTheField) {
  struct Case {
    std::function<void(json&)> mutate;
    std::string expected;
  };
  std::vector<Case> cases = {
      {[](json& r) { r["task"]["tensors"][1]["dtype"] = "fp32"; },
       "request.json: task.tensors[1].dtype: \"fp32\" is not a dtype; expected one of f64 f32 f16 bf16 i64 "
       "i32 u8"},
      {[](json& r) { r.erase("candidate_library"); }, "request.json: candidate_library: missing"},
      {[](json& r) { r["schema"] = "other/2"; }, "schema: \"other/2\"; expected \"kopt.runner.request/1\""},
      {[](json& r) {
         r["seeds"] = json::array({1, -4});
       },
       "seeds[1]: expected a non-negative integer"},
      {[](json& r) { r["seeds"] = json::array(); }, "seeds: empty"},
      {[](json& r) {
         r["task"]["tensors"][0]["shape"] = json::array({4, 0});
       },
       "task.tensors[0].shape[1]: expected a positive integer"},
      {[](json& r) { r["task"]["scalars"][0]["value"] = 1.5; }, "task.scalars[0].value: expected an integer"},
      {[](json& r) { r["task"]["scalars"][0]["value"] = 5000000000; },
       "task.scalars[0].value: out of the i32 range"},
      {[](json& r) { r["check_variants"][0]["scalars"]["depth"] = 3; },
       "check_variants[0].scalars.depth: not a scalar of the task"},
      {[](json& r) { r["timing"]["min_samples"] = 0; }, "timing.max_samples: expected 1 <= min_samples"},
      {[](json& r) {
         r["task"]["tensors"][0]["init"] = {{"kind", "gaussian"}};
       },
       "task.tensors[0].init.kind: \"gaussian\" is not a init kind"},
      {[](json& r) { r["task"]["tensors"][0]["dtype"] = "i32"; },
       "task.tensors[0].init.kind: a floating-point init on an integer dtype"},
      {[](json& r) { r["task"]["tensors"][1]["role"] = "input"; },
       "task.tensors: no tensor has role output or inout"},
      {[](json& r) { r["device"] = "0"; }, "device: expected an integer"},
      {[](json& r) {
         r["task"]["tolerances"] = {{"f33", {{"rtol", 1}}}};
       },
       "task.tolerances.f33: not a dtype"},
  };
  for (const Case& test_case : cases) {
    json request = SoftmaxRequest();
    test_case.mutate(request);
    std::string error = ErrorOf(request);
    EXPECT_NE(error.find(test_case.expected), std::string::npos)
        << "got: " << error << "\nwant: " << test_case.expected;
  }
}

TEST(RunnerRequest, RejectsInvalidJsonText) {
  Result<RunnerRequest> parsed = ParseRunnerRequest("{\"schema\": ", "r.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "r.json: not valid JSON");
  EXPECT_EQ(parsed.status().kind(), ErrorKind::kInvalidInput);
}

TEST(RunnerRequest, ReadsTheTaskSpecJson) {
  // The parent puts TaskSpec::ToJson() and VariantsToJson() into the request.
  Result<TaskSpec> spec = ParseTaskToml(R"(
[task]
name = "scale"
entry = "scale"
[[scalar]]
name = "n"
type = "i32"
value = 1000
[[tensor]]
name = "x"
dtype = "bf16"
shape = ["n"]
role = "input"
init = { kind = "heavy_tailed", alpha = 2.5, scale = 0.5 }
[[tensor]]
name = "k"
dtype = "u8"
shape = ["n"]
role = "input"
[[tensor]]
name = "y"
dtype = "f32"
shape = ["n"]
role = "output"
[[variant]]
n = 17
)",
                                        "task.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  json request = SoftmaxRequest();
  request["task"] = spec->ToJson();
  request["check_variants"] = spec->VariantsToJson();
  Result<RunnerRequest> parsed = RunnerRequestFromJson(request, "request.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const RunnerTask& task = parsed->task;
  ASSERT_EQ(task.tensors.size(), 3u);
  EXPECT_EQ(task.tensors[0].dtype, Dtype::kBF16);
  EXPECT_EQ(task.tensors[0].init.kind, InitKind::kHeavyTailed);
  EXPECT_DOUBLE_EQ(task.tensors[0].init.alpha, 2.5);
  EXPECT_EQ(task.tensors[1].init.kind, InitKind::kIntRange);
  EXPECT_EQ(task.tensors[1].init.integer_high, 255);
  EXPECT_EQ(task.tensors[2].shape, (std::vector<int64_t>{1000}));
  ASSERT_EQ(parsed->check_variants.size(), 1u);
  EXPECT_EQ(ApplyVariant(task, parsed->check_variants[0]).tensors[2].shape, (std::vector<int64_t>{17}));
}

TEST(RunnerEvents, EveryEventRoundTrips) {
  CheckEvent check{42, 1, false, {{"y", 0.5, 0.25, 3, 1, 2, 7}}};
  TimingEvent timing;
  timing.samples = 100;
  timing.median_s = 1.5e-5;
  timing.stop_reason = "noise";
  EnergyEvent energy;
  energy.available = true;
  energy.joules_per_launch = 0.002;
  energy.windows = 3;
  EnergyEvent no_energy{false, "libnvidia-ml.so.1 not found"};
  std::vector<RunnerEvent> events = {DeviceEvent{"NVIDIA H200", "9.0", 50331648, 150000000000, 1980, true},
                                     check,
                                     timing,
                                     energy,
                                     no_energy,
                                     FailureEvent{FailureKind::kIllegalAddress, "boom", "detail text"},
                                     DoneEvent{true}};
  for (const RunnerEvent& event : events) {
    json written = RunnerEventToJson(event);
    Result<RunnerEvent> parsed = ParseRunnerEventLine(written.dump());
    ASSERT_TRUE(parsed.ok()) << parsed.status().message() << " for " << written.dump();
    EXPECT_EQ(RunnerEventToJson(*parsed), written);
  }
  json check_json = RunnerEventToJson(check);
  EXPECT_EQ(check_json["event"], "check");
  EXPECT_EQ(check_json["variant"], 1);
  EXPECT_EQ(check_json["outputs"][0]["unwritten"], 2);
  EXPECT_EQ(RunnerEventToJson(FailureEvent{FailureKind::kStaleOutput, "m", ""})["kind"], "stale_output");
}

TEST(RunnerEvents, MalformedLinesAreErrors) {
  EXPECT_FALSE(ParseRunnerEventLine("not json").ok());
  EXPECT_FALSE(ParseRunnerEventLine("[1,2]").ok());
  EXPECT_FALSE(ParseRunnerEventLine(R"({"event": "teleport"})").ok());
  EXPECT_FALSE(ParseRunnerEventLine(R"({"event": "done"})").ok());
  EXPECT_FALSE(ParseRunnerEventLine(R"({"event": "done", "ok": 1})").ok());
  Result<RunnerEvent> bad_kind =
      ParseRunnerEventLine(R"({"event": "failure", "kind": "oops", "message": ""})");
  ASSERT_FALSE(bad_kind.ok());
  EXPECT_NE(bad_kind.status().message().find("\"oops\""), std::string::npos);
}

}  // namespace
}  // namespace kopt::runner

namespace kopt::runner {
namespace {

TEST(RunnerRequestIssue12, ReadsRoleSeedsOutputDescriptorAndVerifiedSamples) {
  json request = SoftmaxRequest();
  request["role"] = "reference";
  request["timing_seed"] = 18446744073709551615ull;
  request["fresh_seed"] = 7;
  request["output_fd"] = 3;
  request["output_memory"] = true;
  request["timing"]["verified_samples"] = 4;
  Result<RunnerRequest> parsed = RunnerRequestFromJson(request, "request.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->role, RunnerRole::kReference);
  EXPECT_EQ(parsed->timing_seed, 18446744073709551615ull);
  EXPECT_EQ(parsed->fresh_seed, 7u);
  EXPECT_EQ(parsed->output_fd, 3);
  EXPECT_EQ(parsed->timing->verified_samples, 4);
  // Round trip through the writer.
  Result<RunnerRequest> again = RunnerRequestFromJson(RunnerRequestToJson(*parsed), "again");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->role, RunnerRole::kReference);
  EXPECT_EQ(again->timing_seed, parsed->timing_seed);
  EXPECT_EQ(again->output_fd, 3);
  EXPECT_EQ(again->output_channel, OutputChannelKind::kMemory);
  EXPECT_EQ(again->timing->verified_samples, 4);
}

// The wire's two booleans are one channel kind: memory wins over pull, and
// the writer sends back the kind it read.
TEST(RunnerRequestIssue16, OutputChannelKindFromTheWire) {
  for (auto [memory, pull, kind] :
       {std::tuple{false, true, OutputChannelKind::kPull}, std::tuple{true, true, OutputChannelKind::kMemory},
        std::tuple{true, false, OutputChannelKind::kMemory}}) {
    json request = SoftmaxRequest();
    request["output_memory"] = memory;
    request["output_pull"] = pull;
    Result<RunnerRequest> parsed = RunnerRequestFromJson(request, "request.json");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->output_channel, kind);
    Result<RunnerRequest> again = RunnerRequestFromJson(RunnerRequestToJson(*parsed), "again");
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->output_channel, kind);
  }
  EXPECT_EQ(OutputChannelKindName(OutputChannelKind::kPull), "pull");
}

TEST(RunnerRequestIssue12, DefaultsAndBadValues) {
  Result<RunnerRequest> parsed = RunnerRequestFromJson(SoftmaxRequest(), "request.json");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->role, RunnerRole::kCandidate);
  EXPECT_EQ(parsed->output_fd, -1);
  EXPECT_EQ(parsed->output_channel, OutputChannelKind::kPipe);
  EXPECT_EQ(parsed->timing->verified_samples, 2);
  json request = SoftmaxRequest();
  request["role"] = "judge";
  EXPECT_NE(ErrorOf(request).find("role"), std::string::npos) << ErrorOf(request);
  request = SoftmaxRequest();
  request["output_fd"] = -5;
  EXPECT_NE(ErrorOf(request).find("output_fd"), std::string::npos);
  request = SoftmaxRequest();
  request["timing"]["verified_samples"] = 1000;
  EXPECT_NE(ErrorOf(request).find("verified_samples"), std::string::npos);
  request = SoftmaxRequest();
  request["timing_seed"] = -1;
  EXPECT_NE(ErrorOf(request).find("timing_seed"), std::string::npos);
}

TEST(RunnerRequestIssue12, TimingSetSeedsDifferPerSetAndRun) {
  EXPECT_NE(TimingSetSeed(1, 0), TimingSetSeed(1, 1));
  EXPECT_NE(TimingSetSeed(1, 0), TimingSetSeed(2, 0));
  EXPECT_EQ(TimingSetSeed(5, 3), TimingSetSeed(5, 3));
}

TEST(RunnerRequestIssue12, OutputsEventsAndVerifiedSamplesRoundTrip) {
  OutputsEvent outputs{"variant", 1, 99, {"y"}, {{"send", 0.5}}};
  json line = RunnerEventToJson(outputs);
  EXPECT_EQ(line["phase_s"]["send"], 0.5);
  Result<RunnerEvent> parsed = ParseRunnerEventLine(line.dump());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const auto& back = std::get<OutputsEvent>(*parsed);
  EXPECT_EQ(back.round, "variant");
  EXPECT_EQ(back.index, 1);
  EXPECT_EQ(back.seed, 99u);
  EXPECT_EQ(back.tensors, std::vector<std::string>{"y"});

  TimingEvent timing;
  timing.samples = 10;
  timing.median_s = 1e-3;
  timing.verified = {{4, 2, 1.1e-3}};
  Result<RunnerEvent> timed = ParseRunnerEventLine(RunnerEventToJson(timing).dump());
  ASSERT_TRUE(timed.ok()) << timed.status().message();
  const auto& verified = std::get<TimingEvent>(*timed).verified;
  ASSERT_EQ(verified.size(), 1u);
  EXPECT_EQ(verified[0].sample, 4);
  EXPECT_EQ(verified[0].set, 2);
  EXPECT_DOUBLE_EQ(verified[0].seconds, 1.1e-3);
  EXPECT_FALSE(ParseRunnerEventLine(R"({"event":"outputs","round":"check","index":0,"seed":1})").ok());
}

}  // namespace
}  // namespace kopt::runner
