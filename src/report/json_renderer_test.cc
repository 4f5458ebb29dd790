#include "report/json_renderer.h"

#include <gtest/gtest.h>

#include <set>

#include "report/render_test_samples.h"
#include "report/renderer.h"

namespace kopt {
namespace {

using Json = nlohmann::ordered_json;

Json RenderAndParse(const Diagnosis& diagnosis) {
  std::string text = MakeJsonRenderer(RenderOptions{})->Render(diagnosis);
  return Json::parse(text);
}

// Every number must be the "value" of a quantity object {"value", "unit"},
// except identifiers and counts listed in docs/json-schema.md.
void ExpectEveryNumberHasAUnit(const Json& json, const std::string& path) {
  static const std::set<std::string> kPlainNumbers = {
      "launch_id", "x", "y", "z", "rank", "first_launch_id", "last_launch_id"};
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (value.is_number()) {
        bool quantity =
            key == "value" && json.contains("unit") && json["unit"].is_string() && json.size() == 2;
        EXPECT_TRUE(quantity || kPlainNumbers.count(key)) << path << "." << key;
      } else {
        ExpectEveryNumberHasAUnit(value, path + "." + key);
      }
    }
  } else if (json.is_array()) {
    for (size_t index = 0; index < json.size(); ++index) {
      EXPECT_FALSE(json[index].is_number()) << path << "[" << index << "]";
      ExpectEveryNumberHasAUnit(json[index], path + "[" + std::to_string(index) + "]");
    }
  }
}

TEST(JsonRenderTest, ParsesWithSchemaVersionToolAndVersion) {
  Json json = RenderAndParse(render_test::MemoryBoundSample());
  EXPECT_EQ(json["schema_version"], std::string(kJsonSchemaVersion));
  EXPECT_EQ(json["tool"], "kopt");
  EXPECT_EQ(json["version"], KOPT_VERSION);
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"schema_version", "tool", "version", "source", "device_name",
                                            "gpu", "inputs", "kernels", "notes", "hypotheses", "narrative"}));
}

TEST(JsonRenderTest, StageOneNumbersCarryUnits) {
  Json json = RenderAndParse(render_test::MemoryBoundSample());
  const Json& kernel = json["kernels"][0];
  EXPECT_EQ(kernel["kernel_name"], "saxpy(float, const float *, float *, int)");
  EXPECT_EQ(kernel["grid"]["x"], 72226);
  EXPECT_EQ(kernel["grid"]["unit"], "block");
  EXPECT_EQ(kernel["registers_per_thread"]["unit"], "register/thread");
  const Json& stage1 = kernel["stage1"];
  EXPECT_EQ(stage1["bottleneck_class"], "memory-bound");
  EXPECT_EQ(stage1["duration"], (Json{{"value", 57664.0}, {"unit", "ns"}}));
  EXPECT_EQ(stage1["memory"][0]["level"], "dram");
  EXPECT_EQ(stage1["memory"][0]["peak"]["unit"], "byte/s");
  EXPECT_DOUBLE_EQ(stage1["memory"][0]["peak"]["value"].get<double>(), 4.81e12);
  EXPECT_NEAR(stage1["memory"][0]["percent_of_peak"]["value"].get<double>(), 80.0, 1e-9);
  EXPECT_EQ(stage1["compute"][0]["work"]["unit"], "FLOP");
  EXPECT_EQ(stage1["arithmetic_intensity"]["unit"], "FLOP/byte");
  EXPECT_EQ(kernel["stalls"][0]["name"], "long_scoreboard");
  EXPECT_NEAR(kernel["stalls"][0]["share"]["value"].get<double>(), 0.887, 1e-9);
  EXPECT_EQ(kernel["stalls"][0]["cycles_per_issue"]["unit"], "cycle/inst");
  ExpectEveryNumberHasAUnit(json, "$");
}

TEST(JsonRenderTest, FindingsInRankOrderWithEvidenceAndRecommendations) {
  Json json = RenderAndParse(render_test::FindingSample());
  const Json& findings = json["kernels"][0]["findings"];
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0]["rank"], 1);
  EXPECT_EQ(findings[0]["tool"], "uncoalesced_global_loads");
  EXPECT_EQ(findings[0]["severity"], "major");
  EXPECT_EQ(findings[0]["estimated_gain"], (Json{{"value", 0.62}, {"unit", "fraction"}}));
  EXPECT_EQ(findings[0]["evidence"][0]["value"]["unit"], "sector/request");
  EXPECT_EQ(findings[0]["evidence"][0]["comparison"], ">");
  EXPECT_EQ(findings[0]["evidence"][0]["threshold"]["value"], 8.0);
  EXPECT_EQ(findings[0]["recommendations"][1]["rank"], 2);
  EXPECT_EQ(findings[0]["locations"][0]["source_line"], "transpose.cu:14");
  EXPECT_EQ(findings[0]["locations"][0]["sass_offset"]["value"], 144.0);
  EXPECT_EQ(findings[1]["severity"], "moderate");
  EXPECT_EQ(findings[2]["severity"], "info");
  ExpectEveryNumberHasAUnit(json, "$");
}

TEST(JsonRenderTest, SkippedToolsAndMergedTools) {
  Json json = RenderAndParse(render_test::HealthySkippedMergedSample());
  EXPECT_EQ(json["schema_version"], "1.7");
  const Json& kernel = json["kernels"][0];
  std::vector<std::string> keys;
  for (const auto& item : kernel.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"launch_id", "launches", "kernel_name", "function_name", "grid",
                                            "block", "registers_per_thread", "shared_memory_per_block",
                                            "stage1", "stalls", "findings", "skipped_tools", "ncu_rules",
                                            "notes", "energy"}));
  const Json& skipped = kernel["skipped_tools"];
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_EQ(skipped[0], (Json{{"tool", "shared_bank_conflicts"},
                              {"missing", {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}},
                              {"how_to_collect", "ncu --set full"}}));
  EXPECT_EQ(skipped[2]["missing"][0], "SASS listing");
  const Json& findings = kernel["findings"];
  EXPECT_EQ(findings[0]["tool"], "healthy");
  EXPECT_EQ(findings[0]["severity"], "info");
  EXPECT_TRUE(findings[0]["merged_tools"].is_array());
  EXPECT_TRUE(findings[0]["merged_tools"].empty());
  EXPECT_EQ(findings[1]["merged_tools"], (Json{"memory_latency"}));
  EXPECT_EQ(findings[1]["evidence"].size(), 4u);
  ExpectEveryNumberHasAUnit(json, "$");
}

TEST(JsonRenderTest, SkippedToolsAlwaysPresent) {
  Json json = RenderAndParse(render_test::FindingSample());
  EXPECT_TRUE(json["kernels"][0]["skipped_tools"].is_array());
  EXPECT_TRUE(json["kernels"][0]["skipped_tools"].empty());
}

TEST(JsonRenderTest, UnknownValuesAreNull) {
  Json json = RenderAndParse(render_test::MissingMetricsSample());
  EXPECT_TRUE(json["gpu"].is_null());
  const Json& kernel = json["kernels"][0];
  EXPECT_TRUE(kernel["registers_per_thread"].is_null());
  EXPECT_TRUE(kernel["stage1"]["floor"].is_null());
  EXPECT_TRUE(kernel["stage1"]["sm_throughput"].is_null());
  EXPECT_EQ(kernel["stage1"]["bottleneck_class"], "unknown");
  EXPECT_EQ(kernel["stage1"]["missing_metrics"][0], "dram__bytes.sum");
  EXPECT_TRUE(kernel["stalls"].empty());
  EXPECT_EQ(kernel["notes"].size(), 1u);
  EXPECT_EQ(json["notes"].size(), 1u);
  ExpectEveryNumberHasAUnit(json, "$");
}

TEST(JsonRenderTest, UntrustedStringsRoundTrip) {
  Diagnosis diagnosis = render_test::HostileSample();
  Json json = RenderAndParse(diagnosis);
  EXPECT_EQ(json["kernels"][0]["kernel_name"], diagnosis.kernels[0].kernel_name);
  EXPECT_EQ(json["kernels"][0]["function_name"], render_test::kHostileName);
  EXPECT_EQ(json["kernels"][0]["skipped_tools"][0]["how_to_collect"],
            diagnosis.kernels[0].skipped_tools[0].how_to_collect);
}

TEST(JsonRenderTest, InvalidUtf8DoesNotThrow) {
  Diagnosis diagnosis = render_test::MemoryBoundSample();
  diagnosis.kernels[0].kernel_name = "bad\xff\xfe name";
  EXPECT_NO_THROW(RenderAndParse(diagnosis));
}

}  // namespace
}  // namespace kopt
