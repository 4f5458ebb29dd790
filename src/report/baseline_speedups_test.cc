#include "report/baseline_speedups.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/optimize_renderer.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

TaskBaselines Baselines() {
  TaskBaselines baselines;
  baselines.path = "tasks/kb_level1_19_ReLU/baselines.json";
  baselines.gpu = "NVIDIA H200";
  baselines.baselines[0].time_s = 120e-6;
  baselines.baselines[0].note.clear();
  baselines.baselines[0].peak_memory_bytes = 4096;
  baselines.baselines[1].time_s = 60e-6;
  baselines.baselines[1].note.clear();
  return baselines;
}

TEST(BaselineSpeedupsTest, EachRatioIsTheBaselineOverTheTimeAndUnknownsSaySo) {
  EXPECT_DOUBLE_EQ(*SpeedupAgainst(Baselines().Get(PytorchBaseline::kEager), 40e-6), 3.0);
  EXPECT_FALSE(SpeedupAgainst(Baselines().Get(PytorchBaseline::kTorchCompile), 40e-6));
  EXPECT_FALSE(SpeedupAgainst(Baselines().Get(PytorchBaseline::kEager), std::nullopt));
  EXPECT_FALSE(SpeedupAgainst(Baselines().Get(PytorchBaseline::kEager), 0.0));
  EXPECT_EQ(SpeedupsAgainstText(Baselines(), 40e-6),
            "3.00x vs eager, 1.50x vs TF32, torch.compile not measured");
}

TEST(BaselineSpeedupsTest, JsonCarriesUnitsAndNullsWithoutBaselines) {
  nlohmann::json speedups = SpeedupsAgainstJson(Baselines(), 40e-6);
  EXPECT_EQ(speedups["eager"]["unit"], "ratio");
  EXPECT_TRUE(speedups["torch_compile"].is_null());
  nlohmann::json baselines = PytorchBaselinesJson(Baselines());
  EXPECT_EQ(baselines["baselines"][0]["peak_memory"]["unit"], "byte");
  EXPECT_EQ(baselines["baselines"][2]["note"], "not measured");
  EXPECT_TRUE(SpeedupsAgainstJson(std::nullopt, 40e-6).is_null());
  EXPECT_TRUE(PytorchBaselinesJson(std::nullopt).is_null());
}

// A finished run: the reference (the bridge) at 900 µs, n1 verified at 40 µs.
RunState BridgeRun() {
  RunState state;
  state.task = "kb_level1_19_ReLU";
  state.gpu = "NVIDIA H200";
  state.status = RunStatus::kFinished;
  state.tree = SearchTree(Objective::kTime);
  EXPECT_TRUE(state.tree.AddRoot("reference").ok());
  Evaluation evaluation;
  evaluation.status = NodeStatus::kVerified;
  evaluation.time_s = 900e-6;
  EXPECT_TRUE(state.tree.Record(0, evaluation).ok());
  state.reference_time_s = 900e-6;
  EXPECT_TRUE(state.tree.AddChild(0, GenerationMode::kInitial, "n1").ok());
  evaluation.time_s = 40e-6;
  EXPECT_TRUE(state.tree.Record(1, evaluation).ok());
  state.records.resize(2);
  state.records[0].name = "reference";
  state.records[1].id = 1;
  state.records[1].name = "n1";
  return state;
}

TEST(BaselineSpeedupsTest, AnOptimizeReportPutsThePytorchRatiosBeforeTheBridge) {
  RunState state = BridgeRun();
  OptimizeReportInput input;
  input.state = &state;
  input.pytorch_baselines = Baselines();
  Result<std::string> terminal = RenderOptimizeReport(input, ReportFormat::kTerminal, RenderOptions{});
  ASSERT_TRUE(terminal.ok());
  EXPECT_THAT(*terminal,
              HasSubstr("(3.00x vs eager, 1.50x vs TF32, torch.compile not measured; 22.50× faster than "
                        "the reference)"));
  Result<std::string> json_text = RenderOptimizeReport(input, ReportFormat::kJson, RenderOptions{});
  ASSERT_TRUE(json_text.ok());
  nlohmann::json json = nlohmann::json::parse(*json_text);
  EXPECT_DOUBLE_EQ(json["best_speedup_against"]["eager"]["value"].get<double>(), 3.0);
  EXPECT_EQ(json["pytorch_baselines"]["gpu"], "NVIDIA H200");
  input.pytorch_baselines.reset();
  Result<std::string> without = RenderOptimizeReport(input, ReportFormat::kTerminal, RenderOptions{});
  ASSERT_TRUE(without.ok());
  EXPECT_THAT(*without, HasSubstr("(22.50× faster than the reference)"));
}

}  // namespace
}  // namespace kopt
