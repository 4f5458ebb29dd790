#include "optimize/node_energy.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "agents/builtin_generator.h"
#include "core/file_io.h"
#include "harness/task_spec.h"
#include "harness/tunable_declarations.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

MeasurementEntry EntryWithEnergy(bool available, double dynamic = 0.002) {
  MeasurementEntry entry;
  entry.status = MeasureStatus::kOk;
  runner::EnergyEvent energy;
  energy.available = available;
  if (!available) {
    energy.reason = "NVML unavailable: cannot load libnvidia-ml.so.1";
  } else {
    energy.joules_per_launch = dynamic + 0.006;
    energy.joules_per_launch_stdev = 0.00004;
    energy.dynamic_joules_per_launch = dynamic;
    energy.idle_watts = 90;
    energy.mean_watts = 400;
    energy.windows = 3;
  }
  entry.energy = energy;
  return entry;
}

TEST(NodeEnergyTest, AMeasuredEnergyBecomesTheDynamicEnergyAndItsNoise) {
  Evaluation evaluation;
  NodeRecord record;
  ApplyMeasuredEnergy(EntryWithEnergy(true), true, evaluation, record);
  ASSERT_TRUE(evaluation.energy_j.has_value());
  EXPECT_DOUBLE_EQ(*evaluation.energy_j, 0.002);
  EXPECT_DOUBLE_EQ(evaluation.energy_noise_fraction, 0.02);  // 40 µJ stdev over 2 mJ
  EXPECT_EQ(record.energy_j, evaluation.energy_j);
  EXPECT_DOUBLE_EQ(*record.energy_total_j, 0.008);
  EXPECT_DOUBLE_EQ(*record.energy_idle_watts, 90);
  EXPECT_TRUE(record.energy_note.empty());
}

TEST(NodeEnergyTest, UnavailableEnergyIsANoteNotAValue) {
  Evaluation evaluation;
  NodeRecord record;
  ApplyMeasuredEnergy(EntryWithEnergy(false), true, evaluation, record);
  EXPECT_FALSE(evaluation.energy_j.has_value());
  EXPECT_THAT(record.energy_note, HasSubstr("NVML unavailable"));
}

TEST(NodeEnergyTest, ANonPositiveDynamicEnergyDoesNotRank) {
  Evaluation evaluation;
  NodeRecord record;
  ApplyMeasuredEnergy(EntryWithEnergy(true, -0.0001), true, evaluation, record);
  EXPECT_FALSE(evaluation.energy_j.has_value());
  EXPECT_TRUE(record.energy_total_j.has_value()) << "what was measured is kept";
  EXPECT_THAT(record.energy_note, HasSubstr("not positive"));
}

TEST(NodeEnergyTest, AMissingEventIsNotedOnlyWhenEnergyWasAsked) {
  MeasurementEntry entry;
  entry.status = MeasureStatus::kOk;
  Evaluation evaluation;
  NodeRecord asked, not_asked;
  ApplyMeasuredEnergy(entry, true, evaluation, asked);
  ApplyMeasuredEnergy(entry, false, evaluation, not_asked);
  EXPECT_THAT(asked.energy_note, HasSubstr("no energy event"));
  EXPECT_TRUE(not_asked.energy_note.empty());
}

RunState StateWithTwoCandidates(bool energy_asked) {
  RunState state;
  state.settings = nlohmann::json{{"energy", energy_asked}};
  state.tree = SearchTree(Objective::kTimeEnergy);
  EXPECT_TRUE(state.tree.AddRoot("reference").ok());
  Evaluation verified;
  verified.status = NodeStatus::kVerified;
  verified.time_s = 1e-4;
  verified.energy_j = 0.01;
  EXPECT_TRUE(state.tree.Record(0, verified).ok());
  verified.energy_j.reset();
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(state.tree.AddChild(0, GenerationMode::kInitial, "c").ok());
    EXPECT_TRUE(state.tree.Record(i + 1, verified).ok());
  }
  state.records.resize(3);
  state.records[1].energy_note = "NVML unavailable: no driver";
  state.records[2].energy_note = "NVML unavailable: no driver";
  return state;
}

TEST(NodeEnergyTest, TheRunSaysWhichNodesLackEnergyAndWhy) {
  std::vector<std::string> notes = MissingEnergyNotes(StateWithTwoCandidates(true), Objective::kTimeEnergy);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_THAT(notes[0],
              HasSubstr("2 of 3 verified nodes without a measured energy (n1, n2): NVML unavailable"));
  EXPECT_THAT(notes[1], HasSubstr("1 of 3 verified nodes measured"));
  EXPECT_THAT(notes[1], HasSubstr("times are kept"));
  EXPECT_THAT(notes[1], HasSubstr("never a measured energy against a predicted one"));
  EXPECT_TRUE(MissingEnergyNotes(StateWithTwoCandidates(false), Objective::kTimeEnergy).empty());
}

// The H200 measurements of examples/tasks/swish (`kopt bench --energy`, round 1
// of issue 15: tests/fixtures/energy_ab/, captured by bench/energy_ab_capture.sh):
// each entry as the loop would record it.
std::map<std::string, Evaluation> H200SwishEvaluations() {
  std::ifstream file(std::string(KOPT_FIXTURE_DIR) + "/energy_ab/h200_swish_bench_energy.json");
  nlohmann::json bench = nlohmann::json::parse(file);
  std::map<std::string, Evaluation> evaluations;
  nlohmann::json entries = bench["candidates"];
  entries.push_back(bench["reference"]);
  for (const nlohmann::json& json : entries) {
    const nlohmann::json& timing = json["timing"];
    const nlohmann::json& energy = json["energy"];
    MeasurementEntry entry;
    entry.status = MeasureStatus::kOk;
    runner::EnergyEvent event;
    event.available = energy["available"].get<bool>();
    event.joules_per_launch = energy["per_launch"]["value"].get<double>();
    event.joules_per_launch_stdev = energy["per_launch_stdev"]["value"].get<double>();
    event.dynamic_joules_per_launch = energy["dynamic_per_launch"]["value"].get<double>();
    entry.energy = event;
    Evaluation evaluation;
    evaluation.status = NodeStatus::kVerified;
    double median = timing["median"]["value"].get<double>();
    evaluation.time_s = median;
    // The loop's noise: max(relative stdev, IQR / median).
    evaluation.time_noise_fraction =
        std::max(timing["relative_stdev"]["value"].get<double>(),
                 (timing["q3"]["value"].get<double>() - timing["q1"]["value"].get<double>()) / median);
    NodeRecord record;
    ApplyMeasuredEnergy(entry, true, evaluation, record);
    evaluations[json["name"].get<std::string>()] = evaluation;
  }
  return evaluations;
}

std::string BestOf(const std::map<std::string, Evaluation>& evaluations,
                   const std::vector<std::string>& names, Objective objective) {
  std::string best;
  for (const std::string& name : names) {
    if (best.empty() || IsBetterCandidate(evaluations.at(name), evaluations.at(best), objective)) best = name;
  }
  return best;
}

TEST(NodeEnergyTest, OnTheH200SwishMeasurementsTimeEnergyPicksTheFastPathsAtMatchedSpeed) {
  std::map<std::string, Evaluation> measured = H200SwishEvaluations();
  const Evaluation& ieee = measured.at("swish_vec4_ieee");
  const Evaluation& intrinsics = measured.at("swish_vec4_intrinsics");
  // 72.5 vs 72.2 µs: within the noise; 37.1 vs 31.8 mJ dynamic per launch: outside the energy noise.
  ASSERT_TRUE(
      TimesOverlap(ieee.time_s, ieee.time_noise_fraction, intrinsics.time_s, intrinsics.time_noise_fraction));
  CandidateComparison comparison = CompareCandidates(intrinsics, ieee, Objective::kTimeEnergy);
  EXPECT_EQ(comparison.rule, CompareRule::kMeasuredEnergy);
  EXPECT_LT(comparison.order, 0);
  EXPECT_NEAR(1 - *intrinsics.energy_j / *ieee.energy_j, 0.143, 0.01);
  EXPECT_EQ(CompareCandidates(intrinsics, ieee, Objective::kTime).rule, CompareRule::kTimeObjective);
  // The tunable candidate's configurations (all about 69.8 µs): MATH 0 (IEEE), 1 (__expf), 2 (+ __fdividef).
  std::vector<std::string> tunable = {"tune_b256_i2_m0_f0", "tune_b256_i2_m1_f0", "tune_b256_i2_m2_f0",
                                      "tune_b256_i2_m2_f1", "tune_b512_i2_m0_f0", "tune_b512_i2_m2_f0"};
  EXPECT_EQ(BestOf(measured, tunable, Objective::kTimeEnergy), "tune_b256_i2_m2_f1");
  for (const std::string& name : tunable) {
    const Evaluation& evaluation = measured.at(name);
    if (name.find("_m0_") != std::string::npos) {
      EXPECT_LT(LexicographicCompare(measured.at("tune_b256_i2_m2_f0"), evaluation, Objective::kTimeEnergy),
                0)
          << name;
    }
    EXPECT_GT(evaluation.energy_noise_fraction, 0) << name;
    EXPECT_LT(evaluation.energy_noise_fraction, 0.01) << name;
  }
  // The reference (one element per thread, 114 µs) is slower: time decides, whatever the energy.
  EXPECT_EQ(
      CompareCandidates(measured.at("tune_b256_i2_m0_f0"), measured.at("reference"), Objective::kTimeEnergy)
          .rule,
      CompareRule::kTime);
}

// The builtin generator and the reward over the H200 measurements: a greedy
// run of examples/tasks/swish's tunable candidate under time+energy, each
// configuration it serves evaluated by its round-1 measurement. Every
// configuration the run asks for was measured, so this is the loop's A/B
// replayed on real numbers.
TEST(NodeEnergyTest, ReplayedOnTheH200MeasurementsTheBuiltinRunEndsOnTheLowerEnergyConfiguration) {
  std::map<std::string, Evaluation> measured = H200SwishEvaluations();
  std::string task_directory = std::string(KOPT_FIXTURE_DIR) + "/../../examples/tasks/swish";
  Result<TaskSpec> task = LoadTask(task_directory);
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::string path = task_directory + "/tunable/swish_tunable.cu";
  Result<std::string> seed = ReadWholeFile(path);
  ASSERT_TRUE(seed.ok());
  Result<std::unique_ptr<agents::BuiltinGenerator>> made =
      agents::MakeBuiltinGenerator({{path, *seed}}, TaskScalarValues(*task),
                                   {agents::MoveOrdering::kGuided, 15, agents::FastMathAllowedBy(*task)});
  ASSERT_TRUE(made.ok()) << made.status().message();
  agents::BuiltinGenerator& generator = **made;
  SearchTree tree(Objective::kTimeEnergy);
  ASSERT_TRUE(tree.AddRoot("reference").ok());
  ASSERT_TRUE(tree.Record(0, measured.at("reference")).ok());
  std::map<NodeId, std::string> sources;
  auto evaluate = [&](NodeId node, const agents::GeneratedCandidate& candidate) {
    Configuration configuration = generator.ConfigurationOf(candidate.source).value_or(Configuration{});
    ASSERT_EQ(configuration.size(), 4u);
    std::string name = fmt::format("tune_b{}_i{}_m{}_f{}", configuration[0], configuration[1],
                                   configuration[2], configuration[3]);
    ASSERT_TRUE(measured.contains(name)) << "the run asked for " << name << ", which was not measured";
    ASSERT_TRUE(tree.Record(node, measured.at(name)).ok());
    sources[node] = candidate.source;
  };
  agents::GenerationRequest first;
  first.mode = GenerationMode::kInitial;
  first.node_id = *tree.AddChild(0, GenerationMode::kInitial, "initial");
  first.objective = Objective::kTimeEnergy;
  Result<agents::GeneratedCandidate> initial = generator.Generate(first);
  ASSERT_TRUE(initial.ok());
  evaluate(first.node_id, *initial);
  for (int step = 0; step < 3; ++step) {  // greedy: optimize the best so far
    NodeId best = *tree.BestNode();
    agents::GenerationRequest request;
    request.mode = GenerationMode::kOptimize;
    request.parent_id = best;
    request.node_id = *tree.AddChild(best, GenerationMode::kOptimize, "optimize");
    request.parent_source = sources.at(best);
    request.parent_time_seconds = tree.node(best).time_s;
    request.objective = Objective::kTimeEnergy;
    Result<agents::GeneratedCandidate> candidate = generator.Generate(request);
    ASSERT_TRUE(candidate.ok());
    EXPECT_THAT(candidate->reason, HasSubstr("energy (time+energy)"));
    evaluate(request.node_id, *candidate);
  }
  NodeId best = *tree.BestNode();
  EXPECT_EQ(generator.ConfigurationOf(sources.at(best)), (Configuration{256, 2, 2, 1}));  // __fdividef + FTZ
  EXPECT_EQ(tree.ExplainBest()->comparison.rule, CompareRule::kMeasuredEnergy);
  const Evaluation& default_configuration = measured.at("tune_b256_i2_m0_f0");
  EXPECT_TRUE(TimesOverlap(tree.node(best).time_s, tree.node(best).time_noise_fraction,
                           default_configuration.time_s, default_configuration.time_noise_fraction));
  EXPECT_NEAR(1 - *tree.node(best).energy_j / *default_configuration.energy_j, 0.168, 0.005);
}

}  // namespace
}  // namespace kopt
