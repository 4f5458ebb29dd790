#include "measure/measure_plan.h"

#include <algorithm>
#include <thread>

#include "core/sha256.h"
#include "measure/child_outcome.h"
#include "runner_protocol/runner_request.h"

namespace kopt {
namespace {

using nlohmann::json;

runner::TimingRequest TimingSettings(const MeasureSettings& settings) {
  runner::TimingRequest timing;
  timing.max_relative_stdev = settings.max_noise;
  timing.min_samples = settings.min_samples;
  timing.timeout_seconds = settings.timing_seconds;
  timing.cold = !settings.warm;
  return timing;
}

// As the runner reads it: an integer scalar's float_value is its value too.
runner::ScalarDecl ScalarDeclFor(const ScalarSpec& scalar) {
  return {scalar.name, scalar.type, scalar.integer_value, scalar.AsDouble()};
}

}  // namespace

json MeasurementSettingsJson(const MeasureSettings& settings, const MeasurePlan& plan) {
  json timing = nullptr;
  if (settings.time) {
    runner::TimingRequest request = TimingSettings(settings);
    timing = {{"warmup_seconds", request.warmup_seconds},
              {"min_samples", request.min_samples},
              {"max_samples", request.max_samples},
              {"max_relative_stdev", request.max_relative_stdev},
              {"min_gpu_seconds", request.min_gpu_seconds},
              {"timeout_seconds", request.timeout_seconds},
              {"cold", request.cold},
              {"rotate_input_sets", request.rotate_input_sets}};
  }
  json energy = nullptr;
  if (settings.time && settings.energy) {
    runner::EnergyRequest request;
    energy = {{"window_seconds", request.window_seconds}, {"idle_seconds", request.idle_seconds}};
  }
  return {{"kopt_version", KOPT_VERSION},
          // 2: the verdict is the parent's; results of protocol 1 are not reused.
          // 3: the check rounds' inputs are drawn on the device: other values for the same
          // seeds, so no stored reference result or reference-cache entry of protocol 2 is reused.
          {"harness_protocol", 3},
          {"task", plan.task.ToJson()},
          {"check_variants", plan.task.VariantsToJson()},
          {"reference_sha256", Sha256Hex(plan.task.reference_source)},
          {"architecture", plan.architecture},
          {"seeds_per_child", plan.seeds.size()},
          {"timing", timing},
          {"energy", energy},
          {"child_timeout_seconds", settings.timeout_seconds}};
}

uint64_t MeasurePlan::TimingSeed() const {
  return runner::TimingSetSeed(seeds.empty() ? 0 : seeds.front(), -2);
}

uint64_t MeasurePlan::FreshSeed() const {
  return runner::TimingSetSeed(seeds.empty() ? 0 : seeds.back(), -3);
}

runner::RunnerTask RunnerTaskFor(const TaskSpec& task) {
  runner::RunnerTask runner_task;
  runner_task.name = task.name;
  runner_task.entry = task.entry;
  for (const TensorSpec& tensor : task.tensors)
    runner_task.tensors.push_back({tensor.name, tensor.dtype, tensor.shape, tensor.role, tensor.init});
  for (const ScalarSpec& scalar : task.scalars) runner_task.scalars.push_back(ScalarDeclFor(scalar));
  for (int index = 0; index < kDataTypeCount; ++index)
    runner_task.tolerances[static_cast<DataType>(index)] = task.tolerances[index];
  runner_task.description = task.description;
  runner_task.min_bytes = task.min_bytes;
  runner_task.check_seeds = task.check_seeds;
  runner_task.flops = task.flops;
  return runner_task;
}

std::vector<runner::CheckVariant> CheckVariantsFor(const TaskSpec& task) {
  std::vector<runner::CheckVariant> variants;
  for (const VariantSpec& variant : task.variants) {
    runner::CheckVariant& check = variants.emplace_back();
    for (const ScalarSpec& scalar : variant.scalars) check.scalars.push_back(ScalarDeclFor(scalar));
    for (size_t index = 0; index < task.tensors.size() && index < variant.shapes.size(); ++index)
      check.shapes[task.tensors[index].name] = variant.shapes[index];
  }
  return variants;
}

runner::RunnerRequest BuildRunnerRequest(const MeasureSettings& settings, const MeasurePlan& plan,
                                         const std::string& candidate_library,
                                         const std::string& reference_library,
                                         const RunnerRequestOptions& options) {
  runner::RunnerRequest request;
  request.role = options.role;
  request.task = RunnerTaskFor(plan.task);
  if (options.check_variants) request.check_variants = CheckVariantsFor(plan.task);
  request.timing_seed = plan.TimingSeed();
  request.fresh_seed = plan.FreshSeed();
  request.candidate_library = candidate_library;
  request.reference_library = reference_library;
  request.seeds = plan.seeds;
  request.check = options.check;
  request.device = settings.device;
  // A backstop behind the wall-clock watchdog, not a second timeout: the
  // runner generates inputs on every core and spins in CUDA synchronization,
  // so its CPU time can exceed the wall time several times over (a 20 s
  // limit killed a naive softmax reference with SIGXCPU on the H200).
  request.cpu_seconds = settings.timeout_seconds * std::max(2u, std::thread::hardware_concurrency());
  if (settings.time && options.timing) request.timing = TimingSettings(settings);
  if (options.energy) request.energy = runner::EnergyRequest{};
  return request;
}

Result<json> RunnerRequestWire(const runner::RunnerRequest& request) {
  json wire = runner::RunnerRequestToJson(request);
  Result<runner::RunnerRequest> read_back = runner::RunnerRequestFromJson(wire, "runner request");
  if (!read_back.ok()) {
    return Internal("kopt bug: the runner request does not read back: " + read_back.status().message());
  }
  return wire;
}

}  // namespace kopt
