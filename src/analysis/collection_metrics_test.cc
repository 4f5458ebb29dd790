// The targeted collection loses nothing the ranking depends on: every metric a
// tool declares is in the list, and on every captured H200 fixture of both
// example sets the diagnosis of the raw page cut down to the list (and without
// the source page, which the targeted collection does not record) is the
// diagnosis of the full bundle: the same stage-1 class, the same findings in the
// same order, the same severities and gains, except the gains of the tools that
// refine their estimate with the source page (within 0.1 of kernel time).
#include "analysis/collection_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "analysis/tool.h"
#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(CollectionMetrics, SortedWithoutDuplicates) {
  auto metrics = TargetedCollectionMetrics();
  ASSERT_GT(metrics.size(), 100u);
  EXPECT_TRUE(std::adjacent_find(metrics.begin(), metrics.end(), std::greater_equal<>()) == metrics.end());
  auto sections = TargetedCollectionSections();
  EXPECT_NE(std::find(sections.begin(), sections.end(), "LaunchStats"), sections.end());
  // No report, so no source page: its section would only cost passes.
  EXPECT_EQ(std::find(sections.begin(), sections.end(), "SourceCounters"), sections.end());
}

TEST(CollectionMetrics, TheSectionsMetricsCountAsCollected) {
  EXPECT_TRUE(IsTargetedCollectionMetric("gpu__time_duration.sum"));
  EXPECT_TRUE(IsTargetedCollectionMetric("launch__grid_size"));
  EXPECT_TRUE(IsTargetedCollectionMetric("device__attribute_display_name"));
  EXPECT_FALSE(IsTargetedCollectionMetric("nvlink__bytes.sum"));
  Profile profile = LoadFixtureFrom("h200", "uncoalesced_loads");
  ASSERT_GT(profile.launches.at(0).schema->size(), 1000);
  KeepOnlyTargetedCollectionMetrics(profile);
  int kept = 0;
  const KernelLaunch& launch = profile.launches.at(0);
  for (int column = 0; column < launch.schema->size(); ++column)
    kept += launch.Metric(launch.schema->Name(column)).has_value();
  EXPECT_LT(kept, 450);  // of the full set's 2,200 columns
  EXPECT_TRUE(launch.Metric("gpu__time_duration.sum").has_value());
  EXPECT_TRUE(launch.Text("device__attribute_display_name").has_value());
}

TEST(CollectionMetrics, EveryMetricAToolDeclaresIsCollected) {
  for (const ToolDefinition& tool : ToolRegistry()) {
    for (const RequiredInput& input : tool.required) {
      if (input.source != InputSource::kNcuMetric) continue;
      EXPECT_TRUE(IsTargetedCollectionMetric(input.name)) << tool.id << " reads " << input.name;
    }
  }
}

// The finding ids of tools that refine their estimate with the source page (an optional input the
// targeted collection does not record): their gains may differ, their rank may not.
std::set<std::string> FindingsRefinedBySourcePage() {
  std::set<std::string> ids;
  for (const ToolDefinition& tool : ToolRegistry()) {
    bool reads = std::any_of(tool.required.begin(), tool.required.end(), [](const RequiredInput& input) {
      return input.source == InputSource::kSourcePage;
    });
    if (!reads) continue;
    for (const std::string& id : FindingIdsOf(tool)) ids.insert(id);
  }
  return ids;
}

void ExpectSameDiagnosis(const Diagnosis& full, const Diagnosis& targeted, const std::string& name) {
  static const std::set<std::string> refined = FindingsRefinedBySourcePage();
  ASSERT_EQ(full.kernels.size(), targeted.kernels.size()) << name;
  for (size_t k = 0; k < full.kernels.size(); ++k) {
    const KernelDiagnosis& a = full.kernels[k];
    const KernelDiagnosis& b = targeted.kernels[k];
    std::string where = name + " / " + a.function_name;
    EXPECT_EQ(a.roofline.bottleneck, b.roofline.bottleneck) << where;
    ASSERT_EQ(a.findings.size(), b.findings.size()) << where << "\nfull:\n"
                                                    << DescribeFindings(a) << "targeted:\n"
                                                    << DescribeFindings(b);
    for (size_t f = 0; f < a.findings.size(); ++f) {
      EXPECT_EQ(a.findings[f].tool, b.findings[f].tool) << where;
      if (refined.count(a.findings[f].tool)) {
        EXPECT_NEAR(a.findings[f].estimated_gain, b.findings[f].estimated_gain, 0.1)
            << where << " " << a.findings[f].tool;
        continue;
      }
      EXPECT_EQ(a.findings[f].severity, b.findings[f].severity) << where << " " << a.findings[f].tool;
      EXPECT_NEAR(a.findings[f].estimated_gain, b.findings[f].estimated_gain, 1e-9)
          << where << " " << a.findings[f].tool;
    }
  }
}

TEST(CollectionMetrics, BothExampleSetsDiagnoseTheSameFromTheTargetedMetrics) {
  int compared = 0;
  for (const char* set : {"h200", "h200_blind"}) {
    std::filesystem::path directory = std::filesystem::path(KOPT_FIXTURE_DIR) / set;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
      if (!std::filesystem::is_regular_file(entry.path() / "raw.csv")) continue;
      std::string kernel = entry.path().filename().string();
      DiagnoseOptions options;
      if (std::string(set) == "h200_blind") options.ceilings = &H200Ceilings();
      Profile profile = LoadFixtureFrom(set, kernel);
      Diagnosis full = Diagnose(profile, options);
      Profile cut = profile;
      KeepOnlyTargetedCollectionMetrics(cut);
      Diagnosis targeted = Diagnose(cut, options);
      ExpectSameDiagnosis(full, targeted, std::string(set) + "/" + kernel);
      ++compared;
    }
  }
  EXPECT_GE(compared, 40);  // 21 + 21 captured kernels
}

}  // namespace
}  // namespace kopt
