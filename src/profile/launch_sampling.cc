// The sampling plan of live collection. See launch_sampling.h.
#include "profile/launch_sampling.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "profile/kernel_launch.h"

namespace kopt {
namespace {

// ncu's launch configuration, as far as the timeline records it.
using Configuration = std::tuple<long long, long long, long long, long long, long long, long long, long long>;

Configuration ConfigurationOf(const TraceActivity& kernel) {
  return {kernel.grid.x,
          kernel.grid.y,
          kernel.grid.z,
          kernel.block.x,
          kernel.block.y,
          kernel.block.z,
          kernel.shared_dynamic_bytes};
}

std::string Count(long long value) {
  return std::to_string(value);
}

// True when the first `per_configuration` launches of each (kernel, configuration) are the program's
// first launches in launch-call order: no launch left out comes before a sampled one. A timeline of
// several processes is never a prefix (ncu counts their launches together, in an order the timeline
// does not fix).
bool SampleIsAPrefix(const LaunchTrace& trace, long long per_configuration) {
  if (trace.files.size() > 1) return false;
  std::vector<const TraceActivity*> kernels;
  for (const TraceActivity& activity : trace.activities) {
    if (activity.kind == TraceActivityKind::kKernel) kernels.push_back(&activity);
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const TraceActivity* a, const TraceActivity* b) {
    return a->correlation < b->correlation;
  });
  std::map<std::pair<std::string, Configuration>, long long> seen;
  bool left_one_out = false;
  for (const TraceActivity* kernel : kernels) {
    bool sampled = ++seen[{kernel->name, ConfigurationOf(*kernel)}] <= per_configuration;
    if (sampled && left_one_out) return false;
    left_one_out = left_one_out || !sampled;
  }
  return true;
}

}  // namespace

SamplingPlan PlanLaunchSampling(const LaunchTrace& trace, long long launches_per_configuration) {
  SamplingPlan plan;
  plan.launches_per_configuration = std::max(0LL, launches_per_configuration);
  std::unordered_map<std::string, size_t> index;                   // recorded name → kernels slot
  std::vector<std::map<Configuration, long long>> configurations;  // per slot: launches per configuration
  for (const TraceActivity& activity : trace.activities) {
    if (activity.kind != TraceActivityKind::kKernel) continue;
    auto [slot, added] = index.try_emplace(activity.name, plan.kernels.size());
    if (added) {
      plan.kernels.push_back({FunctionNameOf(Demangle(activity.name)), 0, 0, 0});
      configurations.emplace_back();
    }
    ++plan.kernels[slot->second].launches;
    ++configurations[slot->second][ConfigurationOf(activity)];
  }
  for (size_t slot = 0; slot < plan.kernels.size(); ++slot) {
    SampledKernel& kernel = plan.kernels[slot];
    kernel.configurations = static_cast<long long>(configurations[slot].size());
    for (const auto& [configuration, launches] : configurations[slot]) {
      kernel.profiled += plan.launches_per_configuration == 0
                             ? launches
                             : std::min(launches, plan.launches_per_configuration);
    }
    plan.total_launches += kernel.launches;
    plan.total_profiled += kernel.profiled;
  }
  if (plan.Samples()) {
    plan.ncu_arguments = UnplannedSamplingArguments(plan.launches_per_configuration);
    if (SampleIsAPrefix(trace, plan.launches_per_configuration)) {
      plan.early_stop_arguments = {"--launch-count", std::to_string(plan.total_profiled), "--kill", "yes"};
    }
  }
  return plan;
}

std::vector<std::string> UnplannedSamplingArguments(long long launches_per_configuration) {
  return {"--filter-mode", "per-launch-config", "--launch-count", std::to_string(launches_per_configuration)};
}

std::string SamplingPlan::Describe() const {
  std::string kernels_text;
  constexpr size_t kListed = 5;
  for (size_t i = 0; i < kernels.size() && i < kListed; ++i) {
    const SampledKernel& kernel = kernels[i];
    kernels_text += fmt::format("{}{} of {} of {}", i == 0 ? "" : (i + 1 == kernels.size() ? " and " : ", "),
                                Count(kernel.profiled), Count(kernel.launches), kernel.function_name);
  }
  if (kernels.size() > kListed) kernels_text += fmt::format(" and {} more kernels", kernels.size() - kListed);
  if (!Samples()) {
    return fmt::format("profiled every launch the launch timeline recorded ({}: {})", Count(total_launches),
                       kernels_text);
  }
  return fmt::format(
      "profiled {} of the {} launches the launch timeline recorded ({}): the first {} of each launch "
      "configuration; --launches-per-kernel 0 profiles every launch",
      Count(total_profiled), Count(total_launches), kernels_text, launches_per_configuration);
}

}  // namespace kopt
