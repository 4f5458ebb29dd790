#include "profile/launch_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kopt {
namespace {

constexpr const char* kHeader = R"({"format":"kopt-timeline","version":1,"time_unit":"ns","pid":42})";

std::string Kernel(const std::string& name, uint64_t start, uint64_t end, int correlation, int device = 0,
                   int stream = 7) {
  return R"({"kind":"kernel","name":")" + name + R"(","start":)" + std::to_string(start) + R"(,"end":)" +
         std::to_string(end) + R"(,"device":)" + std::to_string(device) + R"(,"context":1,"stream":)" +
         std::to_string(stream) + R"(,"correlation":)" + std::to_string(correlation) +
         R"(,"grid":[8,1,1],"block":[256,1,1],"registers":16,"shared_static":0,"shared_dynamic":0})";
}

std::string Api(uint64_t start, uint64_t end, int correlation) {
  return R"({"kind":"api","name":"cudaLaunchKernel","start":)" + std::to_string(start) + R"(,"end":)" +
         std::to_string(end) + R"(,"thread":9,"correlation":)" + std::to_string(correlation) + "}";
}

std::string Lines(std::initializer_list<std::string> lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

const std::string kEnd = R"({"kind":"end","records":5,"dropped":0})";

TEST(LaunchTrace, ReadsEveryRecordKindInStartOrder) {
  std::string text = Lines(
      {kHeader,
       R"({"kind":"memcpy","copy":"HtoD","bytes":4096,"start":100,"end":300,"device":0,"context":1,"stream":7,"correlation":1})",
       Kernel("_Z9tiny_stepPfPKffi", 2000, 4000, 3), Kernel("_Z9tiny_stepPfPKffi", 1000, 1500, 2),
       Api(900, 950, 2),
       R"({"kind":"memset","bytes":64,"start":5000,"end":5100,"device":0,"context":1,"stream":7,"correlation":4})",
       R"({"kind":"overhead","start":1,"end":2})", kEnd});
  auto trace = ParseLaunchTrace(text, "t.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->process_id, 42);
  EXPECT_TRUE(trace->complete);
  ASSERT_EQ(trace->activities.size(), 4u);  // the unknown "overhead" kind is skipped
  EXPECT_EQ(trace->activities[0].kind, TraceActivityKind::kMemcpy);
  EXPECT_EQ(trace->activities[0].name, "HtoD");
  EXPECT_EQ(trace->activities[0].bytes, 4096);
  EXPECT_EQ(trace->activities[1].start_ns, 1000u);  // sorted by start
  EXPECT_EQ(trace->activities[1].grid.x, 8);
  EXPECT_EQ(trace->activities[1].block.x, 256);
  EXPECT_EQ(trace->activities[3].kind, TraceActivityKind::kMemset);
  EXPECT_EQ(trace->KernelCount(), 2);
  ASSERT_EQ(trace->api_calls.size(), 1u);
  EXPECT_EQ(trace->api_calls[0].name, "cudaLaunchKernel");
}

TEST(LaunchTrace, AFileWithoutItsEndLineIsIncomplete) {
  auto trace = ParseLaunchTrace(Lines({kHeader, Kernel("k", 1, 2, 1)}), "t.jsonl");
  ASSERT_TRUE(trace.ok());
  EXPECT_FALSE(trace->complete);
  EXPECT_EQ(trace->activities.size(), 1u);
}

TEST(LaunchTrace, BadInputIsNamedByFileLineAndField) {
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"", "t.jsonl: empty"},
      {"{\"kind\":\"kernel\"}\n", "t.jsonl line 1: not a kopt launch timeline"},
      {R"({"format":"kopt-timeline","version":2,"time_unit":"ns"})",
       "timeline version 2; this kopt reads version 1"},
      {R"({"format":"kopt-timeline","version":1,"time_unit":"us"})", "field \"time_unit\": expected \"ns\""},
      {Lines({kHeader, "not json"}), "t.jsonl line 2: expected one JSON object per line"},
      {Lines(
           {kHeader,
            R"({"kind":"kernel","name":"k","start":5,"end":4,"device":0,"context":1,"stream":1,"correlation":1,"grid":[1,1,1],"block":[1,1,1]})"}),
       "line 2: \"end\" (4) is before \"start\" (5)"},
      {Lines(
           {kHeader,
            R"({"kind":"kernel","name":"k","start":1,"end":4,"device":0,"context":1,"stream":1,"correlation":1,"grid":[1,1],"block":[1,1,1]})"}),
       "field \"grid\": expected an array of three integers"},
      {Lines({kHeader, R"({"kind":"kernel","name":"k","start":-1,"end":4})"}),
       "field \"start\": expected a non-negative integer"},
      {Lines(
           {kHeader,
            R"({"kind":"memcpy","bytes":1,"start":1,"end":4,"device":0,"context":1,"stream":1,"correlation":1})"}),
       "field \"copy\": expected a string"},
      {Lines({kHeader, kEnd, Kernel("k", 1, 2, 1)}), "line 3: a record after the \"end\" line"},
  };
  for (const Case& test : cases) {
    auto trace = ParseLaunchTrace(test.text, "t.jsonl");
    ASSERT_FALSE(trace.ok()) << test.text;
    EXPECT_NE(trace.status().message().find(test.expected), std::string::npos)
        << trace.status().message() << "\nexpected: " << test.expected;
  }
}

TEST(LaunchTrace, SummaryMeasuresDurationsGapsAndHostCalls) {
  // tiny_step four times: 1000 ns each, gaps of 500, 300 and 0 (back to back); a copy in between on
  // the same device shortens the gap before the kernel after it; another device's work does not.
  std::string text = Lines(
      {kHeader, Kernel("_Z9tiny_stepPfPKffi", 0, 1000, 1), Api(0, 200, 1),
       Kernel("_Z9tiny_stepPfPKffi", 1500, 2500, 2),
       R"({"kind":"memcpy","copy":"DtoH","bytes":8,"start":2600,"end":2700,"device":0,"context":1,"stream":7,"correlation":3})",
       Kernel("_Z9tiny_stepPfPKffi", 3000, 4000, 4), Kernel("_Z9tiny_stepPfPKffi", 4000, 5000, 5),
       Kernel("_Z5otheri", 100, 200, 6, /*device=*/1), kEnd});
  auto trace = ParseLaunchTrace(text, "t.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  TraceSummary summary = SummarizeLaunchTrace(*trace);
  ASSERT_EQ(summary.kernels.size(), 2u);
  const KernelTraceSummary* tiny = summary.Find("tiny_step");
  ASSERT_NE(tiny, nullptr);
  EXPECT_EQ(tiny->launches, 4);
  EXPECT_DOUBLE_EQ(tiny->MeanDurationNs(), 1000);
  EXPECT_EQ(tiny->gaps, 3);                   // the device's first launch has none
  EXPECT_DOUBLE_EQ(tiny->total_gap_ns, 800);  // 500 + 300 (after the copy) + 0
  EXPECT_DOUBLE_EQ(tiny->median_gap_ns, 300);
  EXPECT_EQ(tiny->host_calls, 1);
  EXPECT_DOUBLE_EQ(tiny->MeanHostCallNs(), 200);
  EXPECT_EQ(tiny->configurations, 1);
  const KernelTraceSummary* other = summary.Find("other");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->gaps, 0);  // alone on device 1
  EXPECT_EQ(summary.memcpy_count, 1);
  EXPECT_DOUBLE_EQ(summary.span_ns, 5000);
  EXPECT_DOUBLE_EQ(summary.gpu_busy_ns, 4100 + 100);
  EXPECT_EQ(summary.Find("absent"), nullptr);
}

TEST(LaunchTrace, OverlappingKernelsHaveNoGap) {
  std::string text = Lines({kHeader, Kernel("a", 0, 1000, 1, 0, 1), Kernel("b", 200, 900, 2, 0, 2),
                            Kernel("a", 1100, 1200, 3, 0, 1), kEnd});
  auto trace = ParseLaunchTrace(text, "t.jsonl");
  ASSERT_TRUE(trace.ok());
  TraceSummary summary = SummarizeLaunchTrace(*trace);
  EXPECT_DOUBLE_EQ(summary.Find("b")->total_gap_ns, 0);
  EXPECT_DOUBLE_EQ(summary.Find("a")->total_gap_ns, 100);  // after the later end of the two (1000)
  EXPECT_DOUBLE_EQ(summary.gpu_busy_ns, 1100);
}

TEST(LaunchTrace, FilesOfSeveralProcessesAreMerged) {
  std::filesystem::path directory = std::filesystem::temp_directory_path() / "kopt_launch_trace_test";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "timeline.2.jsonl") << Lines({kHeader, Kernel("a", 500, 600, 1), kEnd});
  std::ofstream(directory / "timeline.1.jsonl") << Lines({kHeader, Kernel("a", 0, 100, 1)});
  std::ofstream(directory / "raw.csv") << "not a timeline";
  std::vector<std::string> files = FindLaunchTraceFiles(directory.string());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0].find("timeline.1.jsonl"), std::string::npos);
  auto trace = ReadLaunchTraceFiles(files);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->activities.size(), 2u);
  EXPECT_EQ(trace->activities[0].start_ns, 0u);
  EXPECT_FALSE(trace->complete);  // the first file has no end line
  EXPECT_EQ(trace->files.size(), 2u);
  EXPECT_FALSE(ReadLaunchTraceFiles({}).ok());
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

// The H200 capture of tests/gpu/timeline/timeline_mix.cu (tests/fixtures/timeline/README.md).
TEST(LaunchTrace, TheCapturedMixHasEveryLaunchCopyAndMemset) {
  std::string path = std::string(KOPT_FIXTURE_DIR) + "/timeline/timeline_mix.jsonl";
  auto trace = ReadLaunchTraceFiles({path});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_TRUE(trace->complete);
  EXPECT_EQ(trace->dropped_records, 0);
  TraceSummary summary = SummarizeLaunchTrace(*trace);
  const KernelTraceSummary* short_scale = summary.Find("short_scale");
  ASSERT_NE(short_scale, nullptr);
  EXPECT_EQ(short_scale->launches, 300);
  EXPECT_EQ(short_scale->gaps, 300);
  EXPECT_EQ(short_scale->host_calls, 300);
  ASSERT_NE(summary.Find("long_polynomial<256>"), nullptr);
  EXPECT_EQ(summary.Find("long_polynomial<256>")->launches, 3);
  ASSERT_NE(summary.Find("long_polynomial<64>"), nullptr);
  EXPECT_EQ(summary.Find("long_polynomial<64>")->launches, 8);
  EXPECT_EQ(summary.memcpy_count, 2);
  EXPECT_DOUBLE_EQ(summary.memcpy_bytes, 2.0 * (1 << 22) * 4);
  EXPECT_EQ(summary.memset_count, 1);
  EXPECT_GT(summary.gpu_busy_ns, 0);
  EXPECT_LE(summary.gpu_busy_ns, summary.span_ns);
}

}  // namespace
}  // namespace kopt
