#include "hw/ceilings_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kopt {
namespace {

CeilingPoint Copy(double bytes, double ns, int blocks = 4, std::string timing = "events") {
  CeilingPoint point;
  point.op = "copy";
  point.unit = "byte";
  point.work = bytes;
  point.blocks_per_sm = blocks;
  point.threads_per_block = 256;
  point.median_ns = point.min_ns = ns;
  point.timing = std::move(timing);
  return point;
}

CeilingsTable SmallTable() {
  CeilingsTable table;
  table.gpu_name = "NVIDIA H200";
  table.sm_count = 132;
  table.compute_capability = "9.0";
  table.measured_at = "2026-12-01T14:00:00Z";
  table.tool = "test";
  table.points = {Copy(2e6, 4000), Copy(2e6, 5000, 1), Copy(8e6, 6000), Copy(32e6, 12000)};
  CeilingPoint fma;
  fma.op = "fma";
  fma.unit = "flop";
  fma.work = 1e9;
  fma.blocks_per_sm = 4;
  fma.threads_per_block = 256;
  fma.median_ns = fma.min_ns = 20000;
  fma.cold = false;
  table.points.push_back(fma);
  return table;
}

TEST(CeilingsTable, TheFastestGridAtEachSizeAndLogInterpolationBetweenSizes) {
  CeilingsTable table = SmallTable();
  auto at = AchievableDram(table, 2e6);
  ASSERT_TRUE(at);
  EXPECT_DOUBLE_EQ(at->duration_ns, 4000);    // the 4-blocks/SM point, not the 1-block one
  auto between = AchievableDram(table, 4e6);  // halfway in log between 2 MB and 8 MB
  ASSERT_TRUE(between);
  EXPECT_NEAR(between->duration_ns, 5000, 1e-6);
  EXPECT_NEAR(between->per_second, 4e6 / 5e-6, 1);
  auto below = AchievableDram(table, 1e5);  // latency-bound: the smallest size's duration
  ASSERT_TRUE(below);
  EXPECT_DOUBLE_EQ(below->duration_ns, 4000);
  auto above = AchievableDram(table, 64e6);  // the largest size's rate
  ASSERT_TRUE(above);
  EXPECT_NEAR(above->duration_ns, 24000, 1e-6);
  EXPECT_FALSE(AchievableDram(table, 0));
  auto fp32 = AchievableFp32(table, 1e9);
  ASSERT_TRUE(fp32);
  EXPECT_DOUBLE_EQ(fp32->duration_ns, 20000);
  EXPECT_FALSE(AchievableFp32(table, 1e6));  // below the smallest FLOP count: no floor
}

TEST(CeilingsTable, TheFasterOfNcuAndEventTimedPointsAtEachSize) {
  CeilingsTable table = SmallTable();
  table.points.push_back(Copy(2e6, 3000, 4, "ncu"));    // faster than the event-timed 4000
  table.points.push_back(Copy(32e6, 13000, 4, "ncu"));  // slower than the event-timed 12000
  auto small = AchievableDram(table, 2e6);
  ASSERT_TRUE(small);
  EXPECT_DOUBLE_EQ(small->duration_ns, 3000);
  EXPECT_NE(small->basis.find("ncu"), std::string::npos) << small->basis;
  auto large = AchievableDram(table, 32e6);
  ASSERT_TRUE(large);
  EXPECT_DOUBLE_EQ(large->duration_ns, 12000);
}

TEST(CeilingsTable, FormatAndParseRoundTrip) {
  CeilingsTable table = SmallTable();
  std::string text = FormatCeilingsTable(table);
  auto parsed = ParseCeilingsTable(text, "t.toml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  EXPECT_EQ(parsed->gpu_name, "NVIDIA H200");
  EXPECT_EQ(parsed->sm_count, 132);
  EXPECT_EQ(parsed->measured_at, table.measured_at);
  ASSERT_EQ(parsed->points.size(), table.points.size());
  EXPECT_EQ(parsed->points[1].blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(parsed->points[2].median_ns, 6000);
  EXPECT_FALSE(parsed->points[4].cold);
  EXPECT_EQ(parsed->points[4].op, "fma");
}

TEST(CeilingsTable, BadFilesNameTheFieldAndTheExpectedForm) {
  auto wrong_format = ParseCeilingsTable("format = \"other\"\n", "a.toml");
  ASSERT_FALSE(wrong_format.ok());
  EXPECT_NE(wrong_format.status().message().find("a.toml"), std::string::npos);
  std::string text = FormatCeilingsTable(SmallTable());
  std::string bad = text;
  bad.replace(bad.find("op = \"copy\""), 11, "op = \"move\"");
  auto bad_op = ParseCeilingsTable(bad, "b.toml");
  ASSERT_FALSE(bad_op.ok());
  EXPECT_NE(bad_op.status().message().find("point 1: field \"op\""), std::string::npos)
      << bad_op.status().message();
  auto syntax = ParseCeilingsTable("format = = 1", "c.toml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("c.toml: line 1"), std::string::npos) << syntax.status().message();
  auto empty = ParseCeilingsTable("format = \"kopt.ceilings\"\nversion = 1\ngpu = \"X\"\n", "d.toml");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("kopt calibrate"), std::string::npos);
}

TEST(CeilingsTable, FoundByGpuNameInADirectoryOrAsAFile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("kopt-ceilings-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_EQ(CeilingsFileName("NVIDIA H200"), "nvidia-h200.toml");
  std::ofstream(dir / "nvidia-h200.toml") << FormatCeilingsTable(SmallTable());
  std::ofstream(dir / "broken.toml") << "not toml [";
  std::vector<std::string> notes;
  auto found = FindCeilingsTable(dir.string(), "nvidia h200", notes);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->path, (dir / "nvidia-h200.toml").string());
  EXPECT_EQ(notes.size(), 1u);  // the broken file is skipped and named
  auto other = FindCeilingsTable(dir.string(), "NVIDIA A100-SXM4-80GB", notes);
  EXPECT_EQ(other.status().kind(), ErrorKind::kNotFound);
  auto file = FindCeilingsTable((dir / "nvidia-h200.toml").string(), "NVIDIA H100", notes);
  EXPECT_EQ(file.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(file.status().message().find("NVIDIA H200"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CeilingsTable, DefaultDirectoryFollowsTheEnvironment) {
  const char* saved = std::getenv("KOPT_CEILINGS_DIR");
  std::string keep = saved ? saved : "";
  ::setenv("KOPT_CEILINGS_DIR", "/tmp/x", 1);
  EXPECT_EQ(DefaultCeilingsDirectory(), "/tmp/x");
  if (saved)
    ::setenv("KOPT_CEILINGS_DIR", keep.c_str(), 1);
  else
    ::unsetenv("KOPT_CEILINGS_DIR");
}

}  // namespace
}  // namespace kopt
