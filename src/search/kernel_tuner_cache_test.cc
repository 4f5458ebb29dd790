#include "search/kernel_tuner_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kopt {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;

KernelTunerCacheHeader Header() {
  KernelTunerCacheHeader header;
  header.device_name = "NVIDIA H200";
  header.kernel_name = "gelu";
  header.problem_size = {33554432};
  header.parameter_names = {"BLOCK_SIZE", "ITEMS"};
  header.parameter_values = {{"BLOCK_SIZE", {64, 128}}, {"ITEMS", {1, 2}}};
  return header;
}

KernelTunerCacheHeader KoptHeader() {
  KernelTunerCacheHeader header = Header();
  header.reference_time_s = 0.25e-3;
  header.source = "examples/tasks/gelu/tunable/gelu_tunable.cu";
  header.scalars = {{"n", 33554432}};
  return header;
}

KernelTunerCacheEntry Entry(int64_t block, int64_t items, std::optional<double> time_s,
                            NodeStatus status = NodeStatus::kVerified) {
  KernelTunerCacheEntry entry;
  entry.configuration = {block, items};
  entry.status = status;
  entry.time_s = time_s;
  if (time_s) entry.times_s = {*time_s, *time_s * 1.01};
  entry.findings = {"tail_effect"};
  return entry;
}

TEST(KernelTunerCacheTest, WritesKernelTunersLayout) {
  KernelTunerCache cache{Header(), {}, true};
  cache.entries["64,1"] = Entry(64, 1, 70e-6);
  std::string text = KernelTunerCacheText(cache);
  EXPECT_THAT(text,
              HasSubstr("{\n\"device_name\": \"NVIDIA H200\",\n\"kernel_name\": \"gelu\",\n\"problem_size\": "
                        "[33554432],\n\"tune_params_keys\": [\"BLOCK_SIZE\",\"ITEMS\"],\n"));
  EXPECT_THAT(text,
              HasSubstr("\"objective\": \"time\",\n\"cache\": {\n\"64,1\": {\"BLOCK_SIZE\":64,\"ITEMS\":1,"));
  EXPECT_THAT(text, HasSubstr("\"ITEMS\":1,\"time\":0.0"));  // milliseconds, after the parameters
  EXPECT_THAT(text, EndsWith("}\n}"));
}

TEST(KernelTunerCacheTest, RoundTrips) {
  KernelTunerCache cache{Header(), {}, true};
  cache.entries["64,1"] = Entry(64, 1, 70e-6);
  cache.entries["128,2"] = Entry(128, 2, std::nullopt, NodeStatus::kFailedCompile);
  cache.entries["128,1"] = Entry(128, 1, std::nullopt, NodeStatus::kFailedCheck);
  Result<KernelTunerCache> parsed = ParseKernelTunerCache(KernelTunerCacheText(cache), "c.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->was_closed);
  EXPECT_EQ(parsed->header.kernel_name, "gelu");
  EXPECT_THAT(parsed->header.parameter_names, ElementsAre("BLOCK_SIZE", "ITEMS"));
  EXPECT_THAT(parsed->header.parameter_values["ITEMS"], ElementsAre(1, 2));
  ASSERT_EQ(parsed->entries.size(), 3u);
  const KernelTunerCacheEntry& ok = parsed->entries.at("64,1");
  EXPECT_NEAR(*ok.time_s, 70e-6, 1e-15);
  EXPECT_EQ(ok.times_s.size(), 2u);
  EXPECT_THAT(ok.findings, ElementsAre("tail_effect"));
  EXPECT_EQ(parsed->entries.at("128,2").status, NodeStatus::kFailedCompile);
  EXPECT_EQ(parsed->entries.at("128,1").status,
            NodeStatus::kFailedCheck);  // kopt_status refines RuntimeFailedConfig
  EXPECT_EQ(parsed->Best(), &parsed->entries.at("64,1"));
}

TEST(KernelTunerCacheTest, KoptHeaderMembersRoundTrip) {
  KernelTunerCache cache{KoptHeader(), {}, true};
  std::string text = KernelTunerCacheText(cache);
  EXPECT_THAT(text, HasSubstr("\"kopt_reference_time\": 0.25,\n\"kopt_source\": "));
  Result<KernelTunerCache> parsed = ParseKernelTunerCache(text, "c.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_NEAR(*parsed->header.reference_time_s, 0.25e-3, 1e-15);
  EXPECT_EQ(parsed->header.source, "examples/tasks/gelu/tunable/gelu_tunable.cu");
  EXPECT_EQ(parsed->header.scalars.at("n"), 33554432);
}

TEST(KernelTunerCacheTest, ReadsAKernelTunerFileWithoutKoptMembers) {
  std::string text =
      "{\n\"device_name\": \"A100\",\n\"kernel_name\": \"k\",\n\"problem_size\": "
      "[1024],\n\"tune_params_keys\": "
      "[\n\"block_size_x\"\n],\n\"tune_params\": {\n\"block_size_x\": [\n32,\n64\n]\n},\n\"objective\": "
      "\"time\",\n"
      "\"cache\": {\n\"32\": {\"block_size_x\": 32, \"time\": 1.5, \"times\": [1.4, 1.6]},\n\"64\": "
      "{\"block_size_x\": 64, \"time\": \"InvalidConfig\"}}\n}";
  Result<KernelTunerCache> parsed = ParseKernelTunerCache(text, "kt.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_NEAR(*parsed->entries.at("32").time_s, 1.5e-3, 1e-12);
  EXPECT_EQ(parsed->entries.at("64").status, NodeStatus::kFailedRun);
}

TEST(KernelTunerCacheTest, ToleratesAnUnclosedFileAndACutLastLine) {
  KernelTunerCacheHeader header = Header();
  std::string text = KernelTunerCacheHeaderText(header) + KernelTunerCacheLine(header, Entry(64, 1, 70e-6)) +
                     KernelTunerCacheLine(header, Entry(64, 2, 60e-6));
  Result<KernelTunerCache> open = ParseKernelTunerCache(text, "c.json");
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_FALSE(open->was_closed);
  EXPECT_EQ(open->entries.size(), 2u);
  Result<KernelTunerCache> cut = ParseKernelTunerCache(text.substr(0, text.size() - 20), "c.json");
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->entries.size(), 1u);
  Result<KernelTunerCache> header_only = ParseKernelTunerCache(KernelTunerCacheHeaderText(header), "c.json");
  ASSERT_TRUE(header_only.ok()) << header_only.status().message();
  EXPECT_TRUE(header_only->entries.empty());
}

TEST(KernelTunerCacheTest, ClearErrors) {
  EXPECT_THAT(ParseKernelTunerCache("not json", "c.json").status().message(),
              HasSubstr("c.json: not a Kernel Tuner"));
  EXPECT_THAT(ParseKernelTunerCache("{\"device_name\": \"x\"}", "c.json").status().message(),
              HasSubstr("no \"kernel_name\""));
  KernelTunerCache cache{Header(), {}, true};
  cache.entries["64,1"] = Entry(64, 1, 70e-6);
  std::string text = KernelTunerCacheText(cache);
  std::string wrong_key = text;
  wrong_key.replace(wrong_key.find("\"64,1\""), 6, "\"64,9\"");
  EXPECT_THAT(ParseKernelTunerCache(wrong_key, "c.json").status().message(),
              HasSubstr("entry \"64,9\": the key does not match its parameter values (64,1)"));
  std::string bad_time = text;
  bad_time.replace(bad_time.find("\"time\":0.0"), 10, "\"time\":\"Oops\",\"x\":0.0");
  EXPECT_THAT(ParseKernelTunerCache(bad_time, "c.json").status().message(), HasSubstr("expected a number"));
}

TEST(KernelTunerCacheTest, AppendCreatesReopensAndAppends) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / "kopt_kt_cache_test.json";
  std::filesystem::remove(path);
  KernelTunerCacheHeader header = Header();
  ASSERT_TRUE(AppendKernelTunerCacheEntry(path.string(), header, Entry(64, 1, 70e-6)).ok());
  ASSERT_TRUE(AppendKernelTunerCacheEntry(path.string(), header, Entry(64, 2, 60e-6)).ok());
  auto read = [&] {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  Result<KernelTunerCache> open = ParseKernelTunerCache(read(), "c.json");
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_EQ(open->entries.size(), 2u);
  // A closed file is reopened for appending.
  {
    std::ofstream out(path, std::ios::trunc);
    out << KernelTunerCacheText(*open);
  }
  ASSERT_TRUE(AppendKernelTunerCacheEntry(path.string(), header, Entry(128, 1, 50e-6)).ok());
  Result<KernelTunerCache> reopened = ParseKernelTunerCache(read(), "c.json");
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  EXPECT_EQ(reopened->entries.size(), 3u);
  EXPECT_NEAR(*reopened->Best()->time_s, 50e-6, 1e-15);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kopt
