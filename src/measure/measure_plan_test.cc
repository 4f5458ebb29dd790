#include "measure/measure_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "harness/task_spec_test_util.h"

namespace kopt {
namespace {

using nlohmann::json;

MeasurePlan Plan() {
  MeasurePlan plan;
  Result<TaskSpec> task = ParseTaskToml(kFullTaskToml, "task.toml");
  EXPECT_TRUE(task.ok()) << task.status().message();
  if (task.ok()) plan.task = *task;
  plan.seeds = {7, 18446744073709551615ull};
  return plan;
}

MeasureSettings Settings() {
  MeasureSettings settings;
  settings.device = 1;
  settings.timeout_seconds = 20;
  settings.max_noise = 0.02;
  settings.min_samples = 12;
  settings.timing_seconds = 4;
  return settings;
}

// The request as it was built before the typed request was the only thing edited: typed, to JSON,
// the task and its variants patched in by key, then the channel fields RunnerClient patched.
json PatchedByKey(const MeasureSettings& settings, const MeasurePlan& plan,
                  const RunnerRequestOptions& options, int output_fd, bool output_memory, bool output_pull) {
  runner::RunnerRequest request;
  request.role = options.role;
  request.timing_seed = plan.TimingSeed();
  request.fresh_seed = plan.FreshSeed();
  request.candidate_library = "/w/candidate.so";
  request.reference_library = "/w/reference.so";
  request.seeds = plan.seeds;
  request.check = options.check;
  request.device = settings.device;
  request.cpu_seconds = settings.timeout_seconds * std::max(2u, std::thread::hardware_concurrency());
  if (settings.time && options.timing) {
    runner::TimingRequest timing;
    timing.max_relative_stdev = settings.max_noise;
    timing.min_samples = settings.min_samples;
    timing.timeout_seconds = settings.timing_seconds;
    timing.cold = !settings.warm;
    request.timing = timing;
  }
  if (options.energy) request.energy = runner::EnergyRequest{};
  json wire = runner::RunnerRequestToJson(request);
  wire["task"] = plan.task.ToJson();
  wire["check_variants"] = options.check_variants ? plan.task.VariantsToJson() : json::array();
  if (output_fd >= 0) {
    wire["output_fd"] = output_fd;
    wire["output_memory"] = output_memory;
    wire["output_pull"] = output_pull;
  }
  return wire;
}

std::string TypedWire(runner::RunnerRequest request, int output_fd, runner::OutputChannelKind channel) {
  if (output_fd >= 0) {
    request.output_fd = output_fd;
    request.output_channel = channel;
  }
  Result<json> wire = RunnerRequestWire(request);
  EXPECT_TRUE(wire.ok()) << wire.status().message();
  return wire.ok() ? wire->dump(2) : "";
}

TEST(BuildRunnerRequest, WritesTheSameBytesAsTheRequestPatchedByKey) {
  MeasurePlan plan = Plan();
  MeasureSettings settings = Settings();
  RunnerRequestOptions options;
  options.energy = true;
  runner::RunnerRequest typed =
      BuildRunnerRequest(settings, plan, "/w/candidate.so", "/w/reference.so", options);
  EXPECT_EQ(TypedWire(typed, 3, runner::OutputChannelKind::kPull),
            PatchedByKey(settings, plan, options, 3, false, true).dump(2));
  EXPECT_EQ(TypedWire(typed, 3, runner::OutputChannelKind::kMemory),
            PatchedByKey(settings, plan, options, 3, true, false).dump(2));

  // A reference child without variants or timing; a profiling request without a channel.
  options = RunnerRequestOptions();
  options.check_variants = false;
  options.timing = false;
  options.role = runner::RunnerRole::kReference;
  settings.warm = true;
  typed = BuildRunnerRequest(settings, plan, "/w/candidate.so", "/w/reference.so", options);
  EXPECT_EQ(TypedWire(typed, 3, runner::OutputChannelKind::kPipe),
            PatchedByKey(settings, plan, options, 3, false, false).dump(2));
  EXPECT_EQ(TypedWire(typed, -1, runner::OutputChannelKind::kPipe),
            PatchedByKey(settings, plan, options, -1, false, false).dump(2));
}

TEST(BuildRunnerRequest, CarriesTheResolvedTaskAndItsVariants) {
  MeasurePlan plan = Plan();
  runner::RunnerRequest typed =
      BuildRunnerRequest(Settings(), plan, "/w/candidate.so", "/w/reference.so", RunnerRequestOptions());
  EXPECT_EQ(runner::RunnerTaskToJson(typed.task), plan.task.ToJson());
  ASSERT_EQ(typed.check_variants.size(), 2u);
  EXPECT_EQ(typed.check_variants[0].shapes.at("C"), (std::vector<int64_t>{1000, 3}));
  EXPECT_DOUBLE_EQ(typed.check_variants[1].scalars[3].float_value, 2.0);
  EXPECT_DOUBLE_EQ(typed.task.scalars[0].float_value, 256);  // as the runner reads an integer scalar
}

}  // namespace
}  // namespace kopt
