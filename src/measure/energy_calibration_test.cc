#include "measure/energy_calibration.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <tuple>

#include "core/file_io.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

TEST(EnergyCalibrationTest, EveryProbeHasItsOwnNumberAndATaskTheHarnessReads) {
  std::set<std::tuple<int, long long, int>> shapes;  // a probe kernel may serve twice at other sizes
  std::set<std::string> names;
  fs::path root = fs::temp_directory_path() / ("kopt-energy-probes-" + std::to_string(::getpid()));
  for (const EnergyProbe& probe : EnergyProbes()) {
    EXPECT_TRUE(shapes.insert({probe.number, probe.n, probe.iterations}).second) << probe.name;
    EXPECT_TRUE(names.insert(probe.name).second) << probe.name;
    EXPECT_GT(probe.n, 0);
    EXPECT_GT(probe.iterations, 0);
    std::string source = EnergyProbeSource(probe);
    EXPECT_EQ(source.rfind("#define KOPT_ENERGY_PROBE " + std::to_string(probe.number) + "\n", 0), 0u);
    std::string branch = "if KOPT_ENERGY_PROBE == " + std::to_string(probe.number) + "\n";
    EXPECT_NE(source.find(branch), std::string::npos)
        << probe.name << ": energy_probes.cu has no branch for it";
    std::string directory = (root / probe.name).string();
    ASSERT_TRUE(WriteEnergyProbeTask(probe, directory).ok());
    auto task = LoadTask(directory);
    ASSERT_TRUE(task.ok()) << task.status().message();
    EXPECT_EQ(task->name, "probe_" + probe.name);
    EXPECT_EQ(task->entry, "energy_probe");
    EXPECT_EQ(task->reference_source, source);
  }
  // The probes exercise every term but the ones only a mixed kernel reaches.
  EXPECT_GE(EnergyProbes().size(), 15u);
  fs::remove_all(root);
}

TEST(EnergyCalibrationTest, SamplesRoundTripThroughJson) {
  EnergySample sample;
  sample.name = "probe/fp64_fma";
  sample.measured_dynamic_joules = 0.125;
  sample.measured_dynamic_joules_stdev = 0.002;
  sample.seconds_per_launch = 0.001;
  sample.counts[EnergyTerm::kFp64Pipe] = 3.5e9;
  sample.counts[EnergyTerm::kActiveSeconds] = 0.001;
  nlohmann::json json = EnergySamplesToJson({sample}, "NVIDIA H200");
  EXPECT_EQ(json["schema"], "kopt.energy_samples/1");
  EXPECT_EQ(json["gpu"], "NVIDIA H200");
  auto back = EnergySamplesFromJson(json, "s.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].name, "probe/fp64_fma");
  EXPECT_DOUBLE_EQ((*back)[0].measured_dynamic_joules, 0.125);
  EXPECT_DOUBLE_EQ((*back)[0].measured_dynamic_joules_stdev, 0.002);
  EXPECT_DOUBLE_EQ((*back)[0].counts[EnergyTerm::kFp64Pipe], 3.5e9);
}

TEST(EnergyCalibrationTest, BadSampleFilesNameTheField) {
  auto expect = [](nlohmann::json json, const std::string& fragment) {
    auto parsed = EnergySamplesFromJson(json, "s.json");
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("s.json: field \"" + fragment), std::string::npos)
        << parsed.status().message();
  };
  expect(nlohmann::json::object(), "schema");
  expect({{"schema", "kopt.energy_samples/1"}}, "samples");
  nlohmann::json good = {{"schema", "kopt.energy_samples/1"},
                         {"samples",
                          {{{"name", "a"},
                            {"measured_dynamic_joules", 1.0},
                            {"seconds_per_launch", 0.1},
                            {"counts", {{"dram_bytes", 5.0}}}}}}};
  ASSERT_TRUE(EnergySamplesFromJson(good, "s.json").ok());
  nlohmann::json bad_term = good;
  bad_term["samples"][0]["counts"] = {{"dram", 5.0}};
  expect(bad_term, "samples[0].counts.dram");
  nlohmann::json bad_number = good;
  bad_number["samples"][0]["seconds_per_launch"] = "fast";
  expect(bad_number, "samples[0].seconds_per_launch");
  nlohmann::json bad_stdev = good;
  bad_stdev["samples"][0]["measured_dynamic_joules_stdev"] = -1.0;
  expect(bad_stdev, "samples[0].measured_dynamic_joules_stdev");
}

TEST(EnergyCalibrationTest, WithoutAGpuItSaysCalibrationNeedsOne) {
  EnergyCalibrationSettings settings;
  settings.work_directory = fs::temp_directory_path().string();
  EnergyCalibrationEnvironment environment;
  environment.query_gpus = []() -> Result<std::vector<GpuSpec>> { return std::vector<GpuSpec>{}; };
  auto result = RunEnergyCalibration(settings, environment);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(result.status().message().find("needs a GPU"), std::string::npos);
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

Result<std::vector<EnergySample>> CommittedSamples(const std::string& name) {
  std::string path = std::string(KOPT_FIXTURE_DIR) + "/../../bench/results_h200/energy_model/" + name;
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return EnergySamplesFromJson(nlohmann::json::parse(text), path);
}

// The H200 capture: refitting its samples gives the shipped table, and the held-out error stays
// what bench/results_h200/energy_model/README.md reports.
TEST(EnergyCalibrationTest, TheShippedH200TableIsTheFitOfItsCommittedSamples) {
  auto fit = CommittedSamples("fit.samples.json");
  auto held = CommittedSamples("held_out.samples.json");
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  ASSERT_TRUE(held.ok()) << held.status().message();
  auto refit = FitEnergyCoefficients(*fit, {"NVIDIA H200", ""});
  ASSERT_TRUE(refit.ok()) << refit.status().message();
  std::vector<std::string> notes;
  const EnergyCoefficients* shipped = nullptr;
  for (const EnergyCoefficients& table : BuiltinEnergyCoefficients())
    if (table.gpu_name == "NVIDIA H200") shipped = &table;
  ASSERT_NE(shipped, nullptr);
  for (EnergyTerm term : AllEnergyTerms()) {
    EXPECT_NEAR(refit->JoulesPerUnit(term), shipped->JoulesPerUnit(term),
                1e-6 * shipped->JoulesPerUnit(term) + 1e-30)
        << EnergyTermName(term);
  }
  std::vector<double> predicted, measured;
  for (const EnergySample& sample : *held) {
    predicted.push_back(PredictEnergy(sample.counts, *shipped).dynamic_joules);
    measured.push_back(sample.measured_dynamic_joules);
  }
  PredictionAccuracy accuracy = CompareWithMeasured(predicted, measured);
  EXPECT_EQ(accuracy.kernels, 35);
  EXPECT_LT(accuracy.mape_percent, 10.0);
}

}  // namespace
}  // namespace kopt
