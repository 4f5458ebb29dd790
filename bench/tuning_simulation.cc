// Simulation mode of the builtin generator (docs/tuning.md "Simulation"):
// replays exhaustively measured spaces (Kernel Tuner caches captured on the
// H200 by bench/builtin_tuning_on_device.sh, committed as fixtures) through
// every search policy and move ordering, 100 repeats each, and prints the
// comparison table: the score (strategy − random) / (optimum − random) at
// the budget random search needs to get within 4 % of the optimum, the
// fraction of the optimum after 10, 20 and 40 unique evaluations, and the
// evaluations needed to reach 95 % of it.
//
//   tuning_simulation [--repeats N] [--budget N] CACHE.json ...
//       each cache names its tunable source (header "kopt_source", relative
//       to the repository root) and the task scalars its restrictions use;
//   tuning_simulation --synthetic K [--repeats N] [--budget N]
//       K synthetic spaces (clearly labelled: their numbers are not results;
//       for exercising the machinery before real caches exist).
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "agents/tuning_replay.h"
#include "core/file_io.h"
#include "search/kernel_tuner_cache.h"

#ifndef KOPT_SOURCE_DIR
#define KOPT_SOURCE_DIR "."
#endif

namespace kopt {
namespace {

constexpr std::string_view kSyntheticSource =
    R"(// kopt:tune BLOCK_SIZE values=32,64,128,256,512,1024 role=block_size
// kopt:tune ITEMS values=1,2,4,8,16 role=items_per_thread
// kopt:tune VEC values=1,2,4,8 role=vector_width
// kopt:tune UNROLL values=1,2,4 role=unroll
// kopt:restrict BLOCK_SIZE * ITEMS <= 8192
int x = BLOCK_SIZE * ITEMS * VEC * UNROLL;
)";

Result<agents::MeasuredSpace> LoadMeasured(const std::string& path) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  KOPT_ASSIGN_OR_RETURN(KernelTunerCache cache, ParseKernelTunerCache(text, path));
  if (cache.header.source.empty()) return InvalidInput(fmt::format("{}: no kopt_source in the header", path));
  std::string source_path = cache.header.source.front() == '/'
                                ? cache.header.source
                                : std::string(KOPT_SOURCE_DIR) + "/" + cache.header.source;
  KOPT_ASSIGN_OR_RETURN(std::string source, ReadWholeFile(source_path));
  ScalarValues scalars(cache.header.scalars.begin(), cache.header.scalars.end());
  KOPT_ASSIGN_OR_RETURN(TuningSpace space, TuningSpace::FromSource(source, source_path, scalars));
  return agents::MeasuredSpaceFromCache(
      cache, std::move(space), fmt::format("{} on {}", cache.header.kernel_name, cache.header.device_name));
}

void PrintComparison(const agents::ReplayComparison& comparison, const agents::ReplaySettings& settings) {
  fmt::print("\n### {}{}\n\n", comparison.synthetic ? "SYNTHETIC (not a result): " : "", comparison.label);
  fmt::print(
      "{} configurations; optimum {:.2f} µs; random search needs {} evaluations to get within {:.0f} % of "
      "it{}\n\n",
      comparison.configurations, comparison.optimum_time_s * 1e6, comparison.random_budget,
      settings.within_optimum * 100, comparison.random_reached ? "" : " (not reached: capped at the budget)");
  fmt::print("| strategy | score at {} | of optimum @10 | @20 | @40 | evaluations to 95 % |\n",
             comparison.random_budget);
  fmt::print("|---|---|---|---|---|---|\n");
  for (const agents::StrategyScore& score : comparison.strategies) {
    fmt::print("| {} | {:.3f} |", score.name, score.score);
    for (double fraction : score.fraction_at) fmt::print(" {:.3f} |", fraction);
    fmt::print(" {} |\n", score.evaluations_to_95 ? fmt::format("{}", *score.evaluations_to_95) : "—");
  }
}

int Run(const std::vector<std::string>& arguments) {
  agents::ReplaySettings settings;
  int synthetic = 0;
  std::vector<std::string> caches;
  for (size_t i = 0; i < arguments.size(); ++i) {
    bool has_value = i + 1 < arguments.size();
    if (arguments[i] == "--repeats" && has_value) {
      settings.repeats = std::stoi(arguments[++i]);
    } else if (arguments[i] == "--budget" && has_value) {
      settings.max_evaluations = std::stoll(arguments[++i]);
    } else if (arguments[i] == "--synthetic" && has_value) {
      synthetic = std::stoi(arguments[++i]);
    } else {
      caches.push_back(arguments[i]);
    }
  }
  if (caches.empty() && synthetic == 0) {
    std::fprintf(stderr,
                 "usage: tuning_simulation [--repeats N] [--budget N] CACHE.json ... | --synthetic K\n");
    return 2;
  }
  std::vector<agents::MeasuredSpace> spaces;
  for (const std::string& path : caches) {
    Result<agents::MeasuredSpace> measured = LoadMeasured(path);
    if (!measured.ok()) {
      std::fprintf(stderr, "tuning_simulation: %s\n", measured.status().message().c_str());
      return 2;
    }
    spaces.push_back(std::move(measured).value());
  }
  for (int i = 0; i < synthetic; ++i) {
    Result<agents::MeasuredSpace> measured = agents::SyntheticMeasuredSpace(kSyntheticSource, 100 + i);
    if (!measured.ok()) return 2;
    spaces.push_back(std::move(measured).value());
  }
  fmt::print("# Builtin generator: search efficiency in simulation ({} repeats, budget {})\n",
             settings.repeats, settings.max_evaluations);
  for (const agents::MeasuredSpace& measured : spaces) {
    Result<agents::ReplayComparison> comparison =
        agents::CompareStrategies(measured, agents::DefaultReplayStrategies(), settings);
    if (!comparison.ok()) {
      std::fprintf(stderr, "tuning_simulation: %s\n", comparison.status().message().c_str());
      return 1;
    }
    PrintComparison(*comparison, settings);
  }
  return 0;
}

}  // namespace
}  // namespace kopt

int main(int argc, char** argv) {
  return kopt::Run(std::vector<std::string>(argv + 1, argv + argc));
}
