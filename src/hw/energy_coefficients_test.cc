#include "hw/energy_coefficients.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace kopt {
namespace {

const std::string kTable = std::string(KOPT_FIXTURE_DIR) + "/energy/test-gpu.energy.toml";

TEST(EnergyCoefficientsTest, EveryTermHasANameAUnitAndATitleThatRoundTrip) {
  for (EnergyTerm term : AllEnergyTerms()) {
    EXPECT_EQ(ParseEnergyTerm(EnergyTermName(term)), term);
    EXPECT_FALSE(EnergyTermUnit(term).empty());
    EXPECT_FALSE(EnergyTermTitle(term).empty());
  }
  EXPECT_EQ(ParseEnergyTerm("furlongs"), std::nullopt);
}

TEST(EnergyCoefficientsTest, FormatThenParseGivesTheSameTable) {
  EnergyCoefficients table;
  table.gpu_name = "NVIDIA H200";
  table.measured_at = "2026-12-01T17:00:00Z";
  table.tool = "kopt calibrate --energy";
  table.fit = {18, 4.25, 9.5};
  for (EnergyTerm term : AllEnergyTerms())
    table.coefficients.push_back({term, 1e-12 * (1 + static_cast<int>(term)), "fit \"quoted\""});
  auto parsed = ParseEnergyCoefficients(FormatEnergyCoefficients(table), "x.energy.toml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->gpu_name, "NVIDIA H200");
  EXPECT_EQ(parsed->fit.kernels, 18);
  EXPECT_DOUBLE_EQ(parsed->fit.mape_percent, 4.25);
  ASSERT_EQ(parsed->coefficients.size(), static_cast<size_t>(kEnergyTermCount));
  for (EnergyTerm term : AllEnergyTerms()) {
    EXPECT_DOUBLE_EQ(parsed->JoulesPerUnit(term), table.JoulesPerUnit(term));
    EXPECT_EQ(parsed->Find(term)->source, "fit \"quoted\"");
  }
}

TEST(EnergyCoefficientsTest, ATermAbsentFromTheFileCountsZeroAndSaysWhy) {
  auto table = ParseEnergyCoefficients(
      "format = \"kopt.energy_model\"\nversion = 1\ngpu = \"G\"\n[[coefficient]]\nterm = \"dram_bytes\"\n"
      "joules_per_unit = 1e-11\n",
      "g.energy.toml");
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_DOUBLE_EQ(table->JoulesPerUnit(EnergyTerm::kDramBytes), 1e-11);
  EXPECT_EQ(table->JoulesPerUnit(EnergyTerm::kXuPipe), 0);
  EXPECT_EQ(table->Find(EnergyTerm::kXuPipe)->source, "absent from g.energy.toml: 0");
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto table = ParseEnergyCoefficients(text, "bad.energy.toml");
  ASSERT_FALSE(table.ok()) << text;
  EXPECT_EQ(table.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(table.status().message().find("bad.energy.toml"), std::string::npos) << table.status().message();
  EXPECT_NE(table.status().message().find(fragment), std::string::npos) << table.status().message();
}

TEST(EnergyCoefficientsTest, BadFilesNameTheFileTheCoefficientAndTheField) {
  const std::string head = "format = \"kopt.energy_model\"\nversion = 1\ngpu = \"G\"\n";
  ExpectError("format = \"kopt.ceilings\"\n", "expected format = \"kopt.energy_model\"");
  ExpectError("format = \"kopt.energy_model\"\nversion = 2\ngpu = \"G\"\n", "\"version\" must be 1");
  ExpectError("format = \"kopt.energy_model\"\nversion = 1\n", "\"gpu\"");
  ExpectError(head, "no [[coefficient]]");
  ExpectError(head + "[[coefficient]]\nterm = \"dram\"\njoules_per_unit = 1.0\n",
              "coefficient 1: field \"term\"");
  ExpectError(head + "[[coefficient]]\nterm = \"dram_bytes\"\njoules_per_unit = -1.0\n",
              "coefficient 1: field \"joules_per_unit\" must be a number >= 0");
  ExpectError(head +
                  "[[coefficient]]\nterm = \"dram_bytes\"\njoules_per_unit = 1.0\n[[coefficient]]\nterm = "
                  "\"dram_bytes\"\njoules_per_unit = 2.0\n",
              "coefficient 2: term \"dram_bytes\" is listed twice");
  ExpectError("format = [", "bad.energy.toml:1");
}

TEST(EnergyCoefficientsTest, FileNameFollowsTheGpuName) {
  EXPECT_EQ(EnergyCoefficientsFileName("NVIDIA H200"), "nvidia-h200.energy.toml");
}

TEST(EnergyCoefficientsTest, FindsAFileADirectoryAndRefusesAnotherGpu) {
  std::vector<std::string> notes;
  auto file = FindEnergyCoefficients(kTable, "test gpu", notes);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->path, kTable);
  EXPECT_DOUBLE_EQ(file->JoulesPerUnit(EnergyTerm::kActiveSeconds), 100.0);
  auto directory = FindEnergyCoefficients(std::string(KOPT_FIXTURE_DIR) + "/energy", "Test GPU", notes);
  ASSERT_TRUE(directory.ok()) << directory.status().message();
  auto other = FindEnergyCoefficients(kTable, "NVIDIA H100", notes);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(other.status().message().find("\"Test GPU\""), std::string::npos);
  auto nowhere = FindEnergyCoefficients("/nonexistent/energy", "Test GPU", notes);
  EXPECT_EQ(nowhere.status().kind(), ErrorKind::kNotFound);
}

TEST(EnergyCoefficientsTest, EveryShippedTableParsesAndCoversEveryTerm) {
  namespace fs = std::filesystem;
  size_t files = 0;
  std::error_code error;
  for (const auto& entry :
       fs::directory_iterator(std::string(KOPT_FIXTURE_DIR) + "/../../data/energy", error)) {
    if (entry.path().filename().string().ends_with(".energy.toml")) ++files;
  }
  EXPECT_EQ(BuiltinEnergyCoefficients().size(), files);
  for (const EnergyCoefficients& table : BuiltinEnergyCoefficients()) {
    EXPECT_EQ(table.coefficients.size(), static_cast<size_t>(kEnergyTermCount)) << table.path;
    EXPECT_EQ(table.path.rfind("built-in: ", 0), 0u);
    EXPECT_GT(table.fit.kernels, 0) << table.path;
  }
}

}  // namespace
}  // namespace kopt
