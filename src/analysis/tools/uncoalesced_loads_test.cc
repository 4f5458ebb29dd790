// Tests of the uncoalesced_loads tool (analysis/tools/uncoalesced_loads.cc) on the H200 fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/stalls.h"
#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

TEST(MemoryTools, BasicSetSkipsWithTheMissingMetricsListed) {
  KernelDiagnosis diagnosis = DiagnoseFixture("basic_set_uncoalesced_loads");
  const SkippedTool* skipped = nullptr;
  for (const SkippedTool& tool : diagnosis.skipped_tools) {
    if (tool.tool == "uncoalesced_loads") skipped = &tool;
  }
  ASSERT_NE(skipped, nullptr);
  EXPECT_NE(std::find(skipped->missing.begin(), skipped->missing.end(),
                      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            skipped->missing.end());
  EXPECT_NE(skipped->how_to_collect.find("--set full"), std::string::npos);
  for (const Finding& finding : diagnosis.findings) {
    EXPECT_NE(finding.tool, "uncoalesced_loads");
  }
}

TEST(MemoryTools, ThresholdOverrideSilencesTheTool) {
  DiagnoseOptions options;
  options.tools.threshold_overrides["uncoalesced_loads"]["min_excess_sector_share"] = 0.95;
  KernelDiagnosis diagnosis = DiagnoseFixture("uncoalesced_loads", options);
  EXPECT_EQ(FindFinding(diagnosis, "uncoalesced_loads"), nullptr);
}

// With a source page, locations are the load instructions with the most excess
// sectors, with their share of the stall samples.
TEST(MemoryTools, SourcePageLocationsRankByExcessSectors) {
  Profile profile = LoadFixture("uncoalesced_loads");
  ASSERT_FALSE(profile.launches.empty());
  const KernelLaunch& launch = profile.launches.front();
  SourcePage page;
  page.kernel_name = launch.kernel_name;
  SourcePageRow fma{0x1000, 0x40, "FFMA R5, R4, R4, R5", 25};
  SourcePageRow coalesced{0x1010, 0x50, "LDG.E R4, desc[UR4][R6.64]", 5};
  coalesced.l2_sectors_global_excessive = 0;
  SourcePageRow strided{0x1020, 0x60, "LDG.E R3, desc[UR4][R2.64]", 70};
  strided.l2_sectors_global_excessive = 1000;
  page.rows = {fma, coalesced, strided};

  RooflineAnalysis roofline = AnalyzeRoofline(launch, nullptr);
  std::vector<StallReason> stalls = ExtractStallReasons(launch);
  const ToolDefinition* tool = FindTool("uncoalesced_loads");
  ASSERT_NE(tool, nullptr);
  std::map<std::string, double> thresholds;
  for (const ThresholdDefinition& threshold : tool->thresholds)
    thresholds[threshold.name] = threshold.default_value;
  ToolContext context{launch, roofline, stalls, nullptr, nullptr, nullptr, &page, nullptr, &thresholds};
  auto finding = tool->analyze(context);
  ASSERT_TRUE(finding.has_value());
  ASSERT_EQ(finding->locations.size(), 2u);
  EXPECT_EQ(finding->locations[0].sass_offset, 0x60u);
  EXPECT_NEAR(finding->locations[0].stall_share, 0.7, 1e-9);
  EXPECT_EQ(finding->locations[1].sass_offset, 0x50u);
}

// Issue 19: the H200 capture's strided LDG holds 0.1% of the stall samples itself, the FFMA that waits
// for its result 89.5% (long scoreboard). The location is the load, with its consumer's stalls, the
// consumer named, and the source line from a listing with line info (nvdisasm -g).
TEST(MemoryTools, H200LocationIsTheLoadWithTheStallsOfItsConsumer) {
  Profile profile = LoadFixture("uncoalesced_loads");
  auto listing = ReadFixtureText(FixturePath("uncoalesced_loads", "sass_lineinfo.txt"));
  ASSERT_TRUE(listing.has_value());
  auto sass = ParseSass(*listing, "sass_lineinfo.txt");
  ASSERT_TRUE(sass.ok()) << sass.status().message();
  profile.sass = std::move(sass).value();
  Diagnosis diagnosis = Diagnose(profile, {});
  ASSERT_FALSE(diagnosis.kernels.empty());
  const Finding* finding = FindFinding(diagnosis.kernels.front(), "uncoalesced_loads");
  ASSERT_NE(finding, nullptr);
  ASSERT_FALSE(finding->locations.empty());
  const Location& load = finding->locations.front();
  EXPECT_EQ(load.sass_offset, 0xc0u);
  EXPECT_NE(load.sass_text.find("LDG.E.CONSTANT R2"), std::string::npos);
  EXPECT_GT(load.stall_share, 0.89);
  EXPECT_GT(load.waiting_share, 0.89);
  EXPECT_EQ(load.waiting_sass_offset, 0xf0u);
  EXPECT_NE(load.waiting_sass_text.find("FFMA R7, R2, R9, 1"), std::string::npos);
  EXPECT_EQ(load.source_line, "uncoalesced_loads.cu:10");
}

}  // namespace
}  // namespace kopt
