#include "agents/builtin_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "agents/cutlass_gemm_seed.h"
#include "agents/generator_table.h"
#include "agents/tuning_moves.h"
#include "harness/task_spec.h"
#include "harness/tunable_sidecar.h"

namespace kopt::agents {
namespace {

constexpr uint64_t kEnumerationLimit = 1 << 16;
constexpr int kRandomAttempts = 64;

std::string FailureSummary(const GenerationRequest& request) {
  std::string text;
  if (request.compiler_output) {
    text = "compile error";
  } else if (request.correctness_failure) {
    text = request.correctness_failure->kind;
  } else {
    text = "failure";
  }
  return text;
}

}  // namespace

std::string_view MoveOrderingName(MoveOrdering ordering) {
  switch (ordering) {
    case MoveOrdering::kGuided: return "guided";
    case MoveOrdering::kUnguided: return "unguided";
    case MoveOrdering::kRandomSearch: return "random";
    case MoveOrdering::kExhaustive: return "exhaustive";
  }
  return "unknown";
}

Result<MoveOrdering> ParseMoveOrdering(std::string_view name) {
  for (MoveOrdering ordering : {MoveOrdering::kGuided, MoveOrdering::kUnguided, MoveOrdering::kRandomSearch,
                                MoveOrdering::kExhaustive}) {
    if (name == MoveOrderingName(ordering)) return ordering;
  }
  return InvalidInput(
      fmt::format("\"{}\" is not a move ordering; expected guided, unguided, random or exhaustive", name));
}

BuiltinGenerator::BuiltinGenerator(TuningSpace space, BuiltinGeneratorSettings settings)
    : space_(std::move(space)), settings_(settings) {
  if (space_.CartesianSize() <= kEnumerationLimit) valid_count_ = space_.Enumerate(kEnumerationLimit).size();
}

std::optional<Configuration> BuiltinGenerator::ConfigurationOf(std::string_view source) const {
  std::optional<MaterializedSource> materialized = ParseMaterialized(source);
  if (!materialized) {
    if (source == space_.seed_source()) return space_.Default();
    return std::nullopt;
  }
  if (materialized->names.size() != space_.dimensions()) return std::nullopt;
  for (size_t i = 0; i < space_.dimensions(); ++i) {
    if (materialized->names[i] != space_.declarations().parameters[i].name) return std::nullopt;
  }
  if (!space_.Contains(materialized->configuration)) return std::nullopt;
  return materialized->configuration;
}

void BuiltinGenerator::MarkServed(const std::string& answer_id) {
  Result<Configuration> configuration = space_.ParseKey(answer_id);
  if (!configuration.ok()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  served_.insert(answer_id);
}

bool BuiltinGenerator::Served(const Configuration& configuration) const {
  return served_.contains(space_.Key(configuration));
}

Result<GeneratedCandidate> BuiltinGenerator::Generate(const GenerationRequest& request) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (request.mode == GenerationMode::kOptimize && request.parent_time_seconds) {
    time_of_[request.parent_id] = *request.parent_time_seconds;
  }
  std::mt19937_64 generator(settings_.seed ^
                            (static_cast<uint64_t>(request.node_id) * 0x9E3779B97F4A7C15ull));
  std::vector<Move> moves;
  if (settings_.ordering == MoveOrdering::kExhaustive) {
    if (std::optional<Move> next = NextInEnumeration()) moves.push_back(*next);
  } else if (settings_.ordering == MoveOrdering::kRandomSearch) {
    if (std::optional<Move> random = RandomMove(generator)) moves.push_back(*random);
  } else if (request.mode == GenerationMode::kOptimize) {
    moves = OptimizeMoves(request, generator);
  } else if (request.mode == GenerationMode::kRepair) {
    moves = RepairMoves(request, generator);
  } else {
    moves = InitialMoves(request, generator);
  }
  std::optional<Configuration> parent = ConfigurationOf(request.parent_source);
  for (size_t index = 0; index < moves.size(); ++index) {
    const Move& move = moves[index];
    if (Served(move.configuration) || !space_.Contains(move.configuration)) continue;
    GeneratedCandidate candidate = Serve(request, parent, move);
    std::set<std::string> ahead = {candidate.answer_id};
    for (size_t next = index + 1; next < moves.size() && ahead.size() <= settings_.compile_ahead; ++next) {
      const Configuration& configuration = moves[next].configuration;
      if (Served(configuration) || !space_.Contains(configuration)) continue;
      if (!ahead.insert(space_.Key(configuration)).second) continue;
      candidate.compile_ahead.push_back(space_.Materialize(configuration));
    }
    return candidate;
  }
  if (std::optional<Move> random = RandomMove(generator)) return Serve(request, parent, *random);
  if (std::optional<Move> next = NextInEnumeration()) return Serve(request, parent, *next);
  GeneratedCandidate exhausted;
  exhausted.outcome = GenerationOutcome::kExhausted;
  exhausted.message = fmt::format("builtin: every configuration of the space was served ({})",
                                  valid_count_ > 0 ? fmt::format("{} valid", valid_count_) : "sampled");
  return exhausted;
}

GeneratedCandidate BuiltinGenerator::Serve(const GenerationRequest& request,
                                           const std::optional<Configuration>& parent, const Move& move) {
  served_.insert(space_.Key(move.configuration));
  if (request.mode == GenerationMode::kOptimize && parent) {
    origin_of_[request.node_id] = *parent;
    origin_node_of_[request.node_id] = request.parent_id;
  } else if (auto origin = origin_of_.find(request.parent_id); origin != origin_of_.end()) {
    origin_of_[request.node_id] = origin->second;
  }
  GeneratedCandidate candidate;
  candidate.outcome = GenerationOutcome::kSource;
  candidate.source = space_.Materialize(move.configuration);
  candidate.reason = move.reason;
  candidate.answer_id = space_.Key(move.configuration);
  return candidate;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::InitialMoves(const GenerationRequest& request,
                                                                   std::mt19937_64& generator) const {
  (void)request;
  std::vector<Move> moves = {{space_.Default(), "default configuration (the declared defaults)"}};
  if (std::optional<Move> random = RandomMove(generator)) moves.push_back(*random);
  return moves;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::OptimizeMoves(const GenerationRequest& request,
                                                                    std::mt19937_64& generator) const {
  std::optional<Configuration> parent = ConfigurationOf(request.parent_source);
  if (!parent) return InitialMoves(request, generator);
  std::vector<Move> moves;
  if (settings_.ordering == MoveOrdering::kGuided) {
    moves = FindingMoves(*parent, request.finding_ids);
    if (request.objective == Objective::kTimeEnergy) {
      std::vector<Move> energy = EnergyMoves(*parent);
      moves.insert(moves.end(), energy.begin(), energy.end());
    }
    std::vector<Move> momentum = MomentumMoves(request, *parent);
    moves.insert(moves.end(), momentum.begin(), momentum.end());
  }
  std::vector<Move> neighbours =
      NeighbourMoves(*parent, fmt::format("neighbour of node {}", request.parent_id));
  if (settings_.ordering == MoveOrdering::kUnguided)
    std::shuffle(neighbours.begin(), neighbours.end(), generator);
  if (settings_.ordering == MoveOrdering::kGuided && request.objective == Objective::kTimeEnergy &&
      settings_.fast_math.allowed) {
    // Time first: the other knobs' neighbours before a step back on an energy knob.
    std::stable_partition(neighbours.begin(), neighbours.end(),
                          [&](const Move& move) { return !LowersFastMath(*parent, move.configuration); });
  }
  moves.insert(moves.end(), neighbours.begin(), neighbours.end());
  return moves;
}

bool BuiltinGenerator::LowersFastMath(const Configuration& from, const Configuration& to) const {
  const std::vector<TunableParameter>& parameters = space_.declarations().parameters;
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].role == ParameterRole::kFastMath &&
        space_.ValueIndex(to, i) < space_.ValueIndex(from, i))
      return true;
  }
  return false;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::RepairMoves(const GenerationRequest& request,
                                                                  std::mt19937_64& generator) const {
  std::optional<Configuration> failed = ConfigurationOf(request.parent_source);
  auto origin_entry = origin_of_.find(request.parent_id);
  Configuration origin = origin_entry != origin_of_.end() ? origin_entry->second : space_.Default();
  std::string label = fmt::format("repair of node {} ({})", request.parent_id, FailureSummary(request));
  std::vector<Move> moves;
  if (failed) {
    Configuration halfway = *failed;
    std::vector<std::string> changes;
    for (size_t i = 0; i < space_.dimensions(); ++i) {
      size_t from = space_.ValueIndex(*failed, i);
      size_t to = space_.ValueIndex(origin, i);
      if (from == to) continue;
      halfway = space_.Step(halfway, i, to > from ? 1 : -1).value_or(halfway);
      changes.push_back(
          fmt::format("{} {}→{}", space_.declarations().parameters[i].name, (*failed)[i], halfway[i]));
    }
    if (!changes.empty()) {
      moves.push_back({halfway, fmt::format("{}: a step back toward the verified {}: {}", label,
                                            space_.Describe(origin), fmt::join(changes, ", "))});
    }
  }
  std::vector<Move> neighbours = NeighbourMoves(origin, label + ": neighbour of the verified configuration");
  if (settings_.ordering == MoveOrdering::kUnguided)
    std::shuffle(neighbours.begin(), neighbours.end(), generator);
  moves.insert(moves.end(), neighbours.begin(), neighbours.end());
  return moves;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::FindingMoves(
    const Configuration& from, const std::vector<std::string>& findings) const {
  std::vector<Move> moves;
  const std::vector<TunableParameter>& parameters = space_.declarations().parameters;
  for (const std::string& finding : findings) {
    for (const RoleMove& role_move : MovesForFinding(finding)) {
      int direction = role_move.direction == MoveDirection::kIncrease ? 1 : -1;
      for (size_t i = 0; i < parameters.size(); ++i) {
        if (parameters[i].role != role_move.role) continue;
        for (int steps : {direction, 2 * direction}) {
          std::optional<Configuration> moved = space_.Step(from, i, steps);
          if (!moved) continue;
          moves.push_back({*moved, fmt::format("{}: {} {}→{} ({}, {})", finding, parameters[i].name, from[i],
                                               (*moved)[i], ParameterRoleName(parameters[i].role),
                                               MoveDirectionName(role_move.direction))});
        }
      }
    }
  }
  return moves;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::EnergyMoves(const Configuration& from) const {
  if (!settings_.fast_math.allowed) return {};
  std::vector<Move> moves;
  const std::vector<TunableParameter>& parameters = space_.declarations().parameters;
  for (int steps : {1, 2}) {
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (parameters[i].role != ParameterRole::kFastMath) continue;
      std::optional<Configuration> moved = space_.Step(from, i, steps);
      if (!moved) continue;
      moves.push_back(
          {*moved, fmt::format("energy (time+energy): {} {}→{} (fast_math, increase): {}", parameters[i].name,
                               from[i], (*moved)[i], settings_.fast_math.reason)});
    }
  }
  return moves;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::MomentumMoves(const GenerationRequest& request,
                                                                    const Configuration& from) const {
  auto origin = origin_of_.find(request.parent_id);
  auto origin_node = origin_node_of_.find(request.parent_id);
  if (origin == origin_of_.end() || origin_node == origin_node_of_.end() || !request.parent_time_seconds)
    return {};
  auto origin_time = time_of_.find(origin_node->second);
  if (origin_time == time_of_.end() || !(*request.parent_time_seconds < origin_time->second)) return {};
  double gain = 1 - *request.parent_time_seconds / origin_time->second;
  std::vector<Move> moves;
  for (size_t i = 0; i < space_.dimensions(); ++i) {
    size_t before = space_.ValueIndex(origin->second, i);
    size_t after = space_.ValueIndex(from, i);
    if (before == after) continue;
    std::optional<Configuration> moved = space_.Step(from, i, after > before ? 1 : -1);
    if (!moved) continue;
    const std::string& name = space_.declarations().parameters[i].name;
    moves.push_back(
        {*moved, fmt::format("momentum: {} {}→{} made node {} {:.0f} % faster than node {}: {}→{}", name,
                             origin->second[i], from[i], request.parent_id, 100 * gain, origin_node->second,
                             from[i], (*moved)[i])});
  }
  return moves;
}

std::vector<BuiltinGenerator::Move> BuiltinGenerator::NeighbourMoves(const Configuration& from,
                                                                     std::string_view label) const {
  std::vector<Move> moves;
  for (int distance : {1, 2}) {
    for (size_t i = 0; i < space_.dimensions(); ++i) {
      for (int steps : {distance, -distance}) {
        std::optional<Configuration> moved = space_.Step(from, i, steps);
        if (!moved) continue;
        moves.push_back({*moved, fmt::format("{}: {} {}→{}", label, space_.declarations().parameters[i].name,
                                             from[i], (*moved)[i])});
      }
    }
  }
  return moves;
}

std::optional<BuiltinGenerator::Move> BuiltinGenerator::RandomMove(std::mt19937_64& generator) const {
  for (int attempt = 0; attempt < kRandomAttempts; ++attempt) {
    std::optional<Configuration> sample = space_.Sample(generator);
    if (!sample) return std::nullopt;
    if (!Served(*sample)) return Move{*sample, "random restart"};
  }
  if (valid_count_ == 0) return std::nullopt;  // too many to list: sampling was the only way
  std::vector<Configuration> unserved;
  for (const Configuration& configuration : space_.Enumerate(kEnumerationLimit)) {
    if (!Served(configuration)) unserved.push_back(configuration);
  }
  if (unserved.empty()) return std::nullopt;
  return Move{unserved[std::uniform_int_distribution<size_t>(0, unserved.size() - 1)(generator)],
              "random restart"};
}

std::optional<BuiltinGenerator::Move> BuiltinGenerator::NextInEnumeration() const {
  if (valid_count_ == 0) return std::nullopt;
  for (const Configuration& configuration : space_.Enumerate(kEnumerationLimit)) {
    if (!Served(configuration)) {
      return Move{configuration, "exhaustive: next configuration"};
    }
  }
  return std::nullopt;
}

Result<std::unique_ptr<BuiltinGenerator>> MakeBuiltinGenerator(const std::vector<TunableSeed>& seeds,
                                                               const ScalarValues& scalars,
                                                               BuiltinGeneratorSettings settings) {
  std::vector<std::string> tried;
  for (const TunableSeed& seed : seeds) {
    KOPT_ASSIGN_OR_RETURN(TunableDeclarations declarations,
                          ParseTunableDeclarations(seed.source, seed.path, scalars));
    if (declarations.empty()) {
      tried.push_back(seed.path);
      continue;
    }
    KOPT_ASSIGN_OR_RETURN(TuningSpace space, TuningSpace::FromSource(seed.source, seed.path, scalars));
    return std::make_unique<BuiltinGenerator>(std::move(space), settings);
  }
  return InvalidInput(
      fmt::format("builtin generator: no tunable candidate{}{}: declare parameters with kopt:tune lines "
                  "(docs/tuning.md) in a "
                  "seed, or put one in TASK/tunable/",
                  tried.empty() ? "" : " among ", fmt::join(tried, ", ")));
}

namespace {

// The candidate seeds: the run's seed candidates, then TASK/tunable/*.cu in
// name order (docs/tuning.md), each with its sidecar TOML's declarations
// when it has one.
Result<std::vector<TunableSeed>> TunableSeeds(const GeneratorInputs& inputs, const ScalarValues& scalars) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths = inputs.seed_candidate_paths;
  fs::path tunable = fs::path(inputs.task->directory) / "tunable";
  std::error_code error;
  if (fs::is_directory(tunable, error)) {
    std::vector<std::string> found;
    for (const fs::directory_entry& entry : fs::directory_iterator(tunable, error)) {
      if (entry.path().extension() == ".cu") found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  std::vector<TunableSeed> seeds;
  for (const std::string& path : paths) {
    KOPT_ASSIGN_OR_RETURN(std::string source, LoadTunableSource(path, scalars));
    seeds.push_back({path, std::move(source)});
  }
  return seeds;
}

}  // namespace

Status MakeBuiltinGeneratorParts(const GeneratorInputs& inputs, GeneratorParts& parts) {
  const TaskSpec& task = *inputs.task;
  ScalarValues scalars = TaskScalarValues(task);
  KOPT_ASSIGN_OR_RETURN(std::vector<TunableSeed> seeds, TunableSeeds(inputs, scalars));
  if (inputs.gemm_seed != nullptr) {
    seeds.insert(seeds.begin(),
                 {(std::filesystem::path(task.directory) / "builtin" / inputs.gemm_seed->file_name).string(),
                  inputs.gemm_seed->source});
  }
  BuiltinGeneratorSettings builtin{MoveOrdering::kGuided, inputs.seed.value_or(0)};
  builtin.fast_math = FastMathAllowedBy(task);
  // CUTLASS instantiations compile for tens of seconds: the next moves compile while the GPU measures.
  // As many as the compile pool runs at once (MeasureSession::CompileAhead drops the rest).
  if (inputs.gemm_seed != nullptr) {
    builtin.compile_ahead = std::clamp<size_t>(std::thread::hardware_concurrency(), 3, 32);
  }
  if (inputs.objective == Objective::kTimeEnergy) {
    parts.notes.push_back(fmt::format("builtin generator, time+energy: energy moves (fast_math knobs) {}: {}",
                                      builtin.fast_math.allowed ? "tried" : "not tried",
                                      builtin.fast_math.reason));
  }
  KOPT_ASSIGN_OR_RETURN(parts.generator, MakeBuiltinGenerator(seeds, scalars, builtin));
  return Status::Ok();
}

}  // namespace kopt::agents
