#include "analysis/energy_model.h"

#include <gtest/gtest.h>

#include <random>

#include "core/file_io.h"
#include "profile/ncu_csv.h"

namespace kopt {
namespace {

EnergyCoefficients Known() {
  EnergyCoefficients table;
  table.gpu_name = "Test GPU";
  table.path = "test";
  for (EnergyTerm term : AllEnergyTerms()) table.coefficients.push_back({term, 0.0, "test"});
  table.coefficients[static_cast<size_t>(EnergyTerm::kDramBytes)].joules_per_unit = 2e-11;
  table.coefficients[static_cast<size_t>(EnergyTerm::kL2Bytes)].joules_per_unit = 5e-12;
  table.coefficients[static_cast<size_t>(EnergyTerm::kFmaPipe)].joules_per_unit = 3e-10;
  table.coefficients[static_cast<size_t>(EnergyTerm::kFp64Pipe)].joules_per_unit = 1.2e-9;
  table.coefficients[static_cast<size_t>(EnergyTerm::kActiveSeconds)].joules_per_unit = 150.0;
  return table;
}

TEST(EnergyModelTest, PredictionIsTheSumOfCountsTimesCoefficientsWithShares) {
  EnergyCounts counts;
  counts[EnergyTerm::kDramBytes] = 1e9;       // 0.02 J
  counts[EnergyTerm::kFp64Pipe] = 1e7;        // 0.012 J
  counts[EnergyTerm::kActiveSeconds] = 1e-4;  // 0.015 J
  counts[EnergyTerm::kXuPipe] = 1e9;          // coefficient 0
  EnergyPrediction prediction = PredictEnergy(counts, Known());
  EXPECT_NEAR(prediction.dynamic_joules, 0.047, 1e-12);
  ASSERT_EQ(prediction.terms.size(), static_cast<size_t>(kEnergyTermCount));
  EXPECT_NEAR(prediction.terms[static_cast<size_t>(EnergyTerm::kDramBytes)].share, 0.02 / 0.047, 1e-12);
  EXPECT_EQ(prediction.terms[static_cast<size_t>(EnergyTerm::kXuPipe)].joules, 0);
  EXPECT_NEAR(prediction.average_dynamic_watts, 470.0, 1e-9);
  EXPECT_EQ(prediction.coefficients_source, "test");
}

TEST(EnergyModelTest, CountsFromAnH200ProfileReadEveryTerm) {
  std::string path = std::string(KOPT_FIXTURE_DIR) + "/h200_blind/fp64_exp_decay/raw.csv";
  auto text = ReadWholeFile(path);
  ASSERT_TRUE(text.ok());
  auto launches = ParseNcuRawCsv(*text, path);
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  ASSERT_FALSE(launches->empty());
  const KernelLaunch& launch = launches->front();
  EnergyCounts counts = CountEnergyActivity(launch);
  EXPECT_TRUE(counts.missing_metrics.empty()) << counts.missing_metrics.front();
  EXPECT_DOUBLE_EQ(counts[EnergyTerm::kDramBytes],
                   *launch.Metric("dram__bytes_read.sum") + *launch.Metric("dram__bytes_write.sum"));
  EXPECT_DOUBLE_EQ(counts[EnergyTerm::kL2Bytes], *launch.Metric("lts__t_sectors.sum") * 32);
  EXPECT_NEAR(counts[EnergyTerm::kActiveSeconds], 294752e-9, 1e-12);
  // 70.6 % of the FP64 pipe's peak over the active cycles.
  EXPECT_NEAR(counts[EnergyTerm::kFp64Pipe], 0.706 * *launch.Metric("sm__cycles_active.sum"), 1);
  EXPECT_GT(counts[EnergyTerm::kFp64Pipe], counts[EnergyTerm::kFmaPipe]);
  // Two launches of it count twice.
  EnergyCounts twice = CountEnergyActivity(std::vector<KernelLaunch>{launch, launch});
  EXPECT_DOUBLE_EQ(twice[EnergyTerm::kDramBytes], 2 * counts[EnergyTerm::kDramBytes]);
  EXPECT_EQ(counts[EnergyTerm::kLaunches], 1);
  EXPECT_EQ(twice[EnergyTerm::kLaunches], 2);
}

TEST(EnergyModelTest, AMissingMetricCountsZeroAndIsNamed) {
  auto schema = std::make_shared<MetricSchema>();
  schema->Add("dram__bytes_read.sum", "byte");
  KernelLaunch launch;
  launch.schema = schema;
  launch.values = {1000};
  EnergyCounts counts = CountEnergyActivity(launch);
  EXPECT_EQ(counts[EnergyTerm::kDramBytes], 1000);
  EXPECT_EQ(counts[EnergyTerm::kFmaPipe], 0);
  auto has = [&](std::string_view name) {
    return std::find(counts.missing_metrics.begin(), counts.missing_metrics.end(), name) !=
           counts.missing_metrics.end();
  };
  EXPECT_TRUE(has("gpu__time_duration.sum"));
  EXPECT_TRUE(has("sm__cycles_active.sum"));
  EXPECT_FALSE(has("dram__bytes_read.sum"));
  EXPECT_FALSE(has("dram__bytes_write.sum"));  // one of the term's metrics is enough
}

// Samples whose energy the known coefficients give exactly.
std::vector<EnergySample> SyntheticSamples(int count, double noise) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> jitter(0.0, noise);
  EnergyCoefficients known = Known();
  std::vector<EnergySample> samples;
  for (int i = 0; i < count; ++i) {
    EnergySample sample;
    sample.name = "k" + std::to_string(i);
    sample.counts[EnergyTerm::kDramBytes] = 1e9 * unit(random);
    sample.counts[EnergyTerm::kL2Bytes] = 2e9 * unit(random);
    sample.counts[EnergyTerm::kFmaPipe] = 1e8 * unit(random);
    sample.counts[EnergyTerm::kFp64Pipe] = (i % 3 == 0) ? 1e7 * unit(random) : 0;
    sample.counts[EnergyTerm::kActiveSeconds] = 1e-3 * (0.1 + unit(random));
    sample.measured_dynamic_joules =
        PredictEnergy(sample.counts, known).dynamic_joules * (1 + jitter(random));
    sample.seconds_per_launch = sample.counts[EnergyTerm::kActiveSeconds];
    samples.push_back(sample);
  }
  return samples;
}

TEST(EnergyModelTest, FitRecoversKnownCoefficientsAndZeroesUnexercisedTerms) {
  auto fitted = FitEnergyCoefficients(SyntheticSamples(20, 0.0), {"Test GPU", "now"});
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EnergyCoefficients known = Known();
  for (EnergyTerm term : {EnergyTerm::kDramBytes, EnergyTerm::kL2Bytes, EnergyTerm::kFmaPipe,
                          EnergyTerm::kFp64Pipe, EnergyTerm::kActiveSeconds}) {
    EXPECT_NEAR(fitted->JoulesPerUnit(term), known.JoulesPerUnit(term), 1e-6 * known.JoulesPerUnit(term))
        << EnergyTermName(term);
    EXPECT_NE(fitted->Find(term)->source.find("non-negative fit over 20 calibration kernels"),
              std::string::npos);
  }
  EXPECT_EQ(fitted->JoulesPerUnit(EnergyTerm::kXuPipe), 0);
  EXPECT_EQ(fitted->Find(EnergyTerm::kXuPipe)->source, "not exercised by the calibration kernels: 0");
  EXPECT_EQ(fitted->fit.kernels, 20);
  EXPECT_LT(fitted->fit.mape_percent, 1e-6);
  EXPECT_EQ(fitted->gpu_name, "Test GPU");
}

TEST(EnergyModelTest, FitNeverGivesANegativeCoefficient) {
  // The L2 column explains nothing (its true coefficient is 0) and noise would pull least squares below 0.
  std::vector<EnergySample> samples = SyntheticSamples(30, 0.03);
  for (EnergySample& sample : samples) {
    double l2 = sample.counts[EnergyTerm::kL2Bytes] * 5e-12;
    sample.measured_dynamic_joules -= l2;
  }
  auto fitted = FitEnergyCoefficients(samples, {"Test GPU", "now"});
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  for (const EnergyCoefficient& coefficient : fitted->coefficients) EXPECT_GE(coefficient.joules_per_unit, 0);
  EXPECT_LT(fitted->fit.mape_percent, 10);
}

TEST(EnergyModelTest, FitRefusesTooFewKernelsAndANonPositiveMeasurement) {
  auto few = FitEnergyCoefficients(SyntheticSamples(4, 0.0), {"G", "now"});
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.status().message().find("4 kernels for 5 exercised terms"), std::string::npos);
  std::vector<EnergySample> samples = SyntheticSamples(10, 0.0);
  samples[3].measured_dynamic_joules = 0;
  auto zero = FitEnergyCoefficients(samples, {"G", "now"});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("kernel \"k3\""), std::string::npos);
}

TEST(EnergyModelTest, BaselineIsTheMeanDynamicPower) {
  std::vector<EnergySample> samples(2);
  samples[0].measured_dynamic_joules = 0.1;
  samples[0].seconds_per_launch = 0.001;  // 100 W
  samples[1].measured_dynamic_joules = 0.3;
  samples[1].seconds_per_launch = 0.001;  // 300 W
  auto watts = AverageDynamicWatts(samples);
  ASSERT_TRUE(watts.ok());
  EXPECT_DOUBLE_EQ(*watts, 200.0);
  EXPECT_FALSE(AverageDynamicWatts({}).ok());
}

TEST(EnergyModelTest, AccuracyAndRankCorrelation) {
  PredictionAccuracy accuracy = CompareWithMeasured({1.1, 1.8, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(accuracy.kernels, 4);
  EXPECT_NEAR(accuracy.mape_percent, 5.0, 1e-9);  // (10 + 10 + 0 + 0) / 4
  EXPECT_NEAR(accuracy.max_error_percent, 10.0, 1e-9);
  ASSERT_TRUE(accuracy.spearman);
  EXPECT_NEAR(*accuracy.spearman, 1.0, 1e-12);
  EXPECT_NEAR(*SpearmanRankCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  // Ties take average ranks: ranks (1.5, 1.5, 3) against (1, 2, 3).
  EXPECT_NEAR(*SpearmanRankCorrelation({1, 1, 2}, {1, 2, 3}), 0.8660254037844386, 1e-12);
  EXPECT_EQ(SpearmanRankCorrelation({1, 2}, {1, 2}), std::nullopt);
  EXPECT_EQ(SpearmanRankCorrelation({1, 1, 1}, {1, 2, 3}), std::nullopt);
}

}  // namespace
}  // namespace kopt
