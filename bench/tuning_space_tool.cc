// The builtin tuner's measurement helper (bench/builtin_tuning_on_device.sh,
// docs/tuning.md): turns a tunable candidate into one candidate file per
// configuration for `kopt bench`, and turns that run's JSON report into a
// Kernel Tuner cache (an exhaustively measured space for the simulation
// fixtures) plus one row of the quality table.
//
//   tuning_space_tool materialize TASK_DIR TUNABLE.cu OUT_DIR [--limit N] [--seed S] [--keys "K1 K2 ..."]
//       writes OUT_DIR/<stem>__<v1>_<v2>....cu for every valid configuration
//       (a seeded random subset of N when there are more; default 10000;
//       with --keys only those configurations, Kernel Tuner keys such as
//       "128,256,64,2,1,0,2,0,1,0,1", each checked against the space);
//       prints the number written.
//   tuning_space_tool gemm-seed TASK_DIR OUT.cu [--sm-count N] [--no-3xtf32] [--values NAME=V1,V2...]...
//       writes the builtin generator's CUTLASS seed of a GEMM-class task
//       (agents/cutlass_gemm_seed.h; docs/tuning.md "GEMM tasks") and prints
//       the recognised operation and the number of valid configurations.
//       --values narrows a knob to some of its values (a sub-space small
//       enough to measure exhaustively, for the simulation; a default left
//       outside becomes the first value).
//   tuning_space_tool cache TASK_DIR TUNABLE.cu BENCH.json OUT_CACHE.json [--budget N]
//       reads a `kopt bench -f json` report (kopt.bench/1) that measured the
//       materialized files (and any hand-written candidates), writes the
//       Kernel Tuner cache, and prints a Markdown row: task, configurations
//       measured, best configuration and its time, the best found by guided
//       MCTS within N evaluations (default 60) replayed over the cache, the
//       best hand-written candidate, the reference, the roofline floor.
//
// Exit status: 0 done, 1 nothing verified, 2 bad input.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "agents/cutlass_gemm_seed.h"
#include "agents/tuning_replay.h"
#include "core/file_io.h"
#include "harness/gemm_operation.h"
#include "harness/task_spec.h"
#include "harness/tunable_sidecar.h"
#include "harness/tuning_space.h"
#include "search/kernel_tuner_cache.h"

namespace kopt {
namespace {

using nlohmann::json;

Result<TuningSpace> LoadSpace(const TaskSpec& task, const std::string& tunable) {
  ScalarValues scalars = TaskScalarValues(task);
  KOPT_ASSIGN_OR_RETURN(std::string source, LoadTunableSource(tunable, scalars));
  return TuningSpace::FromSource(source, tunable, scalars);
}

std::string FileStem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

Status Materialize(const std::vector<std::string>& arguments) {
  if (arguments.size() < 3)
    return InvalidInput("usage: materialize TASK_DIR TUNABLE.cu OUT_DIR [--limit N] [--seed S]");
  uint64_t limit = 10000;
  uint64_t seed = 1;
  std::string keys;
  for (size_t i = 3; i + 1 < arguments.size(); i += 2) {
    if (arguments[i] == "--limit") limit = std::stoull(arguments[i + 1]);
    if (arguments[i] == "--seed") seed = std::stoull(arguments[i + 1]);
    if (arguments[i] == "--keys") keys = arguments[i + 1];
  }
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(arguments[0]));
  KOPT_ASSIGN_OR_RETURN(TuningSpace space, LoadSpace(task, arguments[1]));
  std::vector<Configuration> all;
  if (!keys.empty()) {
    std::istringstream words(keys);
    for (std::string key; words >> key;) {
      KOPT_ASSIGN_OR_RETURN(Configuration configuration, space.ParseKey(key));
      if (!space.Contains(configuration)) {
        return InvalidInput(fmt::format("--keys: {} breaks a restriction of the space", key));
      }
      all.push_back(configuration);
    }
  } else {
    all = space.Enumerate(1 << 20);
  }
  if (all.size() > limit) {
    std::mt19937_64 generator(seed);
    std::shuffle(all.begin(), all.end(), generator);
    all.resize(limit);
    std::sort(all.begin(), all.end());
  }
  std::filesystem::create_directories(arguments[2]);
  for (const Configuration& configuration : all) {
    std::string key = space.Key(configuration);
    std::replace(key.begin(), key.end(), ',', '_');
    std::replace(key.begin(), key.end(), '-', 'm');
    std::string path = fmt::format("{}/{}__{}.cu", arguments[2], FileStem(arguments[1]), key);
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(path, space.Materialize(configuration)));
  }
  fmt::print("{}\n", all.size());
  return Status::Ok();
}

Status WriteGemmSeed(const std::vector<std::string>& arguments) {
  if (arguments.size() < 2)
    return InvalidInput(
        "usage: gemm-seed TASK_DIR OUT.cu [--sm-count N] [--no-3xtf32] [--values NAME=V1,V2...]");
  agents::CutlassSeedOptions options;
  std::vector<std::pair<std::string, std::string>> narrowed;
  for (size_t i = 2; i < arguments.size(); ++i) {
    if (arguments[i] == "--sm-count" && i + 1 < arguments.size())
      options.sm_count = std::stoi(arguments[++i]);
    if (arguments[i] == "--no-3xtf32") options.allow_3xtf32 = false;
    if (arguments[i] == "--values" && i + 1 < arguments.size()) {
      std::string spec = arguments[++i];
      size_t equals = spec.find('=');
      if (equals == std::string::npos) return InvalidInput("--values expects NAME=V1,V2,...");
      narrowed.emplace_back(spec.substr(0, equals), spec.substr(equals + 1));
    }
  }
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(arguments[0]));
  KOPT_ASSIGN_OR_RETURN(std::optional<GemmOperation> operation, RecognizeGemmTask(task));
  if (!operation) return InvalidInput(fmt::format("{}: not recognised as a GEMM-class task", arguments[0]));
  KOPT_ASSIGN_OR_RETURN(agents::CutlassGemmSeed seed, agents::EmitCutlassGemmSeed(task, *operation, options));
  for (const auto& [name, values] : narrowed) {
    std::regex tune("// kopt:tune " + name + " values=[0-9,]+ ");
    if (!std::regex_search(seed.source, tune)) return InvalidInput(fmt::format("--values: no knob {}", name));
    seed.source = std::regex_replace(seed.source, tune, "// kopt:tune " + name + " values=" + values + " ");
    std::smatch guard;
    std::regex define("#ifndef " + name + "\n#define " + name + " (-?[0-9]+)\n");
    if (std::regex_search(seed.source, guard, define) &&
        ("," + values + ",").find("," + guard[1].str() + ",") == std::string::npos) {
      seed.source = std::regex_replace(
          seed.source, define,
          "#ifndef " + name + "\n#define " + name + " " + values.substr(0, values.find(',')) + "\n");
    }
  }
  KOPT_RETURN_IF_ERROR(WriteFileAtomically(arguments[1], seed.source));
  KOPT_ASSIGN_OR_RETURN(TuningSpace space,
                        TuningSpace::FromSource(seed.source, arguments[1], TaskScalarValues(task)));
  fmt::print("{}: {}, {} valid configurations of {}\n", arguments[1], operation->Describe(),
             space.Enumerate(1 << 20).size(), space.CartesianSize());
  return Status::Ok();
}

std::optional<double> MedianSeconds(const json& entry) {
  if (!entry.is_object() || !entry.contains("timing") || !entry["timing"].is_object()) return std::nullopt;
  const json& timing = entry["timing"];
  if (!timing.contains("median") || !timing["median"].is_object()) return std::nullopt;
  const json& median = timing["median"];
  if (!median.contains("value") || !median["value"].is_number()) return std::nullopt;
  return median["value"].get<double>();
}

NodeStatus StatusOf(const json& entry) {
  std::string status = entry.value("status", "");
  if (status == "ok" && entry.value("suspect_fast", false)) return NodeStatus::kRejected;  // below the floor
  if (status == "ok") return NodeStatus::kVerified;
  std::string kind =
      entry.contains("kind") && entry["kind"].is_string() ? entry["kind"].get<std::string>() : "";
  if (kind == "compile_error" || kind == "missing_entry_point") return NodeStatus::kFailedCompile;
  if (kind == "wrong_output" || kind == "constant_output" || kind == "stale_output" ||
      kind == "inputs_modified" || kind == "precision_loss") {
    return NodeStatus::kFailedCheck;
  }
  return NodeStatus::kFailedRun;
}

struct HandWritten {
  std::string name;
  double time_s = 0;
};

// Adds the report's measured configurations to `cache`; returns the best hand-written candidate.
Result<std::optional<HandWritten>> AddEntries(const json& report, const TuningSpace& space,
                                              KernelTunerCache& cache) {
  std::optional<HandWritten> best_hand;
  for (const json& entry : report["candidates"]) {
    std::string path = entry.value("path", "");
    Result<std::string> source = ReadWholeFile(path);
    std::optional<MaterializedSource> materialized = source.ok() ? ParseMaterialized(*source) : std::nullopt;
    std::optional<double> median = MedianSeconds(entry);
    if (!materialized) {
      if (StatusOf(entry) == NodeStatus::kVerified && median && (!best_hand || *median < best_hand->time_s)) {
        best_hand = HandWritten{entry.value("name", path), *median};
      }
      continue;
    }
    if (!space.Contains(materialized->configuration)) continue;  // another space's file
    KernelTunerCacheEntry result;
    result.configuration = materialized->configuration;
    result.status = StatusOf(entry);
    if (result.status == NodeStatus::kVerified) {
      if (!median) return InvalidInput(fmt::format("{}: verified without a median time", path));
      result.time_s = median;
      const json& timing = entry["timing"];
      if (timing.contains("relative_stdev") && timing["relative_stdev"].is_object()) {
        result.noise_fraction = timing["relative_stdev"].value("value", 0.0);
      }
    }
    if (entry.contains("compile") && entry["compile"].contains("time") &&
        entry["compile"]["time"].is_object()) {
      result.compile_time_s = entry["compile"]["time"].value("value", 0.0);
    }
    cache.entries[space.Key(result.configuration)] = result;
  }
  return best_hand;
}

std::string Microseconds(std::optional<double> seconds) {
  return seconds ? fmt::format("{:.1f}", *seconds * 1e6) : "—";
}

Status WriteCache(const std::vector<std::string>& arguments) {
  if (arguments.size() < 4)
    return InvalidInput("usage: cache TASK_DIR TUNABLE.cu BENCH.json OUT_CACHE.json [--budget N]");
  int64_t budget = arguments.size() >= 6 && arguments[4] == "--budget" ? std::stoll(arguments[5]) : 60;
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(arguments[0]));
  KOPT_ASSIGN_OR_RETURN(TuningSpace space, LoadSpace(task, arguments[1]));
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(arguments[2]));
  json report = json::parse(text, nullptr, false);
  if (report.is_discarded() || !report.contains("candidates")) {
    return InvalidInput(fmt::format("{}: not a kopt bench JSON report", arguments[2]));
  }
  KernelTunerCache cache;
  cache.header.device_name = report["device"].value("name", "unknown");
  cache.header.kernel_name = task.name;
  for (const ScalarSpec& scalar : task.scalars) {
    if (scalar.type == ScalarType::kI32 || scalar.type == ScalarType::kI64)
      cache.header.problem_size.push_back(scalar.integer_value);
  }
  for (const TunableParameter& parameter : space.declarations().parameters) {
    cache.header.parameter_names.push_back(parameter.name);
    cache.header.parameter_values[parameter.name] = parameter.values;
  }
  cache.header.reference_time_s = MedianSeconds(report["reference"]);
  cache.header.source = arguments[1];
  for (const auto& [name, value] : TaskScalarValues(task)) cache.header.scalars[name] = value;
  KOPT_ASSIGN_OR_RETURN(std::optional<HandWritten> hand, AddEntries(report, space, cache));
  KOPT_RETURN_IF_ERROR(WriteFileAtomically(arguments[3], KernelTunerCacheText(cache)));
  const KernelTunerCacheEntry* best = cache.Best();
  if (best == nullptr) return WorkFailed(fmt::format("{}: no configuration verified", task.name));
  std::string guided = "—";
  Result<agents::MeasuredSpace> measured = agents::MeasuredSpaceFromCache(cache, space, task.name);
  if (measured.ok()) {
    agents::ReplaySettings settings;
    settings.max_evaluations = budget;
    Result<std::vector<double>> run = agents::ReplayRun(
        *measured, {"guided+mcts", SearchPolicyKind::kMcts, agents::MoveOrdering::kGuided}, settings, 1);
    if (run.ok() && !run->empty()) guided = Microseconds(run->back());
  } else {
    guided = fmt::format("({})", measured.status().message());
  }
  std::optional<double> floor;
  if (report["roofline_floor"].is_object()) floor = report["roofline_floor"].value("value", 0.0);
  fmt::print("| {} | {} | {} ({}) | {} | {} | {} | {} |\n", task.name, cache.entries.size(),
             Microseconds(best->time_s), space.Describe(best->configuration), guided,
             hand ? fmt::format("{} ({})", Microseconds(hand->time_s), hand->name) : "—",
             Microseconds(cache.header.reference_time_s), Microseconds(floor));
  return Status::Ok();
}

}  // namespace
}  // namespace kopt

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty()) {
    std::fprintf(stderr, "usage: tuning_space_tool materialize|cache ...\n");
    return 2;
  }
  std::string command = arguments.front();
  arguments.erase(arguments.begin());
  kopt::Status status = command == "materialize" ? kopt::Materialize(arguments)
                        : command == "cache"     ? kopt::WriteCache(arguments)
                        : command == "gemm-seed" ? kopt::WriteGemmSeed(arguments)
                                                 : kopt::InvalidInput("unknown command " + command);
  if (!status.ok()) {
    std::fprintf(stderr, "tuning_space_tool: %s\n", status.message().c_str());
    return kopt::ExitCodeFor(status);
  }
  return 0;
}
