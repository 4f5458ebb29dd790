#include "optimize/node_energy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kopt
