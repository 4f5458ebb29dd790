#include "report/optimize_energy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/optimize_renderer.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A finished time+energy run: the reference, n1 and n2 at the same speed
// (within noise), n2 using less measured dynamic energy.
RunState EqualSpeedRun(Objective objective, bool measured = true) {
  RunState state;
  state.task = "swish";
  state.gpu = "NVIDIA H200";
  state.settings = nlohmann::json{{"objective", ObjectiveName(objective)}, {"energy", true}};
  state.status = RunStatus::kFinished;
  state.tree = SearchTree(objective);
  EXPECT_TRUE(state.tree.AddRoot("reference").ok());
  auto verified = [&](double time_s, std::optional<double> joules) {
    Evaluation evaluation;
    evaluation.status = NodeStatus::kVerified;
    evaluation.time_s = time_s;
    evaluation.time_noise_fraction = 0.01;
    if (measured) evaluation.energy_j = joules;
    evaluation.energy_noise_fraction = 0.005;
    return evaluation;
  };
  EXPECT_TRUE(state.tree.Record(0, verified(80e-6, 0.014)).ok());
  state.reference_time_s = 80e-6;
  EXPECT_TRUE(state.tree.AddChild(0, GenerationMode::kInitial, "n1").ok());
  EXPECT_TRUE(state.tree.Record(1, verified(57.0e-6, 0.0110)).ok());
  EXPECT_TRUE(state.tree.AddChild(1, GenerationMode::kOptimize, "n2").ok());
  EXPECT_TRUE(state.tree.Record(2, verified(57.2e-6, 0.0098)).ok());
  state.records.resize(3);
  for (NodeId id = 0; id < 3; ++id) {
    state.records[static_cast<size_t>(id)].id = id;
    state.records[static_cast<size_t>(id)].name = id == 0 ? "reference" : "n" + std::to_string(id);
    if (!measured) state.records[static_cast<size_t>(id)].energy_note = "NVML unavailable: no driver";
  }
  return state;
}

TEST(OptimizeEnergyTest, SaysTheMeasuredEnergyPickedTheBest) {
  RunState state = EqualSpeedRun(Objective::kTimeEnergy);
  ASSERT_EQ(state.tree.BestNode(), std::optional<NodeId>(2));
  EXPECT_TRUE(EnergyShown(state));
  std::string chosen = BestChoiceText(state);
  EXPECT_THAT(chosen, HasSubstr("measured dynamic energy"));
  EXPECT_THAT(chosen, HasSubstr("n2 uses 9.8 mJ per launch, n1 11 mJ (-10.9 %)"));
  EXPECT_THAT(BestEnergyText(state),
              HasSubstr("n2: 9.8 mJ ±0.5 % dynamic per launch (measured), the reference 14 mJ"));
  EXPECT_EQ(NodeEnergyText(state, 1), "11 mJ ±0.5 %");
}

TEST(OptimizeEnergyTest, ReportsCarryEnergyWithUnits) {
  RunState state = EqualSpeedRun(Objective::kTimeEnergy);
  OptimizeReportInput input;
  input.state = &state;
  Result<std::string> terminal = RenderOptimizeReport(input, ReportFormat::kTerminal, RenderOptions{});
  ASSERT_TRUE(terminal.ok());
  EXPECT_THAT(*terminal, HasSubstr("Chosen by  measured dynamic energy"));
  EXPECT_THAT(*terminal, HasSubstr("energy/launch"));
  Result<std::string> markdown = RenderOptimizeReport(input, ReportFormat::kMarkdown, RenderOptions{});
  ASSERT_TRUE(markdown.ok());
  EXPECT_THAT(*markdown, HasSubstr("| energy/launch |"));
  Result<std::string> html = RenderOptimizeReport(input, ReportFormat::kHtml, RenderOptions{});
  ASSERT_TRUE(html.ok());
  EXPECT_THAT(*html, HasSubstr("Chosen by: measured dynamic energy"));
  EXPECT_THAT(*html, HasSubstr("<td>9.8 mJ ±0.5 %</td>"));
  Result<std::string> json_text = RenderOptimizeReport(input, ReportFormat::kJson, RenderOptions{});
  ASSERT_TRUE(json_text.ok());
  nlohmann::json json = nlohmann::json::parse(*json_text);
  EXPECT_EQ(json["energy"]["chosen_by"]["rule"], "measured_energy");
  EXPECT_EQ(json["energy"]["chosen_by"]["runner_up"], 1);
  EXPECT_EQ(json["energy"]["nodes"][2]["measured_dynamic"]["unit"], "J");
  EXPECT_DOUBLE_EQ(json["energy"]["nodes"][2]["measured_dynamic"]["value"].get<double>(), 0.0098);
  EXPECT_TRUE(json["energy"]["nodes"][2]["predicted_dynamic"].is_null());
}

TEST(OptimizeEnergyTest, TimeAloneSaysEnergyWasNotRanked) {
  RunState state = EqualSpeedRun(Objective::kTime);
  ASSERT_EQ(state.tree.BestNode(), std::optional<NodeId>(1));
  EXPECT_THAT(BestChoiceText(state), HasSubstr("the lower median time: n1 and n2"));
  EXPECT_THAT(BestChoiceText(state), HasSubstr("the objective is time alone"));
}

TEST(OptimizeEnergyTest, WithoutMeasurementsSaysWhyAndLabelsPredictions) {
  RunState state = EqualSpeedRun(Objective::kTimeEnergy, /*measured=*/false);
  EXPECT_THAT(BestEnergyText(state), HasSubstr("not measured: NVML unavailable"));
  ASSERT_TRUE(state.tree.SetPredictedEnergy(1, 0.012).ok());
  EXPECT_THAT(BestChoiceText(state), HasSubstr("has no energy"));
  ASSERT_TRUE(state.tree.SetPredictedEnergy(2, 0.010).ok());
  EXPECT_EQ(state.tree.BestNode(), std::optional<NodeId>(2));
  EXPECT_THAT(BestChoiceText(state), HasSubstr("predicted dynamic energy (the proxy model"));
  EXPECT_EQ(NodeEnergyText(state, 2), "~10 mJ predicted");
  EXPECT_THAT(BestChoiceText(state), Not(HasSubstr("measured dynamic")));
}

}  // namespace
}  // namespace kopt
