#include "report/comparison_renderer.h"

#include <gtest/gtest.h>

#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

Profile PairSide(const std::string& task, const std::string& side) {
  Profile profile;
  profile.source = std::string(KOPT_FIXTURE_DIR) + "/h200_diff/pairs/" + task + "/" + side + ".csv";
  auto text = ReadFixtureText(profile.source);
  EXPECT_TRUE(text.has_value()) << profile.source;
  if (!text) return profile;
  auto launches = ParseNcuRawCsv(*text, side + ".csv");
  EXPECT_TRUE(launches.ok());
  if (launches.ok()) profile.launches = std::move(*launches);
  return profile;
}

ProfileComparison TransposeComparison() {
  auto comparison = CompareProfiles(PairSide("transpose", "before"), PairSide("transpose", "after"), {});
  EXPECT_TRUE(comparison.ok());
  return comparison.ok() ? std::move(*comparison) : ProfileComparison{};
}

TEST(ComparisonRendererTest, TerminalShowsTheAttributionSummingToTheChange) {
  ProfileComparison comparison = TransposeComparison();
  ASSERT_EQ(comparison.pairs.size(), 1u);
  ASSERT_TRUE(comparison.pairs[0].attribution.available);
  std::string text = RenderComparison(comparison, ReportFormat::kTerminal);
  EXPECT_NE(text.find("transpose_reference_kernel → transpose_tunable_kernel"), std::string::npos);
  EXPECT_NE(text.find("Where the time went"), std::string::npos);
  EXPECT_NE(text.find("stall shares from counter sums"), std::string::npos);  // the fixtures have the sums
  EXPECT_NE(text.find("(exact)"), std::string::npos);
  EXPECT_NE(text.find("±"), std::string::npos);
  EXPECT_NE(text.find("noise: the stall counters' replay"), std::string::npos);
  EXPECT_NE(text.find("measured change"), std::string::npos);
  EXPECT_NE(text.find("Metrics that moved most beyond noise"), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST(ComparisonRendererTest, JsonIsVersionedWithUnits) {
  ProfileComparison comparison = TransposeComparison();
  nlohmann::ordered_json json = ComparisonToJson(comparison);
  EXPECT_EQ(json["schema"], kDiffSchema);
  const auto& attribution = json["pairs"][0]["attribution"];
  EXPECT_EQ(attribution["change"]["unit"], "ns");
  EXPECT_EQ(attribution["stall_source"], "counters");
  double sum = 0;
  for (const auto& term : attribution["terms"])
    if (term["part"].is_null()) sum += term["time"]["value"].get<double>();
  EXPECT_NEAR(sum, attribution["change"]["value"].get<double>(), 1e-6 * std::fabs(sum));
  EXPECT_EQ(attribution["stall_split"], "shares");
  EXPECT_EQ(attribution["terms"][0]["uncertainty"]["unit"], "ns");
  EXPECT_EQ(attribution["noise"]["pass_mismatch"]["unit"], "ns");
  EXPECT_EQ(attribution["noise"]["uncertainty_source"], "pass mismatch");  // one launch per side
  EXPECT_GT(attribution["noise"]["rho_before"]["value"].get<double>(), 0.9);
}

TEST(ComparisonRendererTest, HtmlEscapesNamesAndDrawsTheArrow) {
  ProfileComparison comparison = TransposeComparison();
  comparison.after.kernels[0].function_name = "evil<script>";
  comparison.notes.push_back("<b>note</b>");
  std::string html = RenderComparison(comparison, ReportFormat::kHtml);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("evil&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;note"), std::string::npos);
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(ComparisonRendererTest, DigestIsCompact) {
  ProfileComparison comparison = TransposeComparison();
  std::string digest = ComparisonDigest(comparison, 4);
  EXPECT_NE(digest.find("total time"), std::string::npos);
  EXPECT_LT(std::count(digest.begin(), digest.end(), '\n'), 20);
}

TEST(ComparisonRendererTest, SignedQuantities) {
  EXPECT_EQ(SignedDuration(-1500), "−1.5 µs");
  EXPECT_EQ(SignedDuration(2000), "+2 µs");
  EXPECT_EQ(SignedPercent(-0.5), "−50.0%");
}

}  // namespace
}  // namespace kopt
