#include "app/gpus.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "core/scoped_environment_test_util.h"
#include "core/text.h"
#include "hw/gpu_spec.h"
#include "report/renderer.h"

namespace kopt {
namespace {

std::string Render(const std::string& format, bool query_live = false) {
  std::ostringstream out;
  Status status = RunGpus({.format = format, .query_live = query_live}, out);
  EXPECT_TRUE(status.ok()) << status.message();
  return out.str();
}

TEST(RunGpusTest, TerminalHasEveryRowUnitsAndSources) {
  std::string text = Render("term");
  for (const GpuSpec& gpu : KnownGpus()) {
    EXPECT_TRUE(Contains(text, "\n" + gpu.key + " ")) << gpu.key;
    EXPECT_TRUE(Contains(text, gpu.key + " (" + gpu.name + "): ")) << gpu.key;
  }
  for (const char* part : {"TFLOP/s", "TOPS", "DRAM TB/s", "DRAM GB", "L2 MiB", "Smem/SM KiB", "TDP W",
                           "FLOP/byte", "Sources"}) {
    EXPECT_TRUE(Contains(text, part)) << part;
  }
  EXPECT_FALSE(Contains(text, "GPUs on this machine"));
  EXPECT_TRUE(Contains(text, "  989  ")) << "H200/H100 BF16 tensor in TFLOP/s";
  EXPECT_TRUE(Contains(text, "  4.80  ")) << "H200 DRAM in TB/s";
  EXPECT_TRUE(Contains(text, "  60.0  ")) << "H200 L2 in MiB";
  EXPECT_TRUE(Contains(text, "  206")) << "H200 BF16 ridge point";
}

TEST(RunGpusTest, TerminalColumnsAreAligned) {
  std::istringstream lines(Render("term"));
  std::string line;
  std::getline(lines, line);  // title
  std::getline(lines, line);  // blank
  std::getline(lines, line);  // caption
  std::string header;
  std::getline(lines, header);
  for (size_t row = 0; row < KnownGpus().size(); ++row) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(line.size(), header.size()) << line;
  }
}

TEST(RunGpusTest, MarkdownTables) {
  std::string text = Render("md");
  EXPECT_TRUE(Contains(text, "# GPU spec table"));
  EXPECT_TRUE(Contains(text, "| GPU | CC | SMs |"));
  EXPECT_TRUE(Contains(text, "|---|---:|"));
  for (const GpuSpec& gpu : KnownGpus()) {
    EXPECT_TRUE(Contains(text, "| " + gpu.key + " |")) << gpu.key;
    EXPECT_TRUE(Contains(text, "- **" + gpu.key + "**")) << gpu.key;
  }
  EXPECT_EQ(Render("markdown"), text);
}

// Every object with a "value" has a "unit", recursively.
void ExpectQuantitiesHaveUnits(const nlohmann::json& json, const std::string& path) {
  if (json.is_object()) {
    if (json.contains("value")) {
      EXPECT_TRUE(json.contains("unit") && json["unit"].is_string()) << path;
      EXPECT_TRUE(json["value"].is_number()) << path;
    }
    for (const auto& [name, child] : json.items()) ExpectQuantitiesHaveUnits(child, path + "." + name);
  } else if (json.is_array()) {
    for (size_t index = 0; index < json.size(); ++index) {
      ExpectQuantitiesHaveUnits(json[index], path + "[" + std::to_string(index) + "]");
    }
  }
}

TEST(RunGpusTest, JsonHasSchemaVersionAndUnits) {
  nlohmann::json document = nlohmann::json::parse(Render("json"));
  EXPECT_EQ(document["schema_version"], std::string(kJsonSchemaVersion));
  EXPECT_EQ(document["command"], "gpus");
  ASSERT_EQ(document["gpus"].size(), KnownGpus().size());
  ExpectQuantitiesHaveUnits(document, "$");
  EXPECT_EQ(document["live"]["status"], "skipped");
  for (const auto& gpu : document["gpus"]) EXPECT_FALSE(gpu["source"].get<std::string>().empty());
  const auto& h200 = document["gpus"][2];
  ASSERT_EQ(h200["key"], "h200");
  EXPECT_DOUBLE_EQ(h200["dram_bandwidth"]["value"].get<double>(), 4.8e12);
  EXPECT_EQ(h200["dram_bandwidth"]["unit"], "byte/s");
  EXPECT_EQ(h200["peaks"]["tensor_bf16"]["unit"], "FLOP/s");
  EXPECT_EQ(h200["peaks"]["tensor_int8"]["unit"], "OP/s");
  EXPECT_EQ(h200["l2_cache"]["value"], 62914560.0);
  EXPECT_EQ(h200["boost_clock"]["unit"], "Hz");
  EXPECT_NEAR(h200["ridge_points"]["tensor_bf16"]["value"].get<double>(), 206, 1);
  EXPECT_EQ(h200["ridge_points"]["tensor_bf16"]["unit"], "FLOP/byte");
  const auto& a100 = document["gpus"][3];
  EXPECT_TRUE(a100["peaks"]["tensor_fp8"].is_null()) << "unknown or absent values are null";
}

TEST(RunGpusTest, UnknownFormatIsInvalidInput) {
  std::ostringstream out;
  Status status = RunGpus({.format = "html"}, out);
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_TRUE(Contains(status.message(), "expected one of term, md, json"));
  EXPECT_TRUE(out.str().empty());
}

// On the CPU machine the live query finds no driver: a note, not an error.
TEST(RunGpusTest, LiveSectionOnThisMachine) {
  ScopedEnvironment no_skip("KOPT_NO_GPU_QUERY", nullptr);
  std::string text = Render("term", /*query_live=*/true);
  EXPECT_TRUE(Contains(text, "GPUs on this machine"));
  nlohmann::json document = nlohmann::json::parse(Render("json", true));
  std::string status = document["live"]["status"];
  if (status == "ok") {
    EXPECT_FALSE(document["live"]["gpus"].empty());
    EXPECT_TRUE(document["live"]["gpus"][0].contains("driver_version"));
  } else {
    EXPECT_EQ(status, "unavailable");
    EXPECT_FALSE(document["live"]["message"].get<std::string>().empty());
    EXPECT_TRUE(Contains(text, "GPUs on this machine: none found"));
  }
}

TEST(RunGpusTest, EnvironmentVariableSkipsLiveSection) {
  ScopedEnvironment skip("KOPT_NO_GPU_QUERY", "1");
  EXPECT_FALSE(Contains(Render("term", true), "GPUs on this machine"));
  nlohmann::json document = nlohmann::json::parse(Render("json", true));
  EXPECT_EQ(document["live"]["status"], "skipped");
}

}  // namespace
}  // namespace kopt
