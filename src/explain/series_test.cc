#include "explain/series.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/fake_command_runner_test_util.h"
#include "report/comparison_renderer.h"

namespace kopt {
namespace {

const std::string kDiff = std::string(KOPT_FIXTURE_DIR) + "/h200_diff";

// The JSON report of a series over `target` swept by `parameter`.
nlohmann::json SeriesJson(const std::string& target, const std::string& parameter) {
  ExplainSettings settings;
  settings.profile.target = target;
  SeriesRequest series;
  series.sweep = parameter;
  FakeCommandRunner runner;
  Result<SweepAnalysis> sweep = ExplainSweep(settings, series, runner, nullptr);
  EXPECT_TRUE(sweep.ok()) << sweep.status().message();
  return sweep.ok() ? nlohmann::json::parse(RenderSweep(*sweep, ReportFormat::kJson)) : nlohmann::json();
}

TEST(ExplainSeriesTest, ExpandsDirectoriesAndGlobs) {
  auto directory = ExpandProfileTargets({kDiff + "/sweep_saxpy"});
  ASSERT_TRUE(directory.ok()) << directory.status().message();
  EXPECT_EQ(directory->size(), 32u);  // timing.txt is no profile
  auto glob = ExpandProfileTargets({kDiff + "/sweep_saxpy/n=4096_*.csv"});
  ASSERT_TRUE(glob.ok());
  EXPECT_EQ(glob->size(), 4u);
  EXPECT_FALSE(ExpandProfileTargets({kDiff + "/nothing_here"}).ok());
  EXPECT_FALSE(ExpandProfileTargets({kDiff + "/sweep_saxpy/*.none"}).ok());
}

TEST(ExplainSeriesTest, RequestsThatAreSeries) {
  ProfileRequest profile;
  SeriesRequest series;
  profile.target = kDiff + "/pairs/saxpy/before.csv";
  EXPECT_FALSE(IsSeriesRequest(profile, series));
  series.sweep = "n";
  EXPECT_TRUE(IsSeriesRequest(profile, series));
  series.sweep.clear();
  series.more_targets = {kDiff + "/pairs/saxpy/after.csv"};
  EXPECT_TRUE(IsSeriesRequest(profile, series));
  series.more_targets.clear();
  profile.target = kDiff + "/sweep_saxpy";
  EXPECT_TRUE(IsSeriesRequest(profile, series));
}

TEST(ExplainSeriesTest, ReadsTheSidecar) {
  auto sidecar = ReadSweepSidecar(kDiff + "/sweep_softmax_export/sweep.csv");
  ASSERT_TRUE(sidecar.ok()) << sidecar.status().message();
  EXPECT_EQ(sidecar->size(), 28u);
  EXPECT_EQ(sidecar->at("0").at("rows"), 128);
  auto path = std::filesystem::temp_directory_path() / "kopt_bad_sidecar.csv";
  std::ofstream(path) << "file,n\na.csv,twelve\n";
  auto bad = ReadSweepSidecar(path.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(":2: column \"n\": \"twelve\" is not a number"), std::string::npos)
      << bad.status().message();
  std::ofstream(path) << "n,block\n1,2\n";
  EXPECT_FALSE(ReadSweepSidecar(path.string()).ok());
  std::filesystem::remove(path);
}

TEST(ExplainSeriesTest, SaxpySweepOverSizesHasRegimesAndABestPoint) {
  nlohmann::json json = SeriesJson(kDiff + "/sweep_saxpy", "n");
  EXPECT_EQ(json["schema"], "kopt.sweep/1");
  ASSERT_EQ(json["series"].size(), 4u);  // one per block size
  for (const auto& series : json["series"]) {
    EXPECT_EQ(series["points"].size(), 8u);
    EXPECT_GE(series["regimes"].size(), 2u) << series["regimes"].dump();
    EXPECT_EQ(series["best"]["objective"], "speed of light");
  }
}

TEST(ExplainSeriesTest, MultiKernelExportWithSidecarSweepsBlockSizes) {
  nlohmann::json json = SeriesJson(kDiff + "/sweep_softmax_export/raw.csv", "block");
  ASSERT_EQ(json["series"].size(), 7u);  // one per row count
  EXPECT_EQ(json["series"][0]["points"].size(), 4u);
  EXPECT_EQ(json["series"][0]["best"]["objective"], "time");
}

TEST(ExplainSeriesTest, SeveralProfilesWithoutSweepAreVersions) {
  ExplainSettings settings;
  settings.profile.target = kDiff + "/sweep_saxpy/n=4096_*.csv";
  FakeCommandRunner runner;
  Result<VersionSeries> versions = ExplainVersions(settings, SeriesRequest{}, runner, nullptr);
  ASSERT_TRUE(versions.ok()) << versions.status().message();
  EXPECT_NE(RenderVersions(*versions, ReportFormat::kTerminal).find("4 versions ranked by time"),
            std::string::npos);
}

}  // namespace
}  // namespace kopt
