#include "profile/ncu_csv.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fixture_reader.h"

namespace kopt {
namespace {

constexpr const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block "
    "Size\",\"Grid Size\",\"Device\",\"CC\"";

TEST(NcuCsv, ParsesRealH200ExportWithBaseUnits) {
  auto launches = ParseNcuRawCsv(ReadFixture("probe/raw_base.csv"), "raw_base.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  ASSERT_EQ(launches->size(), 3u);
  const KernelLaunch& saxpy = (*launches)[0];
  EXPECT_EQ(saxpy.launch_id, 0);
  EXPECT_EQ(saxpy.kernel_name, "saxpy(const float *, float *, float, int)");
  EXPECT_EQ(saxpy.FunctionName(), "saxpy");
  EXPECT_EQ(saxpy.block.x, 256);
  EXPECT_EQ(saxpy.grid.Count(), 65536);
  EXPECT_EQ(saxpy.compute_capability, "9.0");
  EXPECT_DOUBLE_EQ(*saxpy.Metric("gpu__time_duration.sum"), 57664);
  EXPECT_EQ(saxpy.MetricUnit("gpu__time_duration.sum"), "ns");
  EXPECT_DOUBLE_EQ(*saxpy.Metric("dram__bytes.sum.peak_sustained"), 1504);
  EXPECT_EQ(*saxpy.Text("device__attribute_display_name"), "NVIDIA H200");
  EXPECT_EQ((*launches)[2].FunctionName(), "strided");
}

TEST(NcuCsv, AutoUnitsAgreeWithBaseUnits) {
  auto base = ParseNcuRawCsv(ReadFixture("probe/raw_base.csv"), "raw_base.csv");
  auto scaled = ParseNcuRawCsv(ReadFixture("probe/raw_auto.csv"), "raw_auto.csv");
  ASSERT_TRUE(base.ok() && scaled.ok());
  for (const char* metric :
       {"gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second", "dram__bytes.sum.peak_sustained",
        "dram__bytes_read.sum", "dram__bytes.sum.per_second"}) {
    double expected = *(*base)[2].Metric(metric);
    double actual = *(*scaled)[2].Metric(metric);
    EXPECT_NEAR(actual, expected, std::abs(expected) * 1e-4) << metric;
    EXPECT_EQ((*scaled)[2].MetricUnit(metric), (*base)[2].MetricUnit(metric)) << metric;
  }
}

TEST(NcuCsv, EmptyCellsAreAbsentNotZero) {
  auto launches = ParseNcuRawCsv(ReadFixture("probe/raw_base.csv"), "raw_base.csv");
  ASSERT_TRUE(launches.ok());
  // PM-sampling columns are printed empty; "no data" cells are absent too.
  EXPECT_FALSE(
      (*launches)[0].Metric("FBSP.TriageCompute.dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_FALSE((*launches)[0].Metric("sass__inst_executed_register_spilling_mem_local"));
  EXPECT_FALSE((*launches)[0].Metric("metric_that_is_not_in_the_file"));
}

TEST(NcuCsv, ThousandsSeparatorsQuotesAndNoUnitsRow) {
  std::string text =
      std::string(kHeader) + ",\"dram__bytes_read.sum\",\"label\"\n" +
      "\"3\",\"7\",\"app\",\"host\",\"void k<(int)1>(float *, \"\"q\"\")\",\"1\",\"7\",\"(128, 2, 1)\","
      "\"(1, 1, 1)\",\"0\",\"9.0\",\"16,384\",\"some, text\"\n";
  auto launches = ParseNcuRawCsv(text, "t.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  ASSERT_EQ(launches->size(), 1u);
  const KernelLaunch& launch = (*launches)[0];
  EXPECT_EQ(launch.kernel_name, "void k<(int)1>(float *, \"q\")");
  EXPECT_EQ(launch.FunctionName(), "k<(int)1>");
  EXPECT_EQ(launch.block.Count(), 256);
  EXPECT_DOUBLE_EQ(*launch.Metric("dram__bytes_read.sum"), 16384);
  EXPECT_EQ(*launch.Text("label"), "some, text");
}

TEST(NcuCsv, SkipsProfilerLogLinesAndCrLf) {
  std::string text =
      "==PROF== Connected to process 1\r\n==WARNING== note\r\n" + std::string(kHeader) +
      ",\"m.sum\"\r\n\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Mbyte\"\r\n"
      "\"0\",\"1\",\"a\",\"h\",\"k()\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"2.5\"\r\n";
  auto launches = ParseNcuRawCsv(text, "t.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  EXPECT_DOUBLE_EQ(*(*launches)[0].Metric("m.sum"), 2.5e6);
  EXPECT_EQ((*launches)[0].MetricUnit("m.sum"), "byte");
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto launches = ParseNcuRawCsv(text, "bad.csv");
  ASSERT_FALSE(launches.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(launches.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(launches.status().message().find(fragment), std::string::npos) << launches.status().message();
  EXPECT_NE(launches.status().message().find("bad.csv"), std::string::npos) << launches.status().message();
}

TEST(NcuCsv, BadInputGetsClearErrors) {
  ExpectError("", "the file is empty");
  ExpectError("  \n", "the file is empty");
  ExpectError(std::string("\x7f"
                          "ELF\0\0\1",
                          7),
              "binary data");
  ExpectError("\"Kernel Name\",\"x\"\n\"k\",\"1\"\n", "no \"ID\" column");
  ExpectError("\"ID\",\"Block Size\"\n\"1\",\"(1,1,1)\"\n", "no \"Kernel Name\" column");
  ExpectError(std::string(kHeader) + "\n", "no kernel launch");
  std::string row = "\"0\",\"1\",\"a\",\"h\",\"k()\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\"";
  ExpectError(std::string(kHeader) + "\n" + row + ",\"extra\"\n",
              "bad.csv:2: 12 fields, but the header has 11");
  ExpectError(std::string(kHeader) + "\n" + row + "\n\"1\",\"1\",\"a\",\"h\",\"k(", "bad.csv:3:");
  ExpectError(std::string(kHeader) + "\n" + row + "\n\"1\",\"1\",\"a\",\"h\",\"k(", "never closed");
  ExpectError(std::string(kHeader) +
                  "\n\"x\",\"1\",\"a\",\"h\",\"k()\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\"\n",
              "column \"ID\" is \"x\"; expected an integer");
  ExpectError(std::string(kHeader) +
                  "\n\"0\",\"1\",\"a\",\"h\",\"k()\",\"1\",\"7\",\"256\",\"(1, 1, 1)\",\"0\",\"9.0\"\n",
              "expected \"(x, y, z)\"");
  ExpectError(std::string(kHeader) +
                  "\n\"0\",\"1\",\"a\",\"h\",\"\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\"\n",
              "empty \"Kernel Name\"");
  ExpectError(std::string(kHeader) + ",\"\"\n" + row + ",\"1\"\n", "empty header");
  ExpectError(std::string(kHeader) + "\n" + row + "x\"\n", "unexpected character after a closing quote");
}

TEST(NcuCsv, TruncatedRealExportNamesTheLine) {
  std::string text = ReadFixture("probe/raw_base.csv");
  text.resize(text.size() - 30000);  // inside the first launch row (line 3)
  auto launches = ParseNcuRawCsv(text, "cut.csv");
  ASSERT_FALSE(launches.ok());
  EXPECT_NE(launches.status().message().find("cut.csv:3:"), std::string::npos) << launches.status().message();
}

TEST(NcuCsv, OlderExportWithoutOptionalColumnsStillParses) {
  std::string text =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"usecond\"\n\"5\",\"k(int)\",\"1.5\"\n";
  auto launches = ParseNcuRawCsv(text, "old.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  EXPECT_DOUBLE_EQ(*(*launches)[0].Metric("gpu__time_duration.sum"), 1500);
  EXPECT_EQ((*launches)[0].grid.Count(), 1);
}

}  // namespace
}  // namespace kopt
