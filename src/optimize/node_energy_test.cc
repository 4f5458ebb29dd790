#include "optimize/node_energy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

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

}  // namespace
}  // namespace kopt
