// Tests of the energy section in every explain format (report/energy_section.h
// and the five renderers), on a hand-made prediction.
#include "report/energy_section.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "report/render_test_samples.h"
#include "report/renderer.h"

namespace kopt {
namespace {

// 100 µJ per launch, 250 W on average: DRAM 60 µJ (3 MB), FMA pipe 25 µJ (50K issues), busy time 15 µJ (400
// ns).
KernelEnergy SampleEnergy(const std::string& source = "tests/fixtures/energy/test-h200.energy.toml") {
  KernelEnergy energy;
  energy.gpu_name = "NVIDIA H200";
  EnergyPrediction& prediction = energy.prediction;
  prediction.dynamic_joules = 100e-6;
  prediction.average_dynamic_watts = 250;
  prediction.coefficients_source = source;
  for (EnergyTerm term : AllEnergyTerms()) prediction.terms.push_back({term, 0, 0, 0});
  auto set = [&](EnergyTerm term, double count, double joules) {
    prediction.terms[static_cast<size_t>(term)] = {term, count, joules, joules / prediction.dynamic_joules};
  };
  set(EnergyTerm::kDramBytes, 3e6, 60e-6);
  set(EnergyTerm::kFmaPipe, 5e4, 25e-6);
  set(EnergyTerm::kActiveSeconds, 4e-7, 15e-6);
  return energy;
}

EnergySaving SampleSaving(const std::string& method = "the excess share 75% of the load sectors") {
  EnergySaving saving;
  saving.joules = 45e-6;
  saving.fraction = 0.45;
  saving.method = method;
  saving.changes = {{EnergyTerm::kDramBytes, 3e6, 0.75e6}};
  return saving;
}

Diagnosis SampleWithEnergy() {
  Diagnosis diagnosis = render_test::FindingSample();
  KernelDiagnosis& kernel = diagnosis.kernels.front();
  kernel.energy = SampleEnergy();
  kernel.findings.front().energy_saving = SampleSaving();
  return diagnosis;
}

std::string Render(ReportFormat format, const Diagnosis& diagnosis) {
  return MakeRenderer(format, RenderOptions{})->Render(diagnosis);
}

TEST(EnergySection, RowsMostFirstWithUnitsAndShares) {
  std::vector<EnergyTermRow> rows = EnergyTermRows(SampleEnergy());
  ASSERT_EQ(rows.size(), 3u);  // terms without energy are left out
  EXPECT_EQ(rows[0].term, "dram_bytes");
  EXPECT_EQ(rows[0].count, "3 MB");
  EXPECT_EQ(rows[0].joules, "60 µJ");
  EXPECT_EQ(rows[0].share, "60.0%");
  EXPECT_EQ(rows[1].term, "fma_pipe");
  EXPECT_EQ(rows[1].count, "50K issue");
  EXPECT_EQ(rows[2].term, "active_seconds");
  EXPECT_EQ(rows[2].count, "400 ns");
  // Folded after the first: "2 other terms"; a single leftover term is shown, not folded.
  std::vector<EnergyTermRow> folded = EnergyTermRows(SampleEnergy(), 1);
  ASSERT_EQ(folded.size(), 2u);
  EXPECT_EQ(folded[1].title, "2 other terms");
  EXPECT_EQ(folded[1].joules, "40 µJ");
  EXPECT_EQ(folded[1].share, "40.0%");
  EXPECT_EQ(EnergyTermRows(SampleEnergy(), 2).size(), 3u);  // one left: shown, not folded
}

TEST(EnergySection, HeadlineSavingAndChanges) {
  EXPECT_EQ(EnergyHeadline(SampleEnergy()),
            "predicted dynamic energy 100 µJ per launch · average dynamic power 250 W");
  KernelEnergy partial = SampleEnergy();
  partial.prediction.missing_metrics = {"lts__t_sectors.sum"};
  EXPECT_TRUE(Contains(EnergyHeadline(partial), "(a lower bound)"));
  EXPECT_EQ(EnergySavingText(SampleSaving()),
            "saves 45 µJ per launch (45.0% of the predicted dynamic energy)");
  EXPECT_EQ(EnergyChangesText(SampleSaving()), "DRAM traffic 3 MB → 750 KB");
}

TEST(EnergySection, TerminalMarkdownHtmlAndFeedbackShowTheSectionAndTheSaving) {
  Diagnosis diagnosis = SampleWithEnergy();
  for (ReportFormat format : {ReportFormat::kTerminal, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    std::string text = Render(format, diagnosis);
    EXPECT_TRUE(Contains(text, "predicted dynamic energy 100 µJ per launch")) << text;
    EXPECT_TRUE(Contains(text, "test-h200.energy.toml")) << text;
    EXPECT_TRUE(Contains(text, "60 µJ")) << text;
    EXPECT_TRUE(Contains(text, "saves 45 µJ per launch (45.0% of the predicted dynamic energy)")) << text;
    EXPECT_TRUE(Contains(text, "3 MB → 750 KB")) << text;
  }
  std::string feedback = Render(ReportFormat::kFeedback, diagnosis);
  EXPECT_TRUE(Contains(feedback, "Energy (model): predicted dynamic energy 100 µJ per launch"));
  EXPECT_TRUE(Contains(feedback, "goes to DRAM traffic 60.0%"));
  EXPECT_TRUE(Contains(feedback,
                       "   Energy: saves 45 µJ per launch (45.0% of the predicted dynamic energy) — "
                       "DRAM traffic 3 MB → 750 KB"))
      << feedback;
}

TEST(EnergySection, AbsentWithoutATable) {
  Diagnosis diagnosis = render_test::FindingSample();
  for (ReportFormat format :
       {ReportFormat::kTerminal, ReportFormat::kMarkdown, ReportFormat::kHtml, ReportFormat::kFeedback}) {
    std::string text = Render(format, diagnosis);
    EXPECT_FALSE(Contains(text, "nergy")) << text;
  }
  nlohmann::json json = nlohmann::json::parse(Render(ReportFormat::kJson, diagnosis));
  EXPECT_TRUE(json["kernels"][0]["energy"].is_null());
  EXPECT_TRUE(json["kernels"][0]["findings"][0]["energy_saving"].is_null());
}

TEST(EnergySection, JsonEveryNumberWithItsUnit) {
  nlohmann::json json = nlohmann::json::parse(Render(ReportFormat::kJson, SampleWithEnergy()));
  EXPECT_EQ(json["schema_version"], "1.7");
  const nlohmann::json& energy = json["kernels"][0]["energy"];
  EXPECT_EQ(energy["coefficients"]["gpu"], "NVIDIA H200");
  EXPECT_EQ(energy["skipped"], false);
  EXPECT_DOUBLE_EQ(energy["dynamic_energy"]["value"].get<double>(), 100e-6);
  EXPECT_EQ(energy["dynamic_energy"]["unit"], "J");
  EXPECT_EQ(energy["average_dynamic_power"]["unit"], "W");
  ASSERT_EQ(energy["terms"].size(), static_cast<size_t>(kEnergyTermCount));
  EXPECT_EQ(energy["terms"][0]["term"], "dram_bytes");
  EXPECT_EQ(energy["terms"][0]["count"]["unit"], "byte");
  EXPECT_EQ(energy["terms"][0]["energy"]["unit"], "J");
  EXPECT_EQ(energy["terms"][0]["share"]["unit"], "fraction");
  EXPECT_EQ(energy["terms"][static_cast<size_t>(EnergyTerm::kFmaPipe)]["count"]["unit"], "issue");
  const nlohmann::json& saving = json["kernels"][0]["findings"][0]["energy_saving"];
  EXPECT_DOUBLE_EQ(saving["energy"]["value"].get<double>(), 45e-6);
  EXPECT_EQ(saving["share"]["unit"], "fraction");
  EXPECT_EQ(saving["changes"][0]["term"], "dram_bytes");
  EXPECT_DOUBLE_EQ(saving["changes"][0]["after"]["value"].get<double>(), 0.75e6);
  EXPECT_EQ(saving["changes"][0]["after"]["unit"], "byte");
  EXPECT_TRUE(json["kernels"][0]["findings"][1]["energy_saving"].is_null());
}

TEST(EnergySection, HtmlEscapesTheTableSourceAndTheMethod) {
  Diagnosis diagnosis = render_test::FindingSample();
  diagnosis.kernels.front().energy = SampleEnergy(render_test::kHostileName);
  diagnosis.kernels.front().energy->notes = {render_test::kHostileName};
  diagnosis.kernels.front().findings.front().energy_saving = SampleSaving(render_test::kHostileName);
  std::string html = Render(ReportFormat::kHtml, diagnosis);
  EXPECT_FALSE(Contains(html, "<script>")) << html;
  EXPECT_TRUE(Contains(html, "&lt;script&gt;"));
  std::string markdown = Render(ReportFormat::kMarkdown, diagnosis);
  EXPECT_FALSE(Contains(markdown, "<script>"));
}

TEST(EnergySection, SkippedPredictionSaysWhy) {
  Diagnosis diagnosis = render_test::FindingSample();
  KernelEnergy energy;
  energy.gpu_name = "NVIDIA H200";
  energy.skipped = true;
  energy.notes = {"No energy prediction: the profile has none of the 20 metrics the energy model reads."};
  diagnosis.kernels.front().energy = energy;
  std::string terminal = Render(ReportFormat::kTerminal, diagnosis);
  EXPECT_TRUE(Contains(terminal, "no prediction"));
  EXPECT_TRUE(Contains(terminal, "none of the 20 metrics"));
  nlohmann::json json = nlohmann::json::parse(Render(ReportFormat::kJson, diagnosis));
  EXPECT_TRUE(json["kernels"][0]["energy"]["dynamic_energy"].is_null());
  EXPECT_TRUE(Contains(Render(ReportFormat::kFeedback, diagnosis), "Energy (model): not predicted"));
}

}  // namespace
}  // namespace kopt
