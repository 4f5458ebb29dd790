#include "agents/tuning_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "agents/tuning_moves.h"
#include "search/simulation.h"

namespace kopt::agents {
namespace {

constexpr std::string_view kReferenceSource = "(the reference)";

std::string TranspositionKey(const std::string& configuration_key) {
  return "config:" + configuration_key;
}

// The generator's view of one replayed run: node → configuration key.
class ReplayEvaluator {
 public:
  ReplayEvaluator(const MeasuredSpace& measured, BuiltinGenerator& generator)
      : measured_(measured), generator_(generator) {}

  Evaluation operator()(const SearchTree& tree, NodeId node, std::mt19937_64&) {
    const SearchNode& search_node = tree.node(node);
    GenerationRequest request = RequestFor(tree, search_node);
    Result<GeneratedCandidate> candidate = generator_.Generate(request);
    Evaluation evaluation;
    if (!candidate.ok() || candidate->outcome != GenerationOutcome::kSource) {
      evaluation.status = NodeStatus::kFailedGenerate;
      evaluation.detail = candidate.ok() ? candidate->message : candidate.status().message();
      return evaluation;
    }
    keys_[node] = candidate->answer_id;
    sources_[node] = candidate->source;
    auto result = measured_.results.find(candidate->answer_id);
    if (result == measured_.results.end()) {
      evaluation.status = NodeStatus::kFailedRun;
      evaluation.detail = "not in the measured space";
      return evaluation;
    }
    evaluation.status = result->second.status;
    if (evaluation.status == NodeStatus::kVerified) {
      evaluation.time_s = *result->second.time_s;
      evaluation.time_noise_fraction = result->second.noise_fraction;
    } else {
      evaluation.detail = std::string(NodeStatusName(evaluation.status));
    }
    evaluation.transposition_keys = {TranspositionKey(candidate->answer_id)};
    return evaluation;
  }

 private:
  GenerationRequest RequestFor(const SearchTree& tree, const SearchNode& node) const {
    GenerationRequest request;
    request.mode = node.mode;
    request.node_id = node.id;
    request.parent_id = node.parent.value_or(0);
    auto source = sources_.find(request.parent_id);
    request.parent_source = source != sources_.end() ? source->second : std::string(kReferenceSource);
    const SearchNode& parent = tree.node(request.parent_id);
    if (node.mode == GenerationMode::kRepair) {
      if (parent.status == NodeStatus::kFailedCompile) {
        request.compiler_output = parent.detail;
      } else {
        CorrectnessFailure failure;
        failure.kind = std::string(NodeStatusName(parent.status));
        failure.message = parent.detail;
        request.correctness_failure = failure;
      }
    }
    if (parent.verified()) request.parent_time_seconds = parent.time_s;
    auto key = keys_.find(request.parent_id);
    if (node.mode == GenerationMode::kOptimize && key != keys_.end()) {
      request.finding_ids = measured_.results.at(key->second).findings;
    }
    return request;
  }

  const MeasuredSpace& measured_;
  BuiltinGenerator& generator_;
  std::map<NodeId, std::string> keys_;
  std::map<NodeId, std::string> sources_;
};

// Best verified time after each evaluation, in record order (duplicates skipped).
std::vector<double> BestTimes(const SearchTree& tree) {
  std::vector<const SearchNode*> recorded;
  for (const SearchNode& node : tree.nodes()) {
    if (node.parent && node.record_sequence >= 0 && node.status != NodeStatus::kDuplicate)
      recorded.push_back(&node);
  }
  std::sort(recorded.begin(), recorded.end(),
            [](const SearchNode* a, const SearchNode* b) { return a->record_sequence < b->record_sequence; });
  std::vector<double> best;
  double so_far = std::numeric_limits<double>::infinity();
  for (const SearchNode* node : recorded) {
    if (node->verified()) so_far = std::min(so_far, node->time_s);
    best.push_back(so_far);
  }
  return best;
}

// Mean over runs of the best time after n = 1..max evaluations (a run that
// ended early keeps its last value; a run with nothing verified yet counts
// the reference time).
std::vector<double> MeanCurve(const std::vector<std::vector<double>>& runs, int64_t max_evaluations,
                              double reference_time_s) {
  std::vector<double> mean(static_cast<size_t>(max_evaluations), 0);
  for (const std::vector<double>& run : runs) {
    for (int64_t n = 0; n < max_evaluations; ++n) {
      double value =
          run.empty() ? reference_time_s : run[std::min<size_t>(static_cast<size_t>(n), run.size() - 1)];
      mean[static_cast<size_t>(n)] +=
          std::isfinite(value) ? std::min(value, reference_time_s) : reference_time_s;
    }
  }
  for (double& value : mean) value /= static_cast<double>(std::max<size_t>(1, runs.size()));
  return mean;
}

StrategyScore Score(const std::string& name, std::vector<double> mean, const ReplaySettings& settings,
                    double optimum, double random_at_budget, int64_t budget) {
  StrategyScore score;
  score.name = name;
  double at_budget = mean[static_cast<size_t>(budget - 1)];
  double span = random_at_budget - optimum;
  score.score = span > 0 ? (random_at_budget - at_budget) / span : (at_budget <= optimum ? 1.0 : 0.0);
  for (int64_t checkpoint : settings.checkpoints) {
    size_t index = static_cast<size_t>(std::clamp<int64_t>(checkpoint, 1, settings.max_evaluations) - 1);
    score.fraction_at.push_back(optimum / mean[index]);
  }
  for (size_t n = 0; n < mean.size(); ++n) {
    if (optimum / mean[n] >= 0.95) {
      score.evaluations_to_95 = static_cast<int64_t>(n + 1);
      break;
    }
  }
  score.mean_best_s = std::move(mean);
  return score;
}

}  // namespace

Result<MeasuredSpace> MeasuredSpaceFromCache(const KernelTunerCache& cache, TuningSpace space,
                                             std::string label) {
  std::vector<std::string> names;
  for (const TunableParameter& parameter : space.declarations().parameters) names.push_back(parameter.name);
  if (names != cache.header.parameter_names) {
    return InvalidInput(fmt::format("{}: the cache's parameters ({}) are not the source's ({})", label,
                                    fmt::join(cache.header.parameter_names, ","), fmt::join(names, ",")));
  }
  MeasuredSpace measured{std::move(label), false, std::move(space), {}, 0, 0};
  std::vector<Configuration> valid = measured.space.Enumerate(1 << 20);
  size_t missing = 0;
  std::string first_missing;
  double slowest = 0;
  double fastest = std::numeric_limits<double>::infinity();
  for (const Configuration& configuration : valid) {
    std::string key = measured.space.Key(configuration);
    auto entry = cache.entries.find(key);
    if (entry == cache.entries.end()) {
      if (missing++ == 0) first_missing = key;
      continue;
    }
    measured.results[key] = entry->second;
    if (entry->second.status == NodeStatus::kVerified && entry->second.time_s) {
      slowest = std::max(slowest, *entry->second.time_s);
      fastest = std::min(fastest, *entry->second.time_s);
    }
  }
  if (missing > 0) {
    return InvalidInput(fmt::format("{}: not exhaustive: {} of {} configurations measured; first missing: {}",
                                    measured.label, valid.size() - missing, valid.size(), first_missing));
  }
  if (!std::isfinite(fastest))
    return InvalidInput(fmt::format("{}: no configuration verified", measured.label));
  measured.optimum_time_s = fastest;
  measured.reference_time_s = cache.header.reference_time_s.value_or(slowest);
  return measured;
}

std::vector<ReplayStrategy> DefaultReplayStrategies() {
  std::vector<ReplayStrategy> strategies;
  for (MoveOrdering ordering : {MoveOrdering::kGuided, MoveOrdering::kUnguided}) {
    for (SearchPolicyKind policy :
         {SearchPolicyKind::kMcts, SearchPolicyKind::kGreedy, SearchPolicyKind::kBeam}) {
      strategies.push_back(
          {fmt::format("{}+{}", MoveOrderingName(ordering), SearchPolicyKindName(policy)), policy, ordering});
    }
  }
  strategies.push_back({"random search", SearchPolicyKind::kRandom, MoveOrdering::kRandomSearch});
  return strategies;
}

Result<std::vector<double>> ReplayRun(const MeasuredSpace& measured, const ReplayStrategy& strategy,
                                      const ReplaySettings& settings, uint64_t seed) {
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<SearchPolicy> policy,
                        MakeSearchPolicy(strategy.policy, settings.search, seed));
  BuiltinGenerator generator(measured.space, BuiltinGeneratorSettings{strategy.ordering, seed});
  ReplayEvaluator evaluator(measured, generator);
  SimulatedEvaluator evaluate = [&evaluator](const SearchTree& tree, NodeId node, std::mt19937_64& rng) {
    return evaluator(tree, node, rng);
  };
  Evaluation reference;
  reference.status = NodeStatus::kVerified;
  reference.time_s = measured.reference_time_s;
  SimulationSettings simulation;
  simulation.max_evaluations = settings.max_evaluations;
  simulation.seed = seed;
  KOPT_ASSIGN_OR_RETURN(SimulationResult result,
                        Simulate(*policy, Objective::kTime, reference, evaluate, simulation));
  return BestTimes(result.tree);
}

Result<ReplayComparison> CompareStrategies(const MeasuredSpace& measured,
                                           const std::vector<ReplayStrategy>& strategies,
                                           const ReplaySettings& settings) {
  auto random = std::find_if(strategies.begin(), strategies.end(), [](const ReplayStrategy& s) {
    return s.ordering == MoveOrdering::kRandomSearch;
  });
  if (random == strategies.end())
    return InvalidInput("simulation: the strategies need a random search baseline");
  if (settings.max_evaluations < 1 || settings.repeats < 1) {
    return InvalidInput("simulation: max_evaluations and repeats must be >= 1");
  }
  std::vector<std::vector<double>> curves;
  for (const ReplayStrategy& strategy : strategies) {
    std::vector<std::vector<double>> runs;
    for (int repeat = 0; repeat < settings.repeats; ++repeat) {
      uint64_t seed = settings.seed * 1000003u + static_cast<uint64_t>(repeat);
      KOPT_ASSIGN_OR_RETURN(std::vector<double> run, ReplayRun(measured, strategy, settings, seed));
      runs.push_back(std::move(run));
    }
    curves.push_back(MeanCurve(runs, settings.max_evaluations, measured.reference_time_s));
  }
  ReplayComparison comparison;
  comparison.label = measured.label;
  comparison.synthetic = measured.synthetic;
  comparison.configurations = measured.results.size();
  comparison.optimum_time_s = measured.optimum_time_s;
  const std::vector<double>& random_curve = curves[static_cast<size_t>(random - strategies.begin())];
  comparison.random_budget = settings.max_evaluations;
  for (size_t n = 0; n < random_curve.size(); ++n) {
    if (random_curve[n] <= (1 + settings.within_optimum) * measured.optimum_time_s) {
      comparison.random_budget = static_cast<int64_t>(n + 1);
      comparison.random_reached = true;
      break;
    }
  }
  double random_at_budget = random_curve[static_cast<size_t>(comparison.random_budget - 1)];
  for (size_t i = 0; i < strategies.size(); ++i) {
    comparison.strategies.push_back(Score(strategies[i].name, curves[i], settings, measured.optimum_time_s,
                                          random_at_budget, comparison.random_budget));
  }
  return comparison;
}

Result<MeasuredSpace> SyntheticMeasuredSpace(std::string_view tunable_source, uint64_t seed,
                                             double finding_accuracy) {
  KOPT_ASSIGN_OR_RETURN(TuningSpace space, TuningSpace::FromSource(tunable_source, "synthetic.cu", {}));
  std::mt19937_64 generator(seed);
  const std::vector<TunableParameter>& parameters = space.declarations().parameters;
  std::vector<size_t> best_index;
  std::vector<double> weight;
  for (const TunableParameter& parameter : parameters) {
    best_index.push_back(std::uniform_int_distribution<size_t>(0, parameter.values.size() - 1)(generator));
    weight.push_back(std::uniform_real_distribution<double>(0.1, 0.6)(generator));
  }
  MeasuredSpace measured{fmt::format("synthetic: seed {}", seed), true, space, {}, 0, 0};
  std::uniform_real_distribution<double> unit(0, 1);
  const std::vector<FindingTuningMoves>& table = MoveTable();
  double slowest = 0;
  double fastest = std::numeric_limits<double>::infinity();
  for (const Configuration& configuration : space.Enumerate(1 << 20)) {
    double time_s = 1e-4 * (1 + 0.08 * unit(generator));  // ruggedness
    size_t worst = 0;
    double worst_penalty = -1;
    for (size_t i = 0; i < parameters.size(); ++i) {
      double distance = std::fabs(static_cast<double>(space.ValueIndex(configuration, i)) -
                                  static_cast<double>(best_index[i]));
      double penalty = weight[i] * distance;
      time_s *= 1 + penalty;
      if (penalty > worst_penalty) {
        worst_penalty = penalty;
        worst = i;
      }
    }
    KernelTunerCacheEntry entry;
    entry.configuration = configuration;
    entry.time_s = time_s;
    MoveDirection wanted = best_index[worst] > space.ValueIndex(configuration, worst)
                               ? MoveDirection::kIncrease
                               : MoveDirection::kDecrease;
    std::string finding =
        std::string(table[std::uniform_int_distribution<size_t>(0, table.size() - 1)(generator)].finding_id);
    if (worst_penalty > 0 && unit(generator) < finding_accuracy) {
      for (const FindingTuningMoves& row : table) {
        if (!row.moves.empty() && row.moves.front().role == parameters[worst].role &&
            row.moves.front().direction == wanted) {
          finding = std::string(row.finding_id);
          break;
        }
      }
    }
    entry.findings = {finding};
    slowest = std::max(slowest, time_s);
    fastest = std::min(fastest, time_s);
    measured.results[space.Key(configuration)] = entry;
  }
  measured.optimum_time_s = fastest;
  measured.reference_time_s = slowest;
  return measured;
}

}  // namespace kopt::agents
